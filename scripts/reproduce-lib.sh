# What scripts/reproduce-*.sh share (sourced, not run):
#
#   repro_init NAME "$@"   parses [--quick] [--out DIR] [--build BUILD_DIR];
#                          sets name, root, quick, out (default BUILD/reproduce-NAME,
#                          emptied), dlsim, work (the inputs: $out.inputs,
#                          emptied and kept, so that every run's `command`
#                          reruns it and the same --out gives the same
#                          summary.csv, byte for byte) and DLSIM_MODELS;
#                          writes the three interference models into $work:
#                            none.yaml     sharing costs nothing (rate 1)
#                            authors.yaml  the Horus authors' rule (form
#                                          horus-authors: duration x1.2 while
#                                          a job shares its GPU)
#                            gavel.yaml    slowdowns fitted to Gavel's
#                                          measured pairs (dlsim fit
#                                          slowdown), with the pairs
#                                          themselves where they cover the jobs
#   repro_run              runs the sweep $work/sweep.yaml into $out (strict
#                          if the spec says so), copies the models files into
#                          $out, checks the claims $work/claims.json
#                          (scripts/claims.py: $out/claims.md; --strict
#                          without --quick: every comparison must have pairs)
#                          and writes $out/report.html with that table first.
repro_init() {
    name=$1
    shift
    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    root=$(pwd)
    quick=0 out="" build=build
    while [ $# -gt 0 ]; do
        case $1 in
        --quick) quick=1 ;;
        --out) out=$2; shift ;;
        --build) build=$2; shift ;;
        *) echo "usage: scripts/reproduce-$name.sh [--quick] [--out DIR] [--build DIR]" >&2
           exit 2 ;;
        esac
        shift
    done
    case $build in /*) ;; *) build=$root/$build ;; esac
    dlsim=$build/dlsim
    [ -x "$dlsim" ] || { echo "build first: scripts/build.sh $build" >&2; exit 2; }
    local gavel=$root/../shared/data/traces/philly-gavel/simulation_throughputs.json.gz
    [ -f "$gavel" ] || { echo "missing $gavel (the shared data folder)" >&2; exit 2; }
    out=${out:-$build/reproduce-$name}
    work=$out.inputs
    rm -rf "$out" "$work"
    mkdir -p "$work"
    export DLSIM_MODELS=$root/models

    "$dlsim" fit convert-gavel "$gavel" -o "$work/gavel" >/dev/null
    "$dlsim" fit slowdown "$work/gavel-pairs.csv" -o "$work/gavel-sd.yaml" >/dev/null
    cat > "$work/none.yaml" <<'YAML'
kind: slowdown
gpu_types:
  - {name: "*", form: constant, rate: 1}
YAML
    cat > "$work/authors.yaml" <<'YAML'
kind: slowdown
gpu_types:
  - {name: "*", form: horus-authors}
YAML
    cat > "$work/gavel.yaml" <<YAML
kind: models
slowdown: gavel-sd.yaml
pairs: gavel-pairs.csv
YAML
}

repro_run() {
    "$dlsim" sweep "$work/sweep.yaml" --out "$out" --quiet
    cp "$work"/*.yaml "$work"/gavel-pairs.csv "$out/"
    local strict=()
    [ "$quick" = 1 ] || strict=(--strict)
    /usr/bin/python3 "$root/scripts/claims.py" "${strict[@]}" "$out" \
        "$work/claims.json" >/dev/null
    "$dlsim" report "$out" >/dev/null
    echo "reproduce-$name: $(tail -n +2 "$out/summary.csv" | wc -l) runs;" \
         "claims in $out/claims.md, report $out/report.html"
}
