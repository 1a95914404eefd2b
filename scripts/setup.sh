#!/usr/bin/env bash
# Installs the Debian packages dlsim needs that are missing.  Idempotent;
# prints nothing when everything is already there.
#   scripts/setup.sh          build and test dependencies
#   scripts/setup.sh --fuzz   also clang's libFuzzer runtime
set -euo pipefail
pkgs=(build-essential meson ninja-build pkg-config libgsl-dev libyaml-dev
      zlib1g-dev libcriterion-dev)
# dlsim report: gnuplot draws the plots (its fixed font: DejaVu Sans);
# test_report opens the page in headless Chromium
pkgs+=(gnuplot-nox fonts-dejavu-core chromium)
# test_report renders the PDF figures (pdftoppm) and loads every table of
# the report with pandas
pkgs+=(poppler-utils python3-pandas python3-lxml)
# dlsim sweep under mpirun (meson feature mpi, auto) and its test
pkgs+=(openmpi-bin libopenmpi-dev)
# the Python package (python/dlsim): its tests; pandas and matplotlib are
# optional (DataFrames, the example plots)
pkgs+=(python3-pytest)
if [ "${1:-}" = "--fuzz" ]; then
    pkgs+=(clang libclang-rt-14-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
