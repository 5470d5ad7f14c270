"""The integration tests' fixtures (the loopback server, the sample and τ² databases) are
every test's: tests/support/fixtures.py, registered in tests/conftest.py."""
