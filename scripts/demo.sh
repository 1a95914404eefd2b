#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on its built-in
# default: a policy comparison on a generated Philly-like workload.
#   scripts/demo.sh [dlsim demo options, e.g. --jobs 20000 --load 1.0]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
exec build/dlsim demo "$@"
