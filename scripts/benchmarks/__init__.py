"""Benchmark parts; each module has `run(quick: bool) -> list[Row]`."""
