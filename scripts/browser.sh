#!/usr/bin/env bash
# Browser tests drive Debian's Chromium; install it when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -d /usr/share/fonts/truetype/noto ]; then exit 0; fi
echo "==> installing chromium (Debian package)"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
