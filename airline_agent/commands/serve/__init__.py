"""`airline-agent serve`: the TUI in a browser, through textual-serve.

Each browser tab that opens the page starts its own `airline-agent tui` process: its own
conversation and, live, its own copy of the database. The page loads nothing from outside
this server. Loopback by default; any other address is served with a warning.

- `command`: the typer command and its options (importing the package costs only typer);
- `work`: what the command does: the settings, the database each tab copies, the server run;
- `server`: the web server: our page, one app process per tab, listening, shutting down;
- `driver`: the Textual driver of each tab's app (imported by the app, not the server);
- `page/app_index.html`: the page, textual-serve's with its assets all served from here.
"""

DEFAULT_HOST = "127.0.0.1"  # loopback: only this machine reaches the app
DEFAULT_PORT = 8000
