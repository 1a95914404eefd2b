#!/usr/bin/env bash
# The runtime model on a heterogeneous cluster, seen through a real run:
# one job per (zoo model, GPU type), pinned with gpu_type, each with an hour
# of V100 work, run with --models zoo on examples/clusters/hetero.yaml
# (K80, P100, V100, A100, H100).  Prints each job's run time and its speed
# relative to V100 as the engine applied it (from jobs.csv).
#
#   scripts/hetero-ratios.sh [BUILD_DIR] [GPUS_PER_JOB]   (defaults: build, 1)
set -euo pipefail
cd "$(dirname "$0")/.."
dlsim=${1:-build}/dlsim
n=${2:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
types="K80 P100 V100 A100 H100"
models="resnet18@64 resnet50@64 vgg16@64 inception3@64 bert@64 gpt2@128 transformer@64 lstm@20 deepspeech2@32 recommendation@2048 cyclegan@1 a3c@1"
{
    echo "job_id,submit_time,num_gpus,duration,model,gpu_type"
    k=0
    for m in $models; do
        for t in $types; do
            echo "$m/$t,$((k * 1000000)),$n,3600,$m,$t"
            k=$((k + 1))
        done
    done
} > "$tmp/t.csv"
"$dlsim" run --trace "$tmp/t.csv" --cluster examples/clusters/hetero.yaml \
    --models zoo --policy fifo --out "$tmp/o" --quiet --check
/usr/bin/python3 - "$tmp/o/jobs.csv" "$types" <<'PY'
import csv, sys
types = sys.argv[2].split()
rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    m, t = r["job_id"].split("/")
    rows.setdefault(m, {})[t] = float(r["finish_time"]) - float(r["start_time"])
print("speed relative to V100 (1 h of V100 work; run time = 1 h / speed)")
print(f"{'model':22s}" + "".join(f"{t:>8s}" for t in types))
for m, d in rows.items():
    print(f"{m:22s}" + "".join(f"{3600 / d[t]:8.2f}" for t in types))
PY
