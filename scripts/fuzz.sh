#!/usr/bin/env bash
# Builds the libFuzzer harnesses of the cluster loader, the trace reader,
# the JSON reader of measurement files, the YAML model-file readers, and
# the commands `trace import`, `cluster import` and the workload reader of
# `trace gen --like` (tests/fuzz/README.md lists them) with clang (ASan + UBSan) in build-fuzz/ and runs each for SECONDS seconds
# on a copy of its seed corpus (tests/fuzz/corpus_NAME plus the past crashes
# in tests/fuzz/regress_NAME); the repository's directories are never
# written.
#   scripts/fuzz.sh [SECONDS [NAME...]]  (default 60; SECONDS per fuzzer;
#                                        NAMEs: only those fuzzers)
# Prints one line "fuzz ok NAME: ..." per fuzzer that found nothing, or
# "fuzz FAILED NAME: artifact PATH" (after the tail of the fuzzer's log)
# and exits 1 once all have run.  Needs clang and its fuzzer runtime:
# scripts/setup.sh --fuzz installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

secs=${1:-60}
if ! [[ "$secs" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: scripts/fuzz.sh [SECONDS [NAME...]]   (SECONDS a positive" \
         "integer; NAME one of cluster trace json modelfile import workload" \
         "clusterimport)" >&2
    exit 2
fi
shift || true
only=" $* "
# want NAME: true when NAME is to be built and run (all without NAMEs).
want() { [ "$only" = "  " ] || [[ "$only" == *" $1 "* ]]; }

out=build-fuzz
CLANG=${CLANG:-clang}
mkdir -p "$out"

if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "fuzz: $CLANG not found; run scripts/setup.sh --fuzz" \
         "(installs clang and libclang-rt-14-dev)" >&2
    exit 1
fi
probe="$out/probe.c"
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
    '{ (void)d; (void)n; return 0; }' > "$probe"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$probe" \
        -o "$out/probe" >"$out/probe.log" 2>&1; then
    echo "fuzz: $CLANG cannot link -fsanitize=fuzzer,address,undefined" \
         "(libFuzzer runtime missing?); run scripts/setup.sh --fuzz" \
         "(installs clang and libclang-rt-14-dev)" >&2
    sed 's/^/  /' "$out/probe.log" >&2
    exit 1
fi
rm -f "$probe" "$out/probe" "$out/probe.log"

cflags=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
        -g -O1 -D_GNU_SOURCE -I.)

# build NAME EXTRA_FLAGS_AND_SOURCES_AND_LIBS...
build() {
    local name=$1
    shift
    want "$name" || return 0
    if ! "$CLANG" "${cflags[@]}" "$@" -o "$out/fuzz_$name" \
            >"$out/build-$name.log" 2>&1; then
        cat "$out/build-$name.log" >&2
        echo "fuzz FAILED $name: build failed" >&2
        exit 1
    fi
}
# CFG_MAX_GPUS keeps each input cheap (legal 16M-GPU clusters are slow).
build cluster -DCFG_MAX_GPUS=65536 tests/fuzz/fuzz_cluster.c \
    sim/base.c sim/cluster.c sim/cfg.c -lyaml -lz -lm
build trace tests/fuzz/fuzz_trace.c traces/reader.c sim/base.c -lyaml -lz -lm
build json tests/fuzz/fuzz_json.c models/json.c sim/base.c -lyaml -lz -lm
build modelfile tests/fuzz/fuzz_modelfile.c models/perf.c models/sdfile.c \
    models/yload.c models/runtime.c models/fit.c models/zoo.c models/csv.c \
    models/json.c sim/base.c -lyaml -lgsl -lgslcblas -lz -lm

# The command-level harnesses (trace import, cluster import, workload)
# link the whole core library (meson.build's core_src), compiled once here
# with the same sanitizers, in parallel (and, as for fuzz_cluster, a
# 65536-GPU cluster limit, so that a one-line machine list cannot ask for a
# legal but slow million-node cluster).
mapfile -t core < <(sed -n '/^core_src = files(/,/^)/p' meson.build |
                    grep -o "'[^']*\.c'" | tr -d "'")
objs=()
if want import || want workload || want clusterimport; then
    mkdir -p "$out/obj"
    for src in "${core[@]}"; do
        objs+=("$out/obj/$(echo "$src" | tr / _).o")
    done
    version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" meson.build |
              head -n 1)
    ccflags=("${cflags[@]/#-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}"
             "-DDLSIM_VERSION=\"${version:-unknown}\"" -DCFG_MAX_GPUS=65536)
    if ! printf '%s\n' "${core[@]}" |
            xargs -P "$(nproc)" -I{} sh -c \
                'o="$1/obj/$(echo "$0" | tr / _).o"; shift
                 exec "$@" -c "$0" -o "$o"' {} "$out" "$CLANG" \
                "${ccflags[@]}" >"$out/build-core.log" 2>&1; then
        cat "$out/build-core.log" >&2
        echo "fuzz FAILED core: build failed" >&2
        exit 1
    fi
fi
corelibs=(-lyaml -lgsl -lgslcblas -lz -lm)
build import tests/fuzz/fuzz_import.c "${objs[@]}" "${corelibs[@]}"
build workload tests/fuzz/fuzz_workload.c "${objs[@]}" "${corelibs[@]}"
build clusterimport tests/fuzz/fuzz_clusterimport.c "${objs[@]}" \
    "${corelibs[@]}"

# run NAME MAX_LEN [libFuzzer options...]; sets $failed on a crash.
failed=0
run() {
    local name=$1 max_len=$2
    shift 2
    want "$name" || return 0
    local corpus="$out/corpus-$name" arts="$out/artifacts-$name"
    local log="$out/fuzz-$name.log"
    rm -rf "$corpus" "$arts"
    mkdir -p "$corpus" "$arts"
    local src f
    for src in "tests/fuzz/corpus_$name" "tests/fuzz/regress_$name"; do
        [ -d "$src" ] || continue
        for f in "$src"/*; do
            [ -f "$f" ] || continue
            case $f in *.md) continue ;; esac
            cp "$f" "$corpus/"
        done
    done
    local t0 rc=0
    t0=$(date +%s)
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$out/fuzz_$name" -max_total_time="$secs" -rss_limit_mb=2048 \
        -max_len="$max_len" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$arts/" "$@" "$corpus" >"$log" 2>&1 </dev/null || rc=$?
    local dt=$(($(date +%s) - t0))
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        echo "fuzz ok $name: ${runs:-?} runs in $dt s, no crash" \
             "(corpus $(find "$corpus" -type f | wc -l) inputs)"
        return 0
    fi
    failed=1
    local art
    art=$(find "$arts" -type f ! -name 'slow-unit-*' | sort | head -n 1 || true)
    tail -n 80 "$log" >&2
    if [ -n "$art" ]; then
        echo "fuzz FAILED $name: artifact $root/$art"
        echo "  reproduce: $out/fuzz_$name $art" \
             "(or build/tests/replay_$name $art)"
        echo "  once fixed, add the input to tests/fuzz/regress_$name/" \
             "so that every test run replays it"
    else
        echo "fuzz FAILED $name: exit $rc and no artifact; see $root/$log"
    fi
}

run cluster 8192 -dict=tests/fuzz/cluster.dict
run trace 65536
run json 65536
run modelfile 8192 -dict=tests/fuzz/modelfile.dict
run import 65536
run workload 65536
run clusterimport 65536
[ "$failed" -eq 0 ] || exit 1
