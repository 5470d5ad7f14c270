# Sourced by scripts/demo and scripts/test: make .venv from pyproject.toml when it is
# missing or when pyproject.toml changed since it was built.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${PYTHON:-python3}"
stamp=".venv/.pyproject.sha256"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)-$1"
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "Setting up .venv from pyproject.toml ($1)…" >&2
  "$python" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[$1]"
  echo "$want" > "$stamp"
fi
