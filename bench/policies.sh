#!/usr/bin/env bash
# The policy cost benchmark (issue 16): CPU time per event of every
# built-in policy, and of each option set that changes its algorithm,
# against fifo:backfill=1 on the same trace and cluster.  Cases:
#
#   1m      the 1,000,000-job Philly-like trace of bench/run.sh on 10,000
#           GPUs (bench/cluster-10k.yaml), offered load 0.9
#   over    100,000 jobs of that workload on 1,000 GPUs (125 x 8 V100):
#           offered load about 9, the queue holds most of the trace
#   shapes  50,000 jobs whose GPU counts are uniform on 1..2,000 (2,000
#           shapes) on 2,048 GPUs (256 x 8), load 0.9
#   itp04   Microsoft ITP cluster04 (15,802 jobs; ElasticFlow's release in
#           ../shared/data) rescaled to load 0.9 on 900 GPUs (225 x 4)
#   hetero  (only when named) over's trace on five GPU types, 1,040 GPUs
#           (K80 320, P100 160, V100 320, A100 160, H100 80, in five racks;
#           examples/clusters/hetero.yaml five times over), every fourth
#           job (from the third) bound to a type (A100, V100, K80, V100,
#           A100, V100 in turn): the policies that try each type in turn
#
# Every trace carries a solo GPU utilization per job (Beta(2,2)), memory
# (1-12 GB), for 60 % of jobs a deadline of 1.5x-4x the run time, and a
# virtual cluster of six (vc0-vc5, by weights 8:5:3:2:1:1, replacing
# cluster04's one) and a user of 500 (u1-u500, Zipf-like: weight 1/i),
# so that packing, co-location, the QoS classes and fairshare's quotas,
# lending and reclaim do their work, by VC and (by=user) by user.
#
# Each run is `dlsim run --timing`: the engine's CPU seconds and events,
# and its CPU per event (a run under 0.2 s of engine CPU: the median of 5
# runs, as the VM's jitter is milliseconds), so the figure is CPU per event (the policy's decisions and the engine's
# bookkeeping), not wall time, and reading and writing are left out.  The
# jobs.csv checksum of every run goes to bench/out/policies/sums.txt: a
# change that must not change schedules is checked by diffing it.
#
# The VM moves the reference's cost by up to 15 % within an hour (and by
# half in a busy one), and a ratio with it, so the reference runs again
# beside each policy: column "x fifo:bf" divides by the case's first run
# of it; "x pair", where the policy's engine CPU is under 0.2 s, is the
# median of five ratios, each of a run of the policy to a run of the
# reference right after it (the two alternate: a slow spell of the VM
# moves both sides of a ratio), else the ratio to the mean of the
# reference's runs just before and just after the policy's (bracketed);
# each case ends with the spread of all its runs of the reference.
#
#   bench/policies.sh [BUILD_DIR] [--quick] [--all] [--no-bracket]
#                     [--policies "P1 P2 .."] [CASE...]
#       --quick: 1/10 of the jobs in each case (a smoke run)
#       --all:   also the papers' literal readings (horus:variant=authors,
#                gandiva:variant=horus-paper and its profile_s), which
#                scan every GPU per try and are known slow spots (docs/validation.md, Performance)
#       --policies: only these, space-separated (fifo:backfill=1 always
#                runs first: the reference)
#       --no-bracket: the reference once per case (no "x pair")
#
# A run is stopped after $BENCH_LIMIT seconds (default 600) and listed so;
# its cost per event is then read off the progress line of a second run on
# a pseudo-terminal (script(1)) after $BENCH_PROBE seconds (default 60):
# wall time in whole seconds over the events so far, marked as such.
# Figures depend on the machine (noted at the top); compare the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
quick=0
cases=()
all=0
bracket=1
only=
while [ $# -gt 0 ]; do
    a=$1; shift
    case $a in
    --quick) quick=1 ;;
    --all) all=1 ;;
    --no-bracket) bracket=0 ;;
    --policies) only=$1; shift ;;
    1m|over|shapes|itp04|hetero) cases+=("$a") ;;
    *) build=$a ;;
    esac
done
[ ${#cases[@]} -gt 0 ] || cases=(1m over shapes itp04)
dlsim=$PWD/$build/dlsim
[ -x "$dlsim" ] || { echo "build first: scripts/build.sh $build" >&2; exit 2; }
out=bench/out/policies
mkdir -p "$out"
div=$((quick ? 10 : 1))
limit=${BENCH_LIMIT:-600}
probe=${BENCH_PROBE:-60}

policies=(
    fifo:backfill=1 fifo sjf edf "fifo:priority=1,backfill=1"
    srtf srtf:placement=pool srtf:preempt_cost=30
    tiresias tiresias:promote=2 tiresias:preempt_cost=30
    qos qos:preempt=1 qos:elastic=1 "qos:preempt=1,elastic=1" qos:reserve=0
    "qos:elastic=1,grow=idle"
    horus horus:variant=plus gandiva gandiva:quantum=0
    fairshare fairshare:lend=0 fairshare:preempt_cost=30 fairshare:by=user
)
[ $all = 0 ] || policies+=(horus:variant=authors gandiva:variant=horus-paper
                           "gandiva:variant=horus-paper,profile_s=300")
if [ -n "$only" ]; then
    read -r -a policies <<<"fifo:backfill=1 $only"
fi

cluster_file() {    # name gpus-per-node nodes
    cat > "$out/$1.yaml" <<YAML
name: $1
gpu_types: [{name: V100, memory_gb: 32}]
nodes: [{count: $3, gpus: $2, gpu_type: V100}]
YAML
}

hetero_file() {     # five GPU types, 1,040 GPUs
    cat > "$out/hetero5.yaml" <<YAML
name: hetero5
reference_gpu: V100
gpu_types:
  - {name: K80, memory_gb: 12, speed: 0.28}
  - {name: P100, memory_gb: 16, speed: 0.68}
  - {name: V100, memory_gb: 32, speed: 1.0}
  - {name: A100, memory_gb: 80, speed: 1.76}
  - {name: H100, memory_gb: 80, speed: 5.81}
nodes:
  - {count: 40, gpus: 8, gpu_type: K80, rack: rack-a}
  - {count: 40, gpus: 4, gpu_type: P100, rack: rack-b}
  - {count: 20, gpus: 8, gpu_type: V100, rack: rack-b}
  - {count: 20, gpus: 8, gpu_type: V100, rack: rack-c}
  - {count: 20, gpus: 8, gpu_type: A100, rack: rack-d}
  - {count: 10, gpus: 8, gpu_type: H100, rack: rack-e}
YAML
}

over_trace() {      # jobs -> over's trace at $out/over-N-vcu.csv.gz
    local n=$1
    [ -f "$out/over-$n-vcu.csv.gz" ] && return
    "$dlsim" trace gen --cluster bench/cluster-10k.yaml --jobs "$n" \
        --load 0.9 --seed 2 -o "$out/raw-over-$n.csv.gz" >/dev/null
    annotate "$out/raw-over-$n.csv.gz" "$out/over-$n-vcu.csv.gz"
}

annotate() {        # in out
    "$dlsim" trace annotate "$1" --util beta:2,2 --mem uniform:1,12 \
        --deadline-slack 1.5:4 --deadline-frac 0.6 --seed 1 -o "$2.tmp.gz" \
        >/dev/null
    local users
    users=$(seq 1 500 | awk '{printf "%su%d:%d", (NR > 1 ? "," : ""), $1, 100000 / $1}')
    "$dlsim" trace annotate "$2.tmp.gz" --vc vc0:8,vc1:5,vc2:3,vc3:2,vc4:1,vc5:1 \
        --user "$users" --overwrite --seed 1 -o "$2" >/dev/null
    rm -f "$2.tmp.gz"
}

prepare() {         # case -> sets trace, cluster
    local c=$1 n
    case $c in
    1m)
        n=$((1000000 / div))
        cluster=bench/cluster-10k.yaml
        trace=$out/1m-$n-vcu.csv.gz
        [ -f "$trace" ] || {
            "$dlsim" trace gen --cluster "$cluster" --jobs "$n" --load 0.9 \
                --seed 1 -o "$out/raw-1m-$n.csv.gz" >/dev/null
            annotate "$out/raw-1m-$n.csv.gz" "$trace"
        } ;;
    over)
        n=$((100000 / div))
        cluster_file c1000 8 125
        cluster=$out/c1000.yaml
        trace=$out/over-$n-vcu.csv.gz
        over_trace "$n" ;;
    hetero)
        n=$((100000 / div))
        hetero_file
        cluster=$out/hetero5.yaml
        trace=$out/hetero-$n-vcu.csv.gz
        [ -f "$trace" ] || {
            over_trace "$n"
            gzip -dc "$out/over-$n-vcu.csv.gz" | awk -F, -v OFS=, '
                BEGIN { split("A100 V100 K80 V100 A100 V100", t, " ") }
                NR == 1 { print $0, "gpu_type"; next }
                { i = NR - 2; print $0, (i % 4 == 2 ? t[int(i / 4) % 6 + 1] : "") }' |
                gzip -n > "$trace.tmp"
            mv "$trace.tmp" "$trace"
        } ;;
    shapes)
        n=$((50000 / div))
        cluster_file c2048 8 256
        cluster=$out/c2048.yaml
        trace=$out/shapes-$n-vcu.csv.gz
        [ -f "$trace" ] || {
            local g
            g=$(seq 1 2000 | sed 's/$/:1/' | paste -sd, -)
            "$dlsim" trace gen --cluster "$cluster" --jobs "$n" --load 0.9 \
                --seed 3 --gpus "$g" -o "$out/raw-shapes-$n.csv.gz" >/dev/null
            annotate "$out/raw-shapes-$n.csv.gz" "$trace"
        } ;;
    itp04)
        local raw=../shared/data/traces/microsoft-itp-elasticflow/raw/cluster04.csv.gz
        [ -f "$raw" ] || { trace=; return; }
        cluster_file c900 4 225
        cluster=$out/c900.yaml
        trace=$out/itp04-vcu.csv.gz
        [ -f "$trace" ] || {
            "$dlsim" trace import --format itp "$raw" -o "$out/raw-itp04.csv.gz" \
                2>/dev/null
            "$dlsim" trace scale "$out/raw-itp04.csv.gz" --load 0.9 \
                --cluster "$cluster" -o "$out/scaled-itp04.csv.gz" >/dev/null
            annotate "$out/scaled-itp04.csv.gz" "$trace"
        } ;;
    esac
}

# A run's us per event, or where its engine CPU is under 0.2 s the median
# of it and 4 more runs (the VM's jitter is milliseconds).
short_median() {    # policy dir cpu per
    local pers=$4 r
    if awk -v c="$3" 'BEGIN { exit !(c < 0.2) }'; then
        for _ in 1 2 3 4; do
            r=$(timed "$1" "$2.r") || true
            rm -rf "$2.r"
            [ -z "$r" ] || pers="$pers ${r##* }"
        done
    fi
    tr ' ' '\n' <<<"$pers" | sort -g | awk '{ v[NR] = $1 }
        END { print v[int((NR + 1) / 2)] }'
}

# A short run's figures, paired with the reference: its median us per
# event over five runs (the first already made: its us per event), the
# median of the reference's five runs, one right after each, and the
# median of the five ratios.  Nothing when a run of either fails (the
# caller then takes the policy's median and brackets it).
paired() {          # policy dir first-us-per-event
    local ps=$3 rs= r i
    for i in 1 2 3 4 5; do
        if [ "$i" -gt 1 ]; then
            r=$(timed "$1" "$2.r") || true
            rm -rf "$2.r"
            [ -n "$r" ] || return 0
            ps="$ps ${r##* }"
        fi
        r=$(timed "${policies[0]}" "$out/ref.r") || true
        rm -rf "$out/ref.r"
        [ -n "$r" ] || return 0
        rs="$rs ${r##* }"
    done
    awk -v p="$ps" -v r="$rs" 'function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
                    t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
                }
            return a[int((n + 1) / 2)]
        }
        BEGIN {
            n = split(p, a, " "); split(r, b, " ")
            for (i = 1; i <= n; i++) q[i] = b[i] > 0 ? a[i] / b[i] : 0
            printf "%s %s %.2f\n", med(a, n), med(b, n), med(q, n)
        }'
}

timed() {           # policy dir -> "engine-CPU-s events us/event" of one run
    timeout "$limit" "$dlsim" run --trace "$trace" --cluster "$cluster" \
        --policy "$1" --out "$2" --quiet --sample 0 --timing 2>&1 >/dev/null |
        sed -n 's/.*engine \([0-9.]*\) (\([0-9]*\) events, \([0-9.]*\) us\/event.*/\1 \2 \3/p'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "dlsim:   $("$dlsim" --version 2>/dev/null || echo "$dlsim")"
sums=$out/sums.txt
: > "$sums"
for c in "${cases[@]}"; do
    prepare "$c"
    if [ -z "$trace" ]; then
        echo; echo "$c: skipped (no shared data)"; continue
    fi
    echo
    echo "$c: $trace on $cluster"
    printf '  %-44s %10s %9s %9s %8s %8s\n' policy events "engine s" "us/event" \
        "x fifo:bf" "x pair"
    ref=
    refs=
    for p in "${policies[@]}"; do
        d=$out/run-$c-${p//[:=,\/]/_}
        t=$(timed "$p" "$d") || true
        if [ -z "$t" ]; then
            # The run did not end in time: its cost per event so far, from
            # the progress line a run on a terminal draws (engine wall time
            # in whole seconds, events), for up to $BENCH_PROBE seconds.
            rm -rf "$d"
            pl=$(timeout "$probe" script -qec "$(printf '%q ' "$dlsim" run \
                    --trace "$trace" --cluster "$cluster" --policy "$p" \
                    --sample 0)" /dev/null 2>/dev/null | tr '\r' '\n' |
                 grep ' events, ' | tail -1) || true
            per=$(awk -v l="$pl" 'BEGIN {
                if (!match(l, /[0-9]+ events/)) exit
                ev = substr(l, RSTART, RLENGTH) + 0
                n = split(l, f, ", ")
                d = f[n - 1]; s = 0
                if (match(d, /[0-9]+h/)) s += 3600 * substr(d, RSTART, RLENGTH - 1)
                if (match(d, /[0-9]+m/)) s += 60 * substr(d, RSTART, RLENGTH - 1)
                if (match(d, /[0-9]+s/)) s += substr(d, RSTART, RLENGTH - 1)
                if (ev > 0 && s > 0) printf "%d %.3f", ev, 1e6 * s / ev }')
            if [ -n "$per" ]; then
                read -r ev per <<<"$per"
                printf '  %-44s %10s %9s %9s %8s  (stopped at %s s; events and wall time of the first %s s)\n' \
                    "$p" "$ev" - "$per" \
                    "$(awk -v a="$per" -v b="$ref" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')" \
                    "$limit" "$probe"
            else
                printf '  %-44s %10s %9s\n' "$p" - "> ${limit} s (stopped)"
            fi
            echo "$c $p timeout" >> "$sums"
            continue
        fi
        read -r cpu ev per <<<"$t"
        brk=
        if [ -n "$ref" ] && [ $bracket = 1 ] &&
           awk -v c="$cpu" 'BEGIN { exit !(c < 0.2) }'; then
            # paired: the reference right after each of five runs
            pairs=$(paired "$p" "$d" "$per") || true
            if [ -n "$pairs" ]; then
                read -r per nx brk <<<"$pairs"
                prev=$nx
                refs="$refs $nx"
            else
                per=$(short_median "$p" "$d" "$cpu" "$per")
            fi
        else
            per=$(short_median "$p" "$d" "$cpu" "$per")
        fi
        if [ -z "$ref" ]; then
            ref=$per
            prev=$per
            refs=$per
        elif [ $bracket = 1 ] && [ -z "$brk" ]; then
            # the reference again, right after: the ratio to the mean of
            # the runs of it just before and just after this policy's
            nx=$(timed "${policies[0]}" "$out/ref.r") || true
            rm -rf "$out/ref.r"
            if [ -n "$nx" ]; then
                read -r rc_ _ rp <<<"$nx"
                nx=$(short_median "${policies[0]}" "$out/ref.r" "$rc_" "$rp")
                brk=$(awk -v a="$per" -v b="$prev" -v n="$nx" \
                    'BEGIN { printf "%.2f", (b + n > 0) ? 2 * a / (b + n) : 0 }')
                prev=$nx
                refs="$refs $nx"
            fi
        fi
        printf '  %-44s %10s %9s %9s %8s %8s\n' "$p" "$ev" "$cpu" "$per" \
            "$(awk -v a="$per" -v b="$ref" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')" \
            "${brk:--}"
        echo "$c $p $(md5sum < "$d/jobs.csv" | cut -c1-16)" >> "$sums"
        rm -rf "$d"
    done
    if [ $bracket = 1 ] && [ -n "$refs" ]; then
        tr ' ' '\n' <<<"$refs" | sort -g | awk -v p="${policies[0]}" '
            { v[NR] = $1 }
            END { printf "  %s over the case: %d runs, %s to %s us per event (median %s)\n",
                         p, NR, v[1], v[NR], v[int((NR + 1) / 2)] }'
    fi
done
echo
echo "jobs.csv checksums: $sums"
