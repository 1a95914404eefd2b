#!/usr/bin/env bash
# The sweep benchmark (issue 6): 5 policies x the 10 Microsoft ITP cluster
# traces (ElasticFlow's release, ../shared/data) x 3 seeds = 150 runs on a
# 512-GPU cluster (64 nodes of 8 V100; the traces' largest job is 64 GPUs),
# every trace rescaled to offered load 0.9.  Times the whole
# `dlsim sweep` (validation, 150 forked runs, summary.csv) with --jobs 1
# and --jobs 2 and prints the speed-up; both give the same summary.csv.
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
    echo "seeds: 1..3"
} > "$out/sweep.yaml"

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "sweep:   5 policies x 10 ITP traces x 3 seeds = 150 runs ($out/sweep.yaml)"
declare -A wall
TIMEFORMAT='%R %U %S'
for j in "${workers[@]}"; do
    rm -rf "$out/run-j$j"
    read -r w u s < <({ time "$dlsim" sweep "$out/sweep.yaml" --strict --jobs "$j" \
                          --out "$out/run-j$j" --quiet || true; } 2>&1 | tail -1)
    wall[$j]=$w
    printf '  --jobs %-3s %8.2f s wall %8.2f s CPU (user+sys, all processes)   %s\n' \
        "$j" "$w" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
        "$(grep -c ',ok,' "$out/run-j$j/summary.csv") runs ok"
done
# A control for a shared machine: how much faster two independent CPU
# loops finish than one after the other (2.0 on two idle cores).  The
# sweep's speed-up cannot beat it.
loop() { awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i }'; }
read -r c1 _ _ < <({ time { loop; loop; }; } 2>&1 | tail -1)
read -r c2 _ _ < <({ time { loop & loop & wait; }; } 2>&1 | tail -1)
printf '  control: two CPU loops in parallel finish %.2fx faster than in series\n' \
    "$(awk -v a="$c1" -v b="$c2" 'BEGIN { print a / b }')"
first=${workers[0]}
for j in "${workers[@]:1}"; do
    cmp -s "$out/run-j$first/summary.csv" "$out/run-j$j/summary.csv" ||
        echo "  WARNING: summary.csv differs between --jobs $first and --jobs $j"
    printf '  speed-up from %s to %s workers: %.2fx\n' "$first" "$j" \
        "$(awk -v a="${wall[$first]}" -v b="${wall[$j]}" 'BEGIN { print a / b }')"
done
