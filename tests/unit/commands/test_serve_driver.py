"""A tab's app keeps the size the browser last sent, even one sent while it loaded: a
page opened at a size the server corrects (or resized) before its app has started. With
textual's WebDriver that resize could reach the app before its start size, which then
replaced it: the tab stayed drawn at the start size (at 1×1, nothing) until the browser
was resized again (tests/integration/test_serve_requests.py, now and then, on a busy
machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from airline_agent.commands.serve.server import TabApp, TabSettings

ROOT = Path(__file__).resolve().parents[3]


async def _nothing(*_: object) -> None:
    return None


def test_a_resize_sent_while_the_app_starts_is_the_size_it_keeps(tmp_path: Path) -> None:
    tab = TabApp(
        1,
        TabSettings(argv=["unused"], environment={}, database=None, scratch=tmp_path),
        write_bytes=_nothing,
        write_str=_nothing,
        close=_nothing,
        download_manager=DownloadManager(),
    )
    resize = json.dumps({"type": "resize", "width": 120, "height": 40}).encode()
    started = subprocess.run(
        [sys.executable, "-m", "tests.support.sized_app"],
        input=AppService.encode_packet(b"M", resize),  # waiting before the app starts
        capture_output=True,
        env=tab._build_environment(width=1, height=1),
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    assert started.stderr.decode().split()[-1:] == ["120x40"], started.stderr.decode()
