"""`airline-agent seed …` that stops inside its load transaction, for the kill -9 tests.

    python -m tests.support.stalled_seed READY_FILE seed --db PATH …

The real command, with one change: when the load asks the sample generator for more rows
after the last batch, every row has been written in the open transaction and only the
facts that mark the database complete are still to come (domain/loading.py). There it
writes READY_FILE and waits to be killed. A test that kills it then kills a seed in the
middle of its writes every time, however fast or busy the machine; the product knows
nothing of it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

from airline_agent.domain import sample
from airline_agent.domain.loading import TableRows


def main() -> None:
    ready, arguments = Path(sys.argv[1]), sys.argv[2:]
    generate = sample.generate_batches

    def stalled(**options: object) -> Iterator[TableRows]:
        yield from generate(**options)  # type: ignore[arg-type]
        ready.write_text("every row written, the transaction open\n")
        time.sleep(3600)  # until the test's kill -9

    sample.generate_batches = stalled  # seed_sample looks it up when it runs
    from airline_agent.cli import main as cli_main

    sys.argv = ["airline-agent", *arguments]
    cli_main()


if __name__ == "__main__":
    main()
