#!/usr/bin/env bash
# Installs the system packages Showroom builds against (libvips for image
# decode/encode, through cgo). Idempotent: does nothing when they are present.
set -euo pipefail
if pkg-config --exists 'vips >= 8.10' 2>/dev/null && command -v gcc >/dev/null; then
	exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing libvips-dev (needs apt-get)..." >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libvips-dev gcc pkg-config >/dev/null
pkg-config --modversion vips >&2
