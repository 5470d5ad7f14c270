"""`airline-agent eval`: the agent against a simulated customer on τ²-bench's airline tasks.

One concept per module: the tasks (`tasks`), the simulated customer (`customer`) and the
check of what it says (`customer_check`), the reward as τ² computes it (`reward`),
pass^k (`pass_hat_k`), one trial (`trial`), τ²'s message and results shapes
(`tau2_format`), the run folder and its files (`run_folder`, `results`), the runner that
runs the trials side by side (`runner`), the terminal's progress line (`progress`), and
the trial as τ²-bench's runner runs it (`like_tau2`: `eval --like tau2`).
The command is `commands/eval.py`; the stack comes from `stack.py`.
"""
