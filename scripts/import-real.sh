#!/usr/bin/env bash
# Imports every real trace under ../shared/data/traces that dlsim can
# convert (`dlsim trace import`) and replays each under fifo, sjf and srtf
# with --check on examples/clusters/import-check.yaml, arrivals rescaled to
# offered load 0.8 (--load; traces whose jobs all arrive at once are
# replayed as they are).  Prints one line per trace and policy; exits
# non-zero if any import or run fails.
#
#   scripts/import-real.sh [BUILD_DIR]      (default: build)
#   IMPORT_REAL_SUBSET=1 scripts/import-real.sh build-asan
#       one trace per format (for the sanitizer build)
#
# Not imported, because they cannot be replayed: openb multigpu*.csv (no
# times), the Pollux 160-job workloads (no durations: Pollux runs each
# application to convergence), Tiresias' yarn-gput1000.csv (a duration
# sample, not a trace), and the PAI 2020 and 2026 spot traces (only headers
# and node lists are here).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dlsim="$build/dlsim"
data=${DLSIM_DATA:-../shared/data/traces}
cluster=examples/clusters/import-check.yaml
subset=${IMPORT_REAL_SUBSET:-0}
[ -x "$dlsim" ] || { echo "import-real: no $dlsim (build first)" >&2; exit 2; }
[ -d "$data" ] || { echo "import-real: no $data" >&2; exit 2; }
tmp=$(mktemp -d /tmp/dlsim-import-real-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

fails=0
ntraces=0

# run NAME FORMAT [import args...] INPUT...
run() {
    local name=$1 format=$2
    shift 2
    local out="$tmp/$name.csv.gz"
    ntraces=$((ntraces + 1))
    if ! "$dlsim" trace import --format "$format" "$@" -o "$out" \
            2> "$tmp/report"; then
        echo "FAIL import $name: $(tail -1 "$tmp/report")"
        fails=$((fails + 1))
        return
    fi
    local load=(--load 0.8)
    grep -q "submit span 0 s" "$tmp/report" && load=()
    local kept
    kept=$(sed -n 's/.* kept \([0-9]*\) .*/\1/p' "$tmp/report" | head -1)
    for p in fifo sjf srtf; do
        if "$dlsim" run --trace "$out" --cluster "$cluster" --policy "$p" \
                "${load[@]}" --check --sample 0 --quiet --out "$tmp/run" \
                > "$tmp/runlog" 2>&1; then
            local s="$tmp/run/summary.json"
            local done rej mk
            done=$(sed -n 's/.*"jobs_finished": \([0-9]*\).*/\1/p' "$s")
            rej=$(sed -n 's/.*"jobs_rejected": \([0-9]*\).*/\1/p' "$s")
            mk=$(sed -n 's/.*"makespan": \([0-9.]*\).*/\1/p' "$s")
            printf '%-34s %-5s jobs %6s finished %6s rejected %4s makespan_h %10.1f ok\n' \
                "$name" "$p" "$kept" "$done" "$rej" \
                "$(awk -v m="$mk" 'BEGIN{print m/3600}')"
        else
            echo "FAIL run $name $p: $(tail -2 "$tmp/runlog" | tr '\n' ' ')"
            fails=$((fails + 1))
        fi
    done
}

itp=$data/microsoft-itp-elasticflow
for f in "$itp"/raw/cluster*.csv.gz; do
    run "itp-$(basename "$f" .csv.gz)" itp "$f"
    [ "$subset" = 1 ] && break
done
for f in "$itp"/elasticflow/*.csv.gz "$data"/pkusys-elasticflow/traces/*.csv.gz; do
    run "elasticflow-$(basename "$f" .csv.gz)" elasticflow "$f"
    [ "$subset" = 1 ] && break
done
run philly-pollux philly "$data/philly-pollux/philly.csv.gz"
for f in "$data"/alibaba-gpu-v2023-openb/csv/openb_pod_list_*.csv.gz; do
    case $f in *multigpu*) continue ;; esac
    run "openb-$(basename "$f" .csv.gz | sed 's/openb_pod_list_//')" openb "$f"
    [ "$subset" = 1 ] && break
done
for f in "$data"/philly-chronus-deadline/trace_job_Philly_*.csv.gz; do
    run "chronus-$(basename "$f" .csv.gz | sed 's/trace_job_Philly_//')" \
        chronus "$f"
    [ "$subset" = 1 ] && break
done
for f in "$data"/muri/*.csv.gz; do
    run "muri-$(basename "$f" .csv.gz)" muri "$f"
    [ "$subset" = 1 ] && break
done
for d in "$data"/philly-gavel/msr/seed=*; do
    run "gavel-$(basename "$d")" gavel \
        --throughputs "$data/philly-gavel/simulation_throughputs.json.gz" "$d"
    [ "$subset" = 1 ] && break
done
run tiresias-60_job tiresias "$data/tiresias/60_job.csv"

echo "import-real: $ntraces traces x 3 policies, $fails failures"
[ "$fails" = 0 ]
