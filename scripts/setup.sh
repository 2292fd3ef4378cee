#!/usr/bin/env bash
# Sets up a fresh checkout: the Python environment (.venv) and the pinned Node tools (tools/).
# Idempotent; safe to run again. Needs Python >= 3.11 with pip, and Node 20 with npm.
set -euo pipefail
cd "$(dirname "$0")/.."

py=${PYTHON:-python3}
"$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is needed, found " + sys.version.split()[0])'
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'

if command -v npm >/dev/null 2>&1; then
  npm ci --prefix tools --no-audit --no-fund --loglevel=error >/dev/null
else
  echo "setup: npm not found; the spec linters, Prism and the HTML report need Node 20+ with npm." >&2
fi

# Headless Chromium for the report test; installed only where we are root (CI, a fresh machine).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "setup: could not install chromium; the HTML report test will be skipped." >&2
fi
echo "setup: ready (.venv, tools/node_modules)"
