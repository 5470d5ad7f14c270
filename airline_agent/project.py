"""Where the project's own files are: the folder of the checkout (or installed tree) whose
`data/` ships the scenario library and the price list, and beside which `../shared`
holds the τ² reference data. Read by every layer (like the settings), and kept free of
imports: the TUI's first screen and `--help` load it."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
