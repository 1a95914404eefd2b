#!/usr/bin/env bash
# Schedules before and after an optimization (issue 16): runs every
# built-in policy and option set of bench/policies.sh on small generated
# traces over two clusters meant to reach the corners the benchmark's
# uniform clusters miss -- one GPU type with nodes of two sizes beside a
# second type with two more (het), and one node size that no gang size
# divides (odd) -- and compares each jobs.csv of build NEW with that of
# build BASE.  The new build runs with --check (invariants at every
# instant).  Prints one line per difference and a count; exit 1 if any.
#
#   bench/compare.sh BASE_BUILD_DIR [NEW_BUILD_DIR] [--seeds N] [--jobs N]
#
# A base build of an earlier commit: git worktree add /tmp/base COMMIT &&
# (cd /tmp/base && scripts/build.sh build), then bench/compare.sh
# /tmp/base/build.
set -euo pipefail
cd "$(dirname "$0")/.."
base=
new=build
seeds=3
jobs=2000
while [ $# -gt 0 ]; do
    a=$1; shift
    case $a in
    --seeds) seeds=$1; shift ;;
    --jobs) jobs=$1; shift ;;
    *) if [ -z "$base" ]; then base=$a; else new=$a; fi ;;
    esac
done
[ -n "$base" ] || { echo "usage: bench/compare.sh BASE_BUILD_DIR [NEW_BUILD_DIR] [--seeds N] [--jobs N]" >&2; exit 2; }
B=$base/dlsim
N=$new/dlsim
for x in "$B" "$N"; do
    [ -x "$x" ] || { echo "bench/compare.sh: $x: not built" >&2; exit 2; }
done
out=bench/out/compare
rm -rf "$out"
mkdir -p "$out"
cat > "$out/het.yaml" <<'YAML'
name: het
gpu_types: [{name: V100, memory_gb: 32}, {name: K80, memory_gb: 12}]
nodes:
  - {count: 20, gpus: 8, gpu_type: V100}
  - {count: 30, gpus: 4, gpu_type: V100}
  - {count: 40, gpus: 2, gpu_type: K80}
  - {count: 10, gpus: 4, gpu_type: K80}
YAML
cat > "$out/odd.yaml" <<'YAML'
name: odd
gpu_types: [{name: V100, memory_gb: 32}]
nodes: [{count: 37, gpus: 6, gpu_type: V100}]
YAML
policies=(
    fifo:backfill=1 fifo sjf edf "fifo:priority=1,backfill=1"
    srtf srtf:placement=pool srtf:preempt_cost=30
    tiresias tiresias:promote=2 "tiresias:promote=1,thresholds=1000/5000/20000"
    tiresias:placement=pool tiresias:preempt_cost=30
    qos qos:preempt=1 qos:elastic=1 "qos:preempt=1,elastic=1" qos:reserve=0
    "qos:elastic=1,grow=idle"
    horus horus:variant=plus horus:w_speed=1 horus:variant=authors
    gandiva gandiva:quantum=0 gandiva:placement=pool gandiva:variant=horus-paper
    gandiva:profile_s=300 gandiva:backfill=0
    fairshare fairshare:lend=0 fairshare:quota=demand fairshare:preempt_cost=30
    fairshare:placement=pool
)
ndiff=0
nrun=0
for cl in het odd; do
    for seed in $(seq 1 "$seeds"); do
        raw=$out/raw-$cl-$seed.csv.gz
        tr=$out/$cl-$seed.csv.gz
        "$N" trace gen --cluster "$out/$cl.yaml" --jobs "$jobs" --load 1.5 --seed "$seed" \
            --gpus "1:8,2:4,3:1,4:3,6:1,8:2,12:1,16:1,32:1" -o "$raw" >/dev/null 2>&1
        "$N" trace annotate "$raw" --util beta:2,2 --mem uniform:1,12 \
            --deadline-slack 1.5:4 --deadline-frac 0.6 --seed "$seed" \
            --vc vc0:8,vc1:5,vc2:3,vc3:2,vc4:1,vc5:1 -o "$tr" >/dev/null 2>&1
        for p in "${policies[@]}"; do
            d=$out/run
            rm -rf "$d-b" "$d-n"
            rb=0 rn=0
            "$B" run --trace "$tr" --cluster "$out/$cl.yaml" --policy "$p" --out "$d-b" \
                --quiet --sample 0 >/dev/null 2>&1 || rb=$?
            "$N" run --trace "$tr" --cluster "$out/$cl.yaml" --policy "$p" --out "$d-n" \
                --quiet --sample 0 --check >/dev/null 2>&1 || rn=$?
            nrun=$((nrun + 1))
            if [ $rb != $rn ]; then
                echo "DIFF $cl seed $seed $p: exit $rb before, $rn after"
                ndiff=$((ndiff + 1))
            elif [ $rn = 0 ] && ! cmp -s "$d-b/jobs.csv" "$d-n/jobs.csv"; then
                echo "DIFF $cl seed $seed $p: jobs.csv differs"
                ndiff=$((ndiff + 1))
            fi
        done
    done
done
rm -rf "$out/run-b" "$out/run-n"
echo "bench/compare.sh: $nrun runs, $ndiff with a different schedule"
[ $ndiff = 0 ]
