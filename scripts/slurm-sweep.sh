#!/usr/bin/env bash
# A dlsim sweep on a Slurm cluster: one array job whose task I runs
# `dlsim sweep SPEC --out DIR --shard I/N`, and a merge job
# (`dlsim sweep --merge DIR`) that starts when every task has ended.
#
#   scripts/slurm-sweep.sh [options] SPEC.yaml DIR [-- SWEEP_OPTIONS...]
#
#   --shards N       array tasks, one shard each (default 16)
#   --dlsim PATH     the dlsim every task runs (default: build/dlsim next to
#                    this script when built, else dlsim on PATH)
#   --logs LDIR      Slurm's output files (default DIR.slurm/; not inside
#                    DIR, which the sweep wants new or its own)
#   --sbatch ARG     one more argument for both sbatch calls, e.g.
#                    --sbatch --partition=cpu --sbatch --time=4:00:00
#                    --sbatch --cpus-per-task=8 (a task then runs 8 runs at
#                    once: --jobs follows SLURM_CPUS_PER_TASK, default 1)
#   --local          no Slurm: run the same steps here, the shards one after
#                    the other, then the merge (what the tests do)
#   --dry-run        print the two sbatch command lines, submit nothing
#   SWEEP_OPTIONS    passed to every shard (e.g. --strict)
#
# DIR must be on a filesystem every node sees.  The merge runs after the
# array whatever its tasks' exit status (afterany): it writes
# DIR/summary.csv, the bytes of a local sweep, or names the runs that are
# missing (a task that was killed) and exits 1; run the missing shards
# again (`--shard I/N` keeps a shard's finished runs) and merge again.
# Prints the array's and the merge's job ids.  Exit status: 0 submitted (or,
# with --local, every step succeeded), 1 a step failed, 2 bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}
die() { echo "slurm-sweep: $*" >&2; exit 2; }

shards=16 dlsim= logs= mode=submit
sbatch_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --shards) [ $# -ge 2 ] || usage; shards=$2; shift 2 ;;
        --shards=*) shards=${1#*=}; shift ;;
        --dlsim) [ $# -ge 2 ] || usage; dlsim=$2; shift 2 ;;
        --logs) [ $# -ge 2 ] || usage; logs=$2; shift 2 ;;
        --sbatch) [ $# -ge 2 ] || usage; sbatch_args+=("$2"); shift 2 ;;
        --local) mode=local; shift ;;
        --dry-run) mode=dry; shift ;;
        -h|--help) usage ;;
        --) break ;;
        -*) die "unknown option '$1' (see --help)" ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || usage
spec=$1 dir=$2
shift 2
if [ $# -gt 0 ]; then
    [ "$1" = -- ] || die "unexpected argument '$1' (sweep options go after --)"
    shift
fi
sweep_opts=("$@")
case $shards in
    ''|*[!0-9]*|0*) die "--shards expects a whole number >= 1, got '$shards'" ;;
esac
[ -f "$spec" ] || die "$spec: no such spec file"
if [ -z "$dlsim" ]; then
    if [ -x "$here/../build/dlsim" ]; then
        dlsim=$(cd "$here/../build" && pwd)/dlsim
    else
        dlsim=$(command -v dlsim) || die "no dlsim: build it or give --dlsim PATH"
    fi
fi
[ -x "$dlsim" ] || die "$dlsim: not an executable"
logs=${logs:-$dir.slurm}

# one word for sh -c (sbatch --wrap runs /bin/sh): single-quoted
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
words() { local w s=; for w in "$@"; do s+="${s:+ }$(q "$w")"; done; printf '%s' "$s"; }

# task I's command: the shard index and the CPUs come from Slurm's
# environment when it runs (--local sets them the same way)
shard_cmd="$(words "$dlsim" sweep "$spec" --out "$dir") --shard \"\$SLURM_ARRAY_TASK_ID\"/$shards --jobs \"\${SLURM_CPUS_PER_TASK:-1}\""
[ ${#sweep_opts[@]} -eq 0 ] || shard_cmd+=" $(words "${sweep_opts[@]}")"
merge_cmd="$(words "$dlsim" sweep --merge "$dir")"

case $mode in
local)
    for ((i = 0; i < shards; i++)); do
        echo "slurm-sweep: shard $i/$shards: $shard_cmd" >&2
        st=0
        SLURM_ARRAY_TASK_ID=$i sh -c "$shard_cmd" || st=$?
        # a shard with failed runs (exit 1) still wrote them: merge anyway
        [ "$st" -le 1 ] || { echo "slurm-sweep: shard $i failed (exit status $st)" >&2; exit 1; }
    done
    echo "slurm-sweep: merge: $merge_cmd" >&2
    sh -c "$merge_cmd" || exit 1
    exit 0 ;;
dry)
    echo "sbatch --parsable --job-name=dlsim-sweep --array=0-$((shards - 1)) $(words --output="$logs/shard-%a.log" ${sbatch_args[@]+"${sbatch_args[@]}"}) --wrap=$(q "$shard_cmd")"
    echo "sbatch --parsable --job-name=dlsim-sweep-merge --dependency=afterany:ARRAY_JOB_ID $(words --output="$logs/merge.log" ${sbatch_args[@]+"${sbatch_args[@]}"}) --wrap=$(q "$merge_cmd")"
    exit 0 ;;
esac

command -v sbatch >/dev/null || die "no sbatch on PATH (--local runs the steps here)"
mkdir -p "$logs"
out=$(sbatch --parsable --job-name=dlsim-sweep --array="0-$((shards - 1))" \
    --output="$logs/shard-%a.log" ${sbatch_args[@]+"${sbatch_args[@]}"} \
    --wrap="$shard_cmd") || { echo "slurm-sweep: sbatch failed" >&2; exit 1; }
array=${out%%;*}          # --parsable: "ID" or "ID;CLUSTER"
case $array in ''|*[!0-9]*) echo "slurm-sweep: sbatch printed '$out', not a job id" >&2; exit 1 ;; esac
out=$(sbatch --parsable --job-name=dlsim-sweep-merge --dependency="afterany:$array" \
    --output="$logs/merge.log" ${sbatch_args[@]+"${sbatch_args[@]}"} \
    --wrap="$merge_cmd") || { echo "slurm-sweep: sbatch of the merge failed (array job $array is queued)" >&2; exit 1; }
merge=${out%%;*}
echo "slurm-sweep: array job $array ($shards shards of $spec into $dir), merge job $merge; logs in $logs/"
