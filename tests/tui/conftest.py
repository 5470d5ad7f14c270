"""The TUI tests' fixtures (the loopback server for live sessions) are every test's:
tests/support/fixtures.py, registered in tests/conftest.py."""
