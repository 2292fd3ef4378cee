#!/usr/bin/env bash
# Sets up a checkout for what you will run, and nothing more. Idempotent; safe to run again.
#
#   bash scripts/setup.sh         the suite: .venv with crm-conformance (run, smoke, adapter-check,
#                                 sweep) and, when npm is there, the pinned Node tools for the
#                                 HTML report (crm-conformance report)
#   bash scripts/setup.sh --dev   the project's own tests too: the dev extras (ruff, mypy, spec
#                                 validators, tox) and headless Chromium for the report test
#                                 (installed only as root with apt-get). CI=true implies --dev.
#
# Needs Python >= 3.11 with pip; Node 20 with npm for the report and the spec linters. `npm ci`
# runs only when tools/node_modules is missing or tools/package-lock.json changed since.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=false
for arg in "$@"; do
  case "$arg" in
    --dev) dev=true ;;
    *) echo "setup: unknown option $arg (expected --dev)" >&2; exit 2 ;;
  esac
done
if [ "${CI:-}" = true ]; then dev=true; fi

py=${PYTHON:-python3}
"$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is needed, found " + sys.version.split()[0])'
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
if [ "$dev" = true ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
else
  .venv/bin/python -m pip install -q --disable-pip-version-check -e .
fi

if command -v npm >/dev/null 2>&1; then
  stamp=tools/node_modules/.package-lock.sha256
  lock=$("$py" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' tools/package-lock.json)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock" ]; then
    npm ci --prefix tools --no-audit --no-fund --loglevel=error >/dev/null
    echo "$lock" > "$stamp"
  fi
else
  echo "setup: npm not found; the HTML report (and, for --dev, the spec linters and Prism) need Node 20+ with npm." >&2
fi

# Headless Chromium is for the project's own report test only; installed where we are root.
if [ "$dev" = true ] && ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "setup: could not install chromium; the HTML report test will be skipped." >&2
fi
echo "setup: ready ($([ "$dev" = true ] && echo "suite and project tests" || echo "suite"))"
