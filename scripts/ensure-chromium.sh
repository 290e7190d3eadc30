#!/usr/bin/env bash
# Makes sure Debian's Chromium is there for the browser tests (installs it when running as root with apt).
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Chromium for the browser tests (apt-get install chromium)..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  echo "Chromium installed: $("$CHROMIUM" --version)"
else
  echo "Chromium is missing at $CHROMIUM and cannot be installed here: install it (apt-get install chromium) or set CHROMIUM_PATH." >&2
  exit 1
fi
