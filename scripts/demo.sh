#!/usr/bin/env bash
# The demo on a fresh machine: install (once), then `coldbias demo` (offline, a real small model).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/coldbias demo "$@"
