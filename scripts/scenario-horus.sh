#!/usr/bin/env bash
# The Horus scenario (issue 4): a real trace on 1,024 GPUs in 4 racks x 32
# nodes x 8 GPUs (examples/clusters/horus-1024.yaml: the layout of one of
# the authors' launcher scripts, not their cluster), comparing horus and horus+ with the
# slot-based FIFO the Horus authors compare against, and the other
# baselines dlsim has.  Prints, per policy, the mean and standard deviation
# over seeds of the paper's metrics: effective GPU utilization, makespan,
# mean wait, mean JCT (and the co-location figures).
#
#   scripts/scenario-horus.sh [BUILD_DIR] [LOAD] [SEEDS]
#                                   (defaults: build, 1.5, 5)
#
# Inputs and the choices behind them:
# - Trace: Microsoft Philly (Jeon et al., ATC'19; CC BY 4.0) in the
#   Pollux artifact's condensed form, ../shared/data/traces/philly-pollux/
#   philly.csv.gz: 82,247 jobs, converted by `dlsim trace import --format
#   philly` (sorted by timestamp, seconds from the first) and rescaled by
#   `dlsim trace scale`.  At its own arrival rate it offers a load of 0.37 to
#   1,024 GPUs, where no scheduler matters; the Horus paper does not state
#   its load, so the arrivals are compressed uniformly (every gap times
#   the same factor, sizes and order kept) to offer LOAD.
# - Utilization: Philly records none per job.  Each seed draws every job's
#   solo utilization from Uniform(0.1, 1.0) (`dlsim trace annotate`), an
#   assumption; the Horus predictor is modelled as the truth times a
#   lognormal error of sigma 0.15, about its reported RMSLE of 0.154
#   (HotCloud 2020), through --models predict.util_noise.
# - Interference: the Horus simulator's own rule, a fixed 20 % slowdown
#   per co-runner (dlsim's default slowdown), and, as a sensitivity check,
#   a utilization hinge (rate 1 - 0.5 (sum of utils - 1) past a summed
#   utilization of 1), under which packing busy jobs costs more.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
load=${2:-1.5}
seeds=${3:-5}
dlsim=$build/dlsim
data=../shared/data/traces/philly-pollux/philly.csv.gz
[ -x "$dlsim" ] || { echo "build first: scripts/build.sh $build" >&2; exit 2; }
[ -f "$data" ] || { echo "missing $data (the shared data folder)" >&2; exit 2; }
cluster=examples/clusters/horus-1024.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the trace through the importer (docs/traces.md), then every
# arrival gap times one factor so that the offered load on the cluster is
# LOAD (sizes and order kept)
"$dlsim" trace import --format philly "$data" -o "$tmp/imported.csv" 2>/dev/null
"$dlsim" trace scale "$tmp/imported.csv" --load "$load" --cluster "$cluster" \
    -o "$tmp/philly.csv"

cat > "$tmp/pred.yaml" <<'YAML'
kind: models
predict: {util: oracle, util_noise: 0.15}
YAML
cat > "$tmp/hinge-sd.yaml" <<'YAML'
kind: slowdown
gpu_types:
  - {name: "*", form: hinge, alpha: 0.5}
YAML
cat > "$tmp/hinge.yaml" <<'YAML'
kind: models
slowdown: hinge-sd.yaml
predict: {util: oracle, util_noise: 0.15}
YAML

policies="fifo fifo:backfill=1 sjf horus horus:variant=plus"
listed=$("$dlsim" policies)
for p in ${SCENARIO_EXTRA-gandiva tiresias}; do
    grep -q "^  $p " <<<"$listed" && policies="$policies $p"
done

# every run is independent: all cores at once (gandiva's time slices make
# its runs the long ones, about 1.5 min each on one core)
for s in $(seq "$seeds"); do
    "$dlsim" trace annotate "$tmp/philly.csv" -o "$tmp/t$s.csv" --seed "$s" \
        --util uniform:0.1,1 >/dev/null
    for m in pred hinge; do
        for p in $policies; do
            printf '%s\0' "run --strict --trace $tmp/t$s.csv --cluster $cluster --policy $p \
--models $tmp/$m.yaml --seed $s --sample 0 --quiet --out $tmp/r-$m-${p//[:=,]/_}-$s"
        done
    done
done > "$tmp/runs"
# shellcheck disable=SC2086
xargs -0 -P "$(nproc)" -I{} sh -c "\"$dlsim\" {}" < "$tmp/runs"

/usr/bin/python3 - "$tmp" "$seeds" $policies <<'PY'
import json, statistics, sys
tmp, seeds, pols = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cols = [("gpu_util_effective", "eff util", 1), ("makespan", "makespan h", 1 / 3600),
        ("avg_wait", "wait h", 1 / 3600), ("avg_jct", "JCT h", 1 / 3600),
        ("colocated_gpu_time_frac", "shared", 1),
        ("interference_slowdown", "interf", 1)]
for m, title in (("pred", "interference: fixed 20 % per co-runner (the Horus simulator's)"),
                 ("hinge", "interference: hinge on summed utilization (sensitivity check)")):
    print(f"\n{title}; mean +- sd over {seeds} seeds")
    print(f"{'policy':20s}" + "".join(f"{c[1]:>20s}" for c in cols))
    for p in pols:
        vals = []
        for s in range(1, seeds + 1):
            d = p.replace(":", "_").replace("=", "_").replace(",", "_")
            vals.append(json.load(open(f"{tmp}/r-{m}-{d}-{s}/summary.json")))
        line = f"{p:20s}"
        for key, _, scale in cols:
            x = [v[key] * scale for v in vals]
            sd = statistics.stdev(x) if len(x) > 1 else 0
            line += f"{statistics.mean(x):>12.3f} +-{sd:6.3f}"
        print(line)
PY
