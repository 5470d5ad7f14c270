"""A copy of a SQLite database holds its rows wherever the file lives: a folder named with
`#` or `?` (a "C#" project) is a folder, not the start of a `file:` URI's fragment or
query (the copy was made from another, empty database)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from airline_agent.domain.sqlite_files import copy_sqlite


@pytest.mark.parametrize("folder", ["C#", "what?", "100%", "a b", "plain"])
def test_a_copy_holds_the_rows_whatever_the_folder_is_named(tmp_path: Path, folder: str) -> None:
    home = tmp_path / folder
    home.mkdir()
    source = home / "airline.db"
    with sqlite3.connect(source) as connection:
        connection.execute("create table seats (number text)")
        connection.execute("insert into seats values ('12A')")
    connection.close()
    copy_sqlite(source, home / "copy.db")
    copied = sqlite3.connect(home / "copy.db")
    try:
        assert copied.execute("select number from seats").fetchall() == [("12A",)]
    finally:
        copied.close()
