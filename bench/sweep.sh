#!/usr/bin/env bash
# The sweep benchmark (issues 6, 16): 5 policies x the 10 Microsoft ITP cluster
# traces (ElasticFlow's release, ../shared/data) x 4 seeds = 200 runs on a
# 512-GPU cluster (64 nodes of 8 V100; the traces' largest job is 64 GPUs),
# every trace rescaled to offered load 0.9.  Times the whole
# `dlsim sweep` (validation, 200 forked runs, summary.csv) with --jobs 1
# and --jobs 2, and under a 2-rank `mpirun` where this build has MPI, and
# prints runs per second and the speed-up; all give the same summary.csv.
# The overhead per run: the 1-worker sweep's wall time less that of the
# same 200 runs as plain `dlsim run` commands one after another (each
# run's provenance command from its summary.json, with --out), over 200,
# in wall and in CPU time (the CPU figure is the one to trust on a busy
# machine).
# The sweep runs with --strict, as sweeps for a paper should: a warning
# (a job that never fits, an unknown column) would fail its run.
#
#   bench/sweep.sh [BUILD_DIR] [JOBS...]        (defaults: build, 1 2)
#
# What the seed changes: the runs use `--models` with predict.runtime_noise
# 0.5, so each job's predicted run time is off by a lognormal factor
# exp(0.5 z) drawn from the run's seed; sjf:predicted=1 and qos order and
# place jobs by those predictions, so their schedules change with the
# seed.  fifo:backfill=1, srtf and tiresias read no predictions and give
# the same schedule for every seed (a control: three identical rows).
# Deadlines for qos come from `dlsim trace annotate` (slack 1.5x-4x, for
# 60 % of jobs, seed 1), the same for every run.
#
# The traces: `dlsim trace import --format itp` when this build has it;
# otherwise the raw CSV (job_id,submission_time,duration,num_gpu; sorted
# by submission_time) is reordered into the native columns with awk.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
workers=("$@")
[ ${#workers[@]} -gt 0 ] || workers=(1 2)
dlsim=$PWD/$build/dlsim
[ -x "$dlsim" ] || { echo "build first: scripts/build.sh $build" >&2; exit 2; }
raw=../shared/data/traces/microsoft-itp-elasticflow/raw
[ -d "$raw" ] || { echo "no $raw (the shared data)" >&2; exit 2; }
out=bench/out/sweep
mkdir -p "$out/traces"

for f in "$raw"/cluster*.csv.gz; do
    name=$(basename "$f" .csv.gz)
    t=$out/traces/$name.csv.gz
    [ -f "$t" ] && continue
    if "$dlsim" trace import --help >/dev/null 2>&1; then
        "$dlsim" trace import --format itp "$f" -o "$out/traces/$name-raw.csv.gz" >/dev/null
    else
        zcat "$f" | awk -F, 'NR == 1 { print "job_id,submit_time,num_gpus,duration"; next }
                             { print $1 "," $2 "," $4 "," $3 }' |
            gzip -n > "$out/traces/$name-raw.csv.gz"
    fi
    "$dlsim" trace annotate "$out/traces/$name-raw.csv.gz" -o "$t" \
        --deadline-slack 1.5:4 --deadline-frac 0.6 --seed 1 >/dev/null
    rm -f "$out/traces/$name-raw.csv.gz"
done

cat > "$out/cluster-512.yaml" <<'YAML'
name: itp-512
gpu_types: [{name: V100, memory_gb: 32}]
nodes: [{count: 64, gpus: 8, gpu_type: V100}]
YAML
cat > "$out/noise.yaml" <<'YAML'
kind: models
predict:
  runtime_noise: 0.5
YAML
{
    echo "policies: [\"fifo:backfill=1\", \"sjf:predicted=1\", srtf, tiresias, qos]"
    echo "traces:"
    for i in 01 02 03 04 05 06 07 08 09 10; do echo "  - traces/cluster$i.csv.gz"; done
    echo "clusters: [cluster-512.yaml]"
    echo "models: [[noise.yaml]]"
    echo "loads: [0.9]"
    echo "seeds: 1..4"
} > "$out/sweep.yaml"

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "sweep:   5 policies x 10 ITP traces x 4 seeds = 200 runs ($out/sweep.yaml)"
nruns=200
declare -A wall cpu
TIMEFORMAT='%R %U %S'
for j in "${workers[@]}"; do
    rm -rf "$out/run-j$j"
    read -r w u s < <({ time "$dlsim" sweep "$out/sweep.yaml" --strict --jobs "$j" \
                          --out "$out/run-j$j" --quiet || true; } 2>&1 | tail -1)
    wall[$j]=$w
    cpu[$j]=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    printf '  --jobs %-3s %8.2f s wall %7.1f runs/s %8.2f s CPU (user+sys, all processes)   %s\n' \
        "$j" "$w" "$(awk -v w="$w" -v n=$nruns 'BEGIN { print n / w }')" \
        "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
        "$(grep -c ',ok,' "$out/run-j$j/summary.csv") runs ok"
done
mpi_wall=
if command -v mpirun >/dev/null && [ -f "$build/dlsim-mpi.so" ]; then
    rm -rf "$out/run-mpi2"
    read -r w u s < <({ time mpirun --allow-run-as-root --oversubscribe -n 2 \
                          "$dlsim" sweep "$out/sweep.yaml" --strict \
                          --out "$out/run-mpi2" --quiet >/dev/null 2>&1 || true; } 2>&1 | tail -1)
    mpi_wall=$w
    printf '  mpirun -n 2 %6.2f s wall %7.1f runs/s %8.2f s CPU (user+sys, all processes)   %s\n' \
        "$w" "$(awk -v w="$w" -v n=$nruns 'BEGIN { print n / w }')" \
        "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
        "$(grep -c ',ok,' "$out/run-mpi2/summary.csv") runs ok"
    cmp -s "$out/run-j${workers[0]}/summary.csv" "$out/run-mpi2/summary.csv" ||
        echo "  WARNING: summary.csv differs between --jobs ${workers[0]} and mpirun -n 2"
else
    echo "  mpirun -n 2: skipped (no mpirun, or this build has no dlsim-mpi.so)"
fi
# the same runs one after another as plain commands: the sweep's overhead
first=${workers[0]}
if [ "$first" = 1 ]; then
    for f in $(find "$out/run-j1/runs" -name summary.json | sort); do
        sed -n 's/^  "command": "dlsim \(.*\)",$/\1/p' "$f"
    done > "$out/commands.txt"
    rm -rf "$out/plain"
    mkdir -p "$out/plain"
    read -r w u s < <({ time {
        k=0
        while read -r line; do
            eval "set -- $line"
            "$dlsim" "$@" --out "$out/plain/$k" --quiet >/dev/null || true
            k=$((k + 1))
        done < "$out/commands.txt"; }; } 2>&1 | tail -1)
    n=$(wc -l < "$out/commands.txt")
    printf '  the same %s runs as plain dlsim run commands in series: %.2f s wall, %.2f s CPU\n' \
        "$n" "$w" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"
    printf '  sweep overhead per run (1 worker, beyond the run itself): %.1f ms wall, %.1f ms CPU\n' \
        "$(awk -v a="${wall[1]}" -v b="$w" -v n="$n" 'BEGIN { print 1000 * (a - b) / n }')" \
        "$(awk -v a="${cpu[1]}" -v u="$u" -v s="$s" -v n="$n" 'BEGIN { print 1000 * (a - u - s) / n }')"
    rm -rf "$out/plain"
fi
# A control for a shared machine: how much faster two independent CPU
# loops finish than one after the other (2.0 on two idle cores).  The
# sweep's speed-up cannot beat it.
loop() { awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }'; }
read -r c1 _ _ < <({ time { loop; loop; }; } 2>&1 | tail -1)
read -r c2 _ _ < <({ time { loop & loop & wait; }; } 2>&1 | tail -1)
printf '  control: two CPU loops in parallel finish %.2fx faster than in series\n' \
    "$(awk -v a="$c1" -v b="$c2" 'BEGIN { print a / b }')"
for j in "${workers[@]:1}"; do
    cmp -s "$out/run-j$first/summary.csv" "$out/run-j$j/summary.csv" ||
        echo "  WARNING: summary.csv differs between --jobs $first and --jobs $j"
    printf '  speed-up from %s to %s workers: %.2fx\n' "$first" "$j" \
        "$(awk -v a="${wall[$first]}" -v b="${wall[$j]}" 'BEGIN { print a / b }')"
done
[ -z "$mpi_wall" ] || printf '  speed-up from %s worker to mpirun -n 2: %.2fx\n' "$first" \
    "$(awk -v a="${wall[$first]}" -v b="$mpi_wall" 'BEGIN { print a / b }')"
