#!/usr/bin/env bash
# Configures (once) and builds dlsim in a build directory.
#   scripts/build.sh [DIR [meson setup options...]]     (default DIR: build)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
# meson 1.0 (Debian 12) decodes its compilers' output strictly: a stray
# non-UTF-8 byte (seen once here while probing the CUDA and C compilers)
# crashes `meson setup` with a UnicodeDecodeError.  Probe in the C locale
# and retry a failed setup twice before giving up.
if [ ! -f "$dir/build.ninja" ]; then
    log=$(mktemp)
    for try in 1 2 3; do
        LC_ALL=C meson setup "$dir" "$@" >"$log" 2>&1 && break
        if [ "$try" = 3 ]; then cat "$log" >&2; rm -f "$log"; exit 1; fi
        rm -rf "$dir/meson-private" "$dir/meson-info" "$dir/meson-logs"
    done
    rm -f "$log"
fi
ninja -C "$dir" >/dev/null
