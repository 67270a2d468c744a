#!/usr/bin/env bash
# Installs the system packages Showroom builds against, through cgo: libvips
# for images, and libjpeg-turbo and Little CMS, which internal/codec calls
# directly for the JPEG decode; curl and jq, which the README's walk-through
# (and the test that runs it) uses. Idempotent: does nothing when all are present.
set -euo pipefail
if pkg-config --exists 'vips >= 8.10' libjpeg lcms2 2>/dev/null && command -v gcc >/dev/null && command -v curl >/dev/null && command -v jq >/dev/null; then
	exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing libvips-dev, libjpeg-turbo and lcms2 headers, curl and jq (needs apt-get)..." >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libvips-dev libjpeg62-turbo-dev liblcms2-dev gcc pkg-config curl jq >/dev/null
pkg-config --modversion vips >&2
