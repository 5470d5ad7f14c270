"""The PostgreSQL fixtures in a forked child: mutmut (scripts/mutation) runs each mutant's
tests in a child forked from the process that ran them all once. The child has no drop
thread; its session's end waited for it forever, so every mutant whose tests reached a
`[postgres]` test timed out (counted as caught) after minutes."""

from __future__ import annotations

import os
import time

from tests.support import postgres_fixtures


class _Owner:
    def drop(self, url: str) -> None:
        pass


def test_a_forked_child_drops_and_finishes_its_session() -> None:
    postgres_fixtures.discard_later(_Owner(), "postgresql:///before-the-fork")  # type: ignore[arg-type]
    postgres_fixtures._drops.join()
    child = os.fork()
    if child == 0:  # the child: as a mutant's session, a drop, then the session's end
        postgres_fixtures.discard_later(_Owner(), "postgresql:///in-the-child")  # type: ignore[arg-type]
        postgres_fixtures._drops.join()
        os._exit(0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        finished, status = os.waitpid(child, os.WNOHANG)
        if finished:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(child, 9)
    os.waitpid(child, 0)
    raise AssertionError("the forked child's session end still waits for the drop thread")
