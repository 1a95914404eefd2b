#!/usr/bin/env bash
# The QoS scenario (issue 4), as GENIE evaluated its scheduler: Poisson
# arrivals of a model mix with deadlines on a small heterogeneous cluster.
#
#   scripts/scenario-qos.sh [BUILD_DIR] [LOAD] [JOBS]   (defaults: build, 0.8, 2000)
#
# Workload: `dlsim trace gen` on examples/clusters/qos-small.yaml (12 K80,
# 12 P100, 12 V100 on 4-GPU nodes), Poisson arrivals at the offered LOAD,
# 1/2/4-GPU jobs (60/20/20 %), Philly's duration distribution, each job one
# of the twelve zoo models used by bench/run.sh, uniformly, and a deadline
# = submit + slack x duration with slack uniform in [1.5, 4].  Five seeds;
# every run uses --models zoo (speeds: the zoo's measurements, else its
# roofline; predictions: the same runtime model, no noise) and --check.
#
# Prints, per policy, the mean and standard deviation over the seeds of the
# QoS guarantee rate, makespan, mean wait, mean JCT and effective GPU
# utilization.  A second table repeats qos in diagnostic variants:
# placement_rule=fastest, reserve=0, predictions from the roofline
# alone (predict.runtime: roofline, as for jobs never profiled; the other
# policies read no predictions), and preemption for the most urgent job
# (preempt=1; with preempt_qos=0 only best-effort jobs may be stopped;
# preempt_cost 0, as srtf here).  A
# third splits each policy's deadline misses into jobs that never waited
# (started at once, on a GPU type too slow for their deadline) and jobs
# that waited (queued, or preempted).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
load=${2:-0.8}
jobs=${3:-2000}
dlsim=$build/dlsim
cluster=examples/clusters/qos-small.yaml
models=resnet50,vgg16,inception3,bert,gpt2,transformer,lstm,deepspeech2,recommendation,cyclegan,a3c,resnet18
seeds="1 2 3 4 5"
if [ ! -x "$dlsim" ]; then
    [ -d "$build" ] || meson setup "$build" >/dev/null
    ninja -C "$build" >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

policies="qos fifo fifo:backfill=1 sjf srtf"
# (not `dlsim policies | grep -q`: under pipefail grep's early exit can
# fail the pipe)
if grep -q '^  edf - ' <<<"$("$dlsim" policies)"; then
    policies="$policies edf"
fi
diag="qos:placement_rule=fastest qos:reserve=0 qos:elastic=1 qos:elastic=1,preempt=1 qos@roofline qos:preempt=1 qos:preempt=1,preempt_qos=0"
printf 'kind: models\npredict:\n  runtime: roofline\n' > "$tmp/roofline.yaml"

for s in $seeds; do
    "$dlsim" trace gen --cluster "$cluster" --jobs "$jobs" --load "$load" \
        --seed "$s" --models "$models" --gpus 1:0.6,2:0.2,4:0.2 \
        --deadline-slack 1.5:4 -o "$tmp/trace-$s.csv" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; exit 1; }
    for p in $policies $diag; do
        pol=${p%@roofline}
        extra=()
        [ "$pol" != "$p" ] && extra=(--models "$tmp/roofline.yaml")
        "$dlsim" run --strict --trace "$tmp/trace-$s.csv" --cluster "$cluster" \
            --policy "$pol" --models zoo "${extra[@]}" --seed "$s" --check \
            --quiet --sample 0 --out "$tmp/run-${p//[:=,@]/_}-$s" 2>"$tmp/err" ||
            { cat "$tmp/err" >&2; exit 1; }
    done
done

/usr/bin/python3 - "$tmp" "$seeds" "$policies" "$diag" "$load" "$jobs" <<'PY'
import csv, json, os, statistics, sys
tmp, seeds, pols, diag, load, jobs = sys.argv[1], sys.argv[2].split(), \
    sys.argv[3].split(), sys.argv[4].split(), sys.argv[5], sys.argv[6]
def rundir(p, s):
    return os.path.join(tmp, f"run-{p.translate(str.maketrans(':=,@', '____'))}-{s}")
def misses(p, s):
    """Deadline misses as fractions of the jobs with a deadline: those that
    started at once and never waited (so the GPU type they got was too slow
    for their deadline), and those that waited (queued or preempted)."""
    n = slow = waited = 0
    for r in csv.DictReader(open(os.path.join(rundir(p, s), "jobs.csv"))):
        if not r["deadline"]:
            continue
        n += 1
        if r["qos_met"] == "1":
            continue
        if float(r["wait_time"]) == 0:
            slow += 1
        else:
            waited += 1
    return {"miss_slow": slow / n, "miss_wait": waited / n}
cols = [("qos_guarantee_rate", "QoS rate", 1, "{:.3f}"),
        ("makespan", "makespan h", 3600, "{:.1f}"),
        ("avg_wait", "mean wait h", 3600, "{:.2f}"),
        ("avg_jct", "mean JCT h", 3600, "{:.2f}"),
        ("gpu_util_effective", "eff. util", 1, "{:.3f}")]
why = [("miss_slow", "missed, never waited", 1, "{:.3f}"),
       ("miss_wait", "missed after waiting", 1, "{:.3f}")]
def table(title, ps, cols, get):
    print(title)
    print(f"{'policy':34s}" + "".join(f"{c[1]:>22s}" for c in cols))
    for p in ps:
        runs = [get(p, s) for s in seeds]
        cells = []
        for key, _, div, fmt in cols:
            xs = [r[key] / div for r in runs]
            sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
            cells.append(f"{fmt.format(statistics.mean(xs))} ± {fmt.format(sd)}")
        print(f"{p:34s}" + "".join(f"{c:>22s}" for c in cells))
    print()
summary = lambda p, s: json.load(open(os.path.join(rundir(p, s), "summary.json")))
print(f"QoS scenario: qos-small (36 GPUs: 12 K80, 12 P100, 12 V100), {jobs} jobs "
      f"per seed, load {load}, deadline slack 1.5-4, --models zoo; mean ± sd "
      f"over seeds {' '.join(seeds)}\n")
table("policies", pols, cols, summary)
table("diagnostics (@roofline: with predict.runtime: roofline)", diag, cols, summary)
table("why deadlines were missed (fractions of the jobs with a deadline)",
      pols + diag, why, misses)
PY
