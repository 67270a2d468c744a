#!/usr/bin/env bash
# Installs Debian's Chromium, the browser the web console's end-to-end tests
# (internal/console) drive headless. Idempotent: does nothing when it is
# present. Only Debian's package is used: a test tool's own browser download
# does not work on a closed network.
set -euo pipefail
if command -v chromium >/dev/null; then
	exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing chromium for the console's browser tests (needs apt-get)..." >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
chromium --version >&2
