#!/usr/bin/env bash
# How closely `dlsim trace gen --like` reproduces real traces: converts each
# public trace to the native format (`dlsim trace import`), fits it (`trace fit`), regenerates it with the same number of
# jobs, and compares (`trace compare`).  Prints one row per trace:
#
#   jobs        jobs in the real trace
#   gpuTV       total variation distance of the GPU-count shares (0 = exact)
#   D_dur       two-sample KS D of durations, replay, worst of seeds 1..S
#   D_gap       KS D of inter-arrival gaps, replay, worst of seeds 1..S
#   D_crit      the 1% critical value 1.628 sqrt(2/n) of the KS test
#   gapPois     KS D of gaps with --arrivals poisson (seed 1)
#   gapDiur     KS D of gaps with --arrivals diurnal (seed 1; "-" when the
#               trace spans less than a day)
#   zero%       share of zero gaps (batch arrivals) in the real trace
#
#   scripts/fit-check.sh [BUILD_DIR] [SEEDS]     (defaults: build, 3)
#
# Traces: the 10 Microsoft ITP clusters (raw, 2021; ElasticFlow, ASPLOS'23),
# cluster04's ElasticFlow variant (with model names and deadlines), and
# Philly (Jeon et al., ATC'19, in the Pollux artifact's condensed form).
set -euo pipefail
cd "$(dirname "$0")/.."
dlsim=$PWD/${1:-build}/dlsim
seeds=${2:-3}
data=${DLSIM_DATA:-$PWD/../shared/data}/traces
itp=$data/microsoft-itp-elasticflow
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# each public trace through `dlsim trace import` (docs/traces.md)
imp() {         # FORMAT IN OUT
    "$dlsim" trace import --format "$1" "$2" -o "$3" 2> /dev/null
}

# compare A B -> "D_dur D_gap gpuTV"
compare() {
    "$dlsim" trace compare "$1" "$2" | awk '
        /^durations/ { d = $2 } /^inter-arrival/ { g = $3 }
        /TV distance/ { tv = $NF } END { print d, g, tv }'
}

row() {         # name native.csv
    local name=$1 csv=$2
    "$dlsim" trace fit "$csv" -o "$tmp/w.yaml" > /dev/null
    local n dmax=0 gmax=0 tv=0
    n=$(($(grep -vc '^#' "$csv") - 1))
    for s in $(seq 1 "$seeds"); do
        "$dlsim" trace gen --like "$tmp/w.yaml" --seed "$s" -o "$tmp/g.csv" > /dev/null
        read -r d g t < <(compare "$csv" "$tmp/g.csv")
        dmax=$(awk -v a="$dmax" -v b="$d" 'BEGIN { print (b > a ? b : a) }')
        gmax=$(awk -v a="$gmax" -v b="$g" 'BEGIN { print (b > a ? b : a) }')
        tv=$(awk -v a="$tv" -v b="$t" 'BEGIN { print (b > a ? b : a) }')
    done
    "$dlsim" trace gen --like "$tmp/w.yaml" --arrivals poisson -o "$tmp/p.csv" > /dev/null
    read -r _ gp _ < <(compare "$csv" "$tmp/p.csv")
    local gd="-"
    if grep -q '^diurnal:' "$tmp/w.yaml"; then
        "$dlsim" trace gen --like "$tmp/w.yaml" --arrivals diurnal -o "$tmp/d.csv" > /dev/null
        read -r _ gd _ < <(compare "$csv" "$tmp/d.csv")
    fi
    local zero
    zero=$(awk '/zero_fraction/ { printf "%.1f", 100 * $2 }' "$tmp/w.yaml")
    printf "%-22s %7d %7.4f %8.5f %8.5f %8.5f %8s %8s %6s\n" "$name" "$n" \
        "$tv" "$dmax" "$gmax" "$(awk -v n="$n" 'BEGIN { print 1.62762 * sqrt(2 / n) }')" \
        "$gp" "$gd" "$zero"
}

echo "dlsim trace fit / gen --like / compare: $seeds replay seeds per trace"
printf "%-22s %7s %7s %8s %8s %8s %8s %8s %6s\n" trace jobs gpuTV D_dur D_gap \
    D_crit gapPois gapDiur zero%
for c in 01 02 03 04 05 06 07 08 09 10; do
    imp itp "$itp/raw/cluster$c.csv.gz" "$tmp/t.csv"
    row "itp-cluster$c" "$tmp/t.csv"
done
imp elasticflow "$itp/elasticflow/cluster04.csv.gz" "$tmp/t.csv"
row "itp-cluster04-elastic" "$tmp/t.csv"
imp philly "$data/philly-pollux/philly.csv.gz" "$tmp/t.csv"
row "philly" "$tmp/t.csv"
