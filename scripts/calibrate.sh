#!/usr/bin/env bash
# scripts/calibrate.sh - calibrate dlsim's models on this machine's GPU.
#
#   scripts/calibrate.sh [--out DIR] [--budget SECONDS] [--device N]
#                        [--tool PATH] [--dlsim PATH] [--quick] [--no-fit]
#   scripts/calibrate.sh --from DIR [--dlsim PATH]
#
# Runs dlsim-calibrate probe, suite, proxies and pairs (models/calibrate/
# README.md) within the budget (default 420 s of measurement: the whole
# script stays under 8 minutes on one GPU), then `dlsim fit` on what they
# wrote, leaving in DIR (default calib-out):
#
#   probe.json, suite.csv, runtime.csv, util.csv, pairs-streams.csv,
#   pairs-timeslice.csv                    the measurements (SPEC 7)
#   runtime-GPU.yaml                       dlsim fit runtime
#   slowdown-GPU.yaml                      dlsim fit slowdown, time-sliced
#                                          pairs (two processes: two jobs)
#   slowdown-streams-GPU.yaml              the same for two streams
#   util-GPU.yaml                          dlsim fit util (needs NVML)
#   models-GPU.yaml                        kind: models tying them together:
#                                          dlsim run --models models-GPU.yaml
#
# GPU is the type probe.json names (a models/gpus.csv name such as H200).
# --from DIR skips the measurements and fits the files already in DIR (no GPU
# needed); --no-fit measures only.  The tool is build/models/calibrate/
# dlsim-calibrate (meson) or --tool; if neither exists and nvcc does, the
# script builds it first with the one-line nvcc command of models/calibrate/
# README.md into build-calibrate/.  Without a usable GPU the probe fails at
# once: its one line is printed and the script exits with its status (3).
# Exit status: 0 done; 2 bad usage or input; 3 no usable GPU; 4 measured but
# not fitted because dlsim (--dlsim, default build/dlsim) does not run here
# (fit later with --from DIR where it does); else the failing command's
# (after fitting what the other steps measured).
# Never changes clocks, compute mode, MIG or MPS settings.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=calib-out
budget=420
device=0
from=
quick=
nofit=
tool=
failed=
dlsim=$root/build/dlsim

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}
die() {
    echo "calibrate.sh: $1" >&2
    exit "${2:-2}"
}

while [ $# -gt 0 ]; do
    case $1 in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --budget) budget=${2:?--budget needs seconds}; shift 2 ;;
    --device) device=${2:?--device needs an index}; shift 2 ;;
    --from) from=${2:?--from needs a directory}; shift 2 ;;
    --tool) tool=${2:?--tool needs a path}; shift 2 ;;
    --dlsim) dlsim=${2:?--dlsim needs a path}; shift 2 ;;
    --quick) quick=--quick; shift ;;
    --no-fit) nofit=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
done
case $budget in
''|*[!0-9]*) die "--budget: '$budget' is not a whole number of seconds" ;;
esac
can_fit=
if [ -z "$nofit" ]; then
    if "$dlsim" policies >/dev/null 2>&1; then
        can_fit=1
    elif [ -n "$from" ]; then
        die "$dlsim does not run; build dlsim (scripts/build.sh) or give --dlsim"
    else
        echo "calibrate.sh: warning: $dlsim does not run here: measuring only (exit status 4); fit later with --from DIR" >&2
    fi
fi

start=$SECONDS
if [ -n "$from" ]; then
    out=$from
    [ -d "$out" ] || die "$out: no such directory"
    [ -f "$out/runtime.csv" ] || die "$out/runtime.csv: not found"
else
    if [ -z "$tool" ]; then
        tool=$root/build/models/calibrate/dlsim-calibrate
        if [ ! -x "$tool" ] && command -v nvcc >/dev/null; then
            tool=$root/build-calibrate/dlsim-calibrate
            echo "calibrate.sh: building $tool with nvcc"
            mkdir -p "$root/build-calibrate"
            nvcc -O2 -arch=native -o "$tool" "$root"/models/calibrate/*.cu \
                "$root"/models/calibrate/*.c -lcublas -ldl -lpthread ||
                die "nvcc failed" 1
        fi
    fi
    [ -x "$tool" ] || die "$tool: not found; build it (meson with a CUDA compiler, or the one-line nvcc build of models/calibrate/README.md) or give --tool"
    common=(--out "$out" --device "$device" $quick)
    # The probe first: it fails at once (exit 3, one line) without a GPU.
    "$tool" probe "${common[@]}" || exit $?
    # A later step that fails (exit 1) leaves what it measured: the fits
    # still run on it, and the script ends with that status.
    "$tool" suite "${common[@]}" || failed=${failed:-$?}
    left=$((budget - (SECONDS - start)))
    # proxies: about 45 s on an H200; a third of what is left at most
    "$tool" proxies "${common[@]}" --budget $((left / 3 > 10 ? left / 3 : 10)) || failed=${failed:-$?}
    [ -f "$out/runtime.csv" ] || exit "${failed:-1}"
    left=$((budget - (SECONDS - start)))
    # pairs: a measurement started before the budget ends may run ~10 s over
    "$tool" pairs "${common[@]}" --budget $((left > 25 ? left - 15 : 10)) || failed=${failed:-$?}
    echo "calibrate.sh: measured in $((SECONDS - start)) s"
fi
if [ -z "$can_fit" ]; then
    [ -n "$nofit" ] && exit "${failed:-0}"
    echo "calibrate.sh: NOT FITTED: $dlsim does not run here; run scripts/calibrate.sh --from $out where it does" >&2
    exit 4
fi

gpu=$(sed -n 's/^  "gpu_type": "\(.*\)",$/\1/p' "$out/probe.json" 2>/dev/null || true)
if [ -z "$gpu" ]; then
    gpu=$(awk -F, 'NR == 2 { print $1 }' "$out/runtime.csv")
fi
[ -n "$gpu" ] || die "$out: no GPU type in probe.json or runtime.csv"

rows() { [ -f "$1" ] && echo $(($(wc -l < "$1") - 1)) || echo 0; }

echo "== dlsim fit runtime ($gpu)"
"$dlsim" fit runtime "$out/runtime.csv" --zoo "$root/models" -o "$out/runtime-$gpu.yaml"
have_sd=
if [ "$(rows "$out/pairs-timeslice.csv")" -ge 2 ]; then
    echo "== dlsim fit slowdown (time-sliced pairs)"
    "$dlsim" fit slowdown "$out/pairs-timeslice.csv" -o "$out/slowdown-$gpu.yaml"
    have_sd=1
fi
if [ "$(rows "$out/pairs-streams.csv")" -ge 2 ]; then
    echo "== dlsim fit slowdown (pairs on two streams)"
    "$dlsim" fit slowdown "$out/pairs-streams.csv" -o "$out/slowdown-streams-$gpu.yaml"
fi
have_util=
if [ "$(rows "$out/util.csv")" -ge 2 ]; then
    echo "== dlsim fit util"
    "$dlsim" fit util "$out/util.csv" -o "$out/util-$gpu.yaml"
    have_util=1
fi

tmp=$out/models-$gpu.yaml.tmp.$$
{
    echo "# dlsim run --models $out/models-$gpu.yaml: the models fitted by"
    echo "# scripts/calibrate.sh from measurements of this $gpu"
    echo "kind: models"
    echo "zoo: \"$root/models\""
    echo "runtime: runtime-$gpu.yaml"
    if [ -n "$have_sd" ]; then
        echo "slowdown: slowdown-$gpu.yaml"
        echo "pairs: pairs-timeslice.csv"
    fi
    if [ -n "$have_util" ]; then
        echo "util: util-$gpu.yaml"
    fi
} > "$tmp"
mv "$tmp" "$out/models-$gpu.yaml"
echo "calibrate.sh: done in $((SECONDS - start)) s; $out/models-$gpu.yaml"
if [ -n "$failed" ]; then
    echo "calibrate.sh: a measurement step failed (exit $failed): see above" >&2
    exit "$failed"
fi
