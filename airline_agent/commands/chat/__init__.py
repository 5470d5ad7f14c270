"""`airline-agent chat`: a line-by-line conversation with the agent, in any terminal or pipe.

The customer types a line; the agent's reply streams back, with one compact line per
tool call (name, arguments, ok / error code, ms) and a usage line per turn. Ctrl-C while
the agent works cancels just that turn (the conversation goes on, its history valid); at
the prompt it ends the chat.

- `command`: the typer command and its options (importing the package costs only typer);
- `work`: the settings and the output files checked, then the chat;
- `repl`: the chat loop (`run_chat`), approvals, the exit status;
- `lines`: the customer's lines, read in a thread so the event loop never blocks;
- `interrupts`: what Ctrl-C cancels, decided on the event loop's thread;
- `printer` and `output`: the events as lines, redacted and always encodable;
- `recording`: `--record` / `--transcript`.
"""
