"""`tui --results DIR` given a folder that cannot be shown: one line says why, on the
terminal before the app starts or in the results view. Its own module: the TUI's start and
controller name it without loading the eval modules that read a run."""


class ResultsUnusable(Exception):
    """`--results DIR` is not a run folder that can be shown; one line says why."""
