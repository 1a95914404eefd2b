#!/usr/bin/env bash
# The Python binding's cost (issue 18): CPU seconds, measured in-process.
#   1. A Python FIFO-with-backfill policy (examples/python/fifo_backfill.py)
#      on the real Philly week: VC 6214e9, 2017-10-01 to 10-08 UTC, 8,562
#      jobs, on 32 GPUs (4 x 8 V100), against dlsim's C fifo:backfill=1 on
#      the same jobs (the same jobs.csv is checked).  The fastest Python
#      peer simulator's FIFO, Tiresias's, spent 22.4 s of CPU there.
#   2. dlsim.run of the C policy fifo:backfill=1 from Python against the
#      CLI on the 1,000,000-job trace of bench/run.sh (10,000 GPUs).
#
#   bench/python.sh [BUILD_DIR] [JOBS]     (defaults: build, 1000000)
#
# Figures depend on the machine; compare the ratios, and note the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
jobs=${2:-1000000}
data=${DLSIM_DATA:-../shared/data/traces}
out=bench/out/python
mkdir -p "$out"
dlsim=$build/dlsim
[ -x "$dlsim" ] && [ -f "$build/libdlsim.so" ] ||
    { echo "build first: scripts/build.sh $build" >&2; exit 2; }
export DLSIM_LIB=$PWD/$build/libdlsim.so PYTHONPATH=$PWD/python

week=$out/philly-6214e9-week.csv
[ -f "$week" ] || "$dlsim" trace import --format philly \
    --filter vc=6214e9,start=1506816000,end=1507420800 \
    "$data/philly-pollux/philly.csv.gz" -o "$week" 2>/dev/null
cat > "$out/philly-32.yaml" <<YAML
name: philly-6214e9-32
gpu_types:
  - name: V100
    memory_gb: 32
nodes:
  - count: 4
    gpus: 8
    gpu_type: V100
YAML
trace=bench/out/trace-$jobs.csv.gz
[ -f "$trace" ] || "$dlsim" trace gen --cluster bench/cluster-10k.yaml \
    --jobs "$jobs" --load 0.9 --seed 1 -o "$trace"

/usr/bin/python3 - "$dlsim" "$out" "$week" "$trace" <<'PY'
import os, resource, subprocess, sys, time
sys.path.insert(0, "examples/python")
import dlsim
from fifo_backfill import FifoBackfill
exe, out, week, big = sys.argv[1:]
cl = os.path.join(out, "philly-32.yaml")

def child_cpu(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def own_cpu(f):
    t0 = time.process_time()
    r = f()
    return time.process_time() - t0, r

def best(n, f):
    return min(f() for _ in range(n))

# 1. the Philly week
c = best(5, lambda: child_cpu([exe, "run", "--trace", week, "--cluster", cl,
                               "--policy", "fifo:backfill=1", "--quiet",
                               "--out", os.path.join(out, "week-c")]))
runs = [own_cpu(lambda: dlsim.run(week, cluster=cl, policy=FifoBackfill(),
                                  out=os.path.join(out, "week-py")))
        for _ in range(5)]
p, r = min(runs, key=lambda x: x[0])
same = open(os.path.join(out, "week-c", "jobs.csv"), "rb").read() == \
    open(os.path.join(out, "week-py", "jobs.csv"), "rb").read()
print(f"Philly 6214e9 week, {r.summary['jobs']} jobs, 32 GPUs, FIFO with backfill (CPU s, best of 5):")
print(f"  C fifo:backfill=1 (dlsim run, whole process)  {c:8.3f}")
print(f"  Python FifoBackfill (dlsim.run)                {p:8.3f}"
      f"   engine+policy {r.stats['cpu_engine']:.3f}")
print(f"  Python / C: {p / c:.1f}x;  Tiresias's FIFO (22.4 s) / Python: "
      f"{22.4 / p:.0f}x;  same jobs.csv: {same}")

# 2. the 1M-job trace, a C policy
c = best(2, lambda: child_cpu([exe, "run", "--trace", big, "--cluster",
                               "bench/cluster-10k.yaml", "--policy",
                               "fifo:backfill=1", "--quiet", "--out",
                               os.path.join(out, "big-cli")]))
p = best(2, lambda: own_cpu(lambda: dlsim.run(
    big, cluster="bench/cluster-10k.yaml", policy="fifo:backfill=1",
    out=os.path.join(out, "big-py")))[0])
print(f"{os.path.basename(big)}, fifo:backfill=1 (CPU s, best of 2): "
      f"CLI {c:.2f}, dlsim.run {p:.2f}: {100 * (p / c - 1):+.1f} %")
PY
