#!/usr/bin/env bash
# The QoS-aware scheduler (Luo, Chen & Wang, "User QoS-aware deep learning
# task dynamic scheduling on GPU clusters", Computer Engineering & Science
# 43(8), 2021; after the same group's GENIE), claim by claim (issue 15):
#
#   scripts/reproduce-qos.sh [--quick] [--out DIR] [--build BUILD_DIR]
#
# What the repo knows of the paper (../shared/POLICIES.md): an offline
# module predicts each task's performance; an online module places and
# orders tasks by that prediction and the task's expected QoS (a deadline);
# evaluated by the QoS guarantee rate and cluster utilization against
# baseline schedulers (GENIE: QoS-guarantee percentage and makespan, Poisson
# arrivals).  No figure of the paper is known here, so the table states the
# direction of each claim, not a number.
#
# The grid (a `dlsim sweep`, strict):
# - cluster: examples/clusters/qos-small.yaml, 12 K80 + 12 P100 + 12 V100
#   on 4-GPU nodes (a small heterogeneous testbed of three generations);
# - workload: Poisson arrivals, 1/2/4-GPU jobs (60/20/20 %), Philly's
#   duration distribution cut at 10 h, each job one of the zoo models whose
#   speeds Gavel measured on K80, P100 and V100 (so the GPU types really
#   differ per model), every job with a deadline = submit + slack x its run
#   time alone on V100, slack uniform in [1.5, 4] (trace gen's, as `dlsim
#   trace annotate --deadline-slack 1.5:4` adds it); each seed its own
#   workload at exactly each load of 0.5, 1.0, 1.5 and 2.0;
# - speeds: --models zoo (the measured per-type throughputs);
# - predictions (what qos and sjf:predicted=1 read): the runtime model with
#   a lognormal error of sigma 0.5 per job (predict.runtime_noise), the
#   fitted predictor validated leave-one-model-out (predict.runtime:
#   fitted, runtime_holdout: true: the error for a model never profiled,
#   models/FIT.md), and exact predictions (a diagnostic);
# - interference, three models (none, the Horus authors' x1.2 rule, slowdowns
#   fitted to Gavel's pairs: scripts/reproduce-lib.sh); only a policy that
#   shares GPUs sees them, so the grid adds Horus (packing) as a baseline
#   beside the paper's kind (no policy of which shares a GPU);
# - policies: fifo, fifo:backfill=1, sjf:predicted=1 (SJF on predicted run
#   times), edf, srtf (on true remaining times: an oracle), tiresias
#   (2D-LAS, needs no prediction), horus; qos and its variants margin=0.5,
#   elastic=1, preempt=1; diagnostics placement_rule=fastest and reserve=0;
# - 10 seeds (2 with --quick, one load, one interference model: the CI
#   mode, a few seconds).
# Then scripts/claims.py checks the claims (paired differences with 95 %
# CIs, and why) into DIR/claims.md, and `dlsim report DIR` writes
# DIR/report.html with that table first.
# DIR defaults to BUILD_DIR/reproduce-qos; the inputs (models files, the
# sweep spec, the claims) stay in DIR.inputs, which every run's `command`
# names (scripts/reproduce-lib.sh).
set -euo pipefail
. "$(dirname "$0")/reproduce-lib.sh"
repro_init qos "$@"   # root, quick, out, dlsim, work; none/authors/gavel.yaml

cat > "$work/noise.yaml" <<'YAML'
kind: models
predict: {runtime_noise: 0.5}
YAML
cat > "$work/fitted.yaml" <<'YAML'
kind: models
predict: {runtime: fitted, runtime_holdout: true}
YAML

if [ "$quick" = 1 ]; then
    loads="[1.0]" seeds="1..2" jobs=400
    paper="[[zoo, gavel.yaml, noise.yaml]]"
else
    loads="[0.5, 1.0, 1.5, 2.0]" seeds="1..10" jobs=1000
    paper="[[zoo, none.yaml, noise.yaml], [zoo, authors.yaml, noise.yaml], [zoo, gavel.yaml, noise.yaml]]"
fi
cat > "$work/sweep.yaml" <<YAML
# scripts/reproduce-qos.sh: the QoS-aware paper's comparison
traces:
  - gen: {jobs: $jobs, gpus: "1:0.6,2:0.2,4:0.2", duration: philly,
          max_duration: 36000, deadline_slack: "1.5:4",
          models: "resnet50,resnet18,transformer,lstm,recommendation,cyclegan,a3c"}
    name: qos
clusters: [$root/examples/clusters/qos-small.yaml]
loads: $loads
seeds: $seeds
sample: 3600
strict: true
scenarios:
  paper:
    policies: [fifo, "fifo:backfill=1", "sjf:predicted=1", edf, srtf, tiresias,
               horus, qos, "qos:margin=0.5", "qos:elastic=1", "qos:preempt=1",
               "qos:placement_rule=fastest", "qos:reserve=0"]
    models: $paper
  fitted:
    policies: [fifo, "sjf:predicted=1", edf, qos, "qos:margin=0.5",
               "qos:preempt=1"]
    models: [[zoo, gavel.yaml, fitted.yaml]]
  exact:
    policies: [fifo, "sjf:predicted=1", edf, qos, "qos:placement_rule=fastest"]
    models: [[zoo, gavel.yaml]]
YAML
cat > "$work/claims.json" <<'JSON'
{"title": "QoS-aware scheduling (Luo, Chen & Wang 2021): the paper's claims against dlsim",
 "intro": "Each row: qos (run times predicted with a lognormal error of sigma 0.5) against a baseline, paired over the seeds (same workload, same load): the mean paired difference with its 95 % confidence interval, then the two means; the QoS guarantee rate (share of deadline jobs finished by their deadline) as a difference in points, the rest relative. holds = the interval lies on the better side. Interference: slowdowns fitted to Gavel's pairs (only Horus shares GPUs). In the why column each comparison has its own verdict (better / worse / n.s.): fitted = the leave-one-model-out predictor for qos (and for SJF where it is the baseline), exact = no prediction error.",
 "claims": [
  {"claim": "higher QoS guarantee rate than FIFO", "paper": "higher (no figure known here)",
   "metric": "qos_guarantee_rate", "diff": "absolute", "better": "higher",
   "policy": "qos", "baseline": "fifo",
   "where": {"scenario": "paper", "models": "zoo+gavel.yaml+noise.yaml"},
   "why": [{"label": "fitted", "where": {"scenario": "fitted"}},
           {"label": "exact", "where": {"scenario": "exact"}},
           {"label": "margin=0.5", "policy": "qos:margin=0.5"},
           {"label": "elastic=1", "policy": "qos:elastic=1"},
           {"label": "preempt=1", "policy": "qos:preempt=1"}]},
  {"claim": "higher QoS guarantee rate than SJF (predicted run times)", "paper": "higher",
   "metric": "qos_guarantee_rate", "diff": "absolute", "better": "higher",
   "policy": "qos", "baseline": "sjf:predicted=1",
   "where": {"scenario": "paper", "models": "zoo+gavel.yaml+noise.yaml"},
   "why": [{"label": "fitted", "where": {"scenario": "fitted"}},
           {"label": "exact", "where": {"scenario": "exact"}},
           {"label": "margin=0.5", "policy": "qos:margin=0.5"},
           {"label": "preempt=1", "policy": "qos:preempt=1"}]},
  {"claim": "higher QoS guarantee rate than EDF", "paper": "higher",
   "metric": "qos_guarantee_rate", "diff": "absolute", "better": "higher",
   "policy": "qos", "baseline": "edf",
   "where": {"scenario": "paper", "models": "zoo+gavel.yaml+noise.yaml"},
   "why": [{"label": "fitted", "where": {"scenario": "fitted"}},
           {"label": "exact", "where": {"scenario": "exact"}},
           {"label": "margin=0.5", "policy": "qos:margin=0.5"},
           {"label": "preempt=1", "policy": "qos:preempt=1"},
           {"label": "placement fastest (not cheapest)", "policy": "qos:placement_rule=fastest"},
           {"label": "placement fastest, exact", "policy": "qos:placement_rule=fastest", "where": {"scenario": "exact"}},
           {"label": "no reservation (reserve=0)", "policy": "qos:reserve=0"}]},
  {"claim": "higher QoS guarantee rate than backfilling baselines", "paper": "(not in the paper)",
   "metric": "qos_guarantee_rate", "diff": "absolute", "better": "higher",
   "policy": "qos", "baseline": "fifo:backfill=1",
   "where": {"scenario": "paper", "models": "zoo+gavel.yaml+noise.yaml"},
   "why": [{"label": "vs SRTF (true run times)", "baseline": "srtf"},
           {"label": "vs Tiresias", "baseline": "tiresias"},
           {"label": "margin=0.5 vs FIFO backfill", "policy": "qos:margin=0.5"},
           {"label": "preempt=1 vs SRTF", "policy": "qos:preempt=1", "baseline": "srtf"}]},
  {"claim": "higher GPU utilization than FIFO", "paper": "higher",
   "metric": "gpu_util_effective", "better": "higher",
   "policy": "qos", "baseline": "fifo",
   "where": {"scenario": "paper", "models": "zoo+gavel.yaml+noise.yaml"},
   "why": [{"label": "over the arrival window", "metric": "gpu_util_effective_window"},
           {"label": "vs SJF", "baseline": "sjf:predicted=1"},
           {"label": "vs EDF", "baseline": "edf"},
           {"label": "vs FIFO backfill", "baseline": "fifo:backfill=1"},
           {"label": "makespan vs FIFO", "metric": "makespan", "better": "lower"},
           {"label": "makespan vs EDF", "metric": "makespan", "better": "lower", "baseline": "edf"}]},
  {"claim": "less waiting than FIFO", "paper": "less",
   "metric": "avg_wait", "better": "lower",
   "policy": "qos", "baseline": "fifo",
   "where": {"scenario": "paper", "models": "zoo+gavel.yaml+noise.yaml"},
   "why": [{"label": "vs SJF", "baseline": "sjf:predicted=1"},
           {"label": "vs EDF", "baseline": "edf"},
           {"label": "vs FIFO backfill", "baseline": "fifo:backfill=1"},
           {"label": "vs SRTF", "baseline": "srtf"},
           {"label": "mean JCT vs EDF", "metric": "avg_jct", "baseline": "edf"}]},
  {"claim": "higher QoS guarantee rate than a packing scheduler (Horus), Gavel's interference", "paper": "(not in the paper)",
   "metric": "qos_guarantee_rate", "diff": "absolute", "better": "higher",
   "policy": "qos", "baseline": "horus",
   "where": {"scenario": "paper", "models": "zoo+gavel.yaml+noise.yaml"},
   "why": [{"label": "no interference", "where": {"scenario": "paper", "models": "zoo+none.yaml+noise.yaml"}},
           {"label": "authors' x1.2", "where": {"scenario": "paper", "models": "zoo+authors.yaml+noise.yaml"}},
           {"label": "qos itself, none vs Gavel", "baseline": "qos", "baseline_where": {"models": "zoo+none.yaml+noise.yaml"}}]}
 ],
 "notes": "The QoS guarantee rate counts a job as met when it finishes by its deadline (all jobs here have one). Effective utilization integrates each GPU's summed solo utilization (capped at 1) over the makespan, so without sharing it is the GPU-time the jobs held, weighted by utilization, over the makespan: a policy that puts jobs on slower GPU types holds more GPU-time for the same work. A comparison the grid has no pairs for says so (--quick runs one interference model and one load)."}
JSON
repro_run
