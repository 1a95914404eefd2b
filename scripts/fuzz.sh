#!/usr/bin/env bash
# Builds the libFuzzer harnesses of the cluster loader, the trace reader,
# the JSON reader of measurement files, the CSV reader, the YAML
# model-file readers, and the commands `trace import`, `cluster import`
# and the workload reader of `trace gen --like` (tests/fuzz/README.md
# lists them) with clang (ASan + UBSan) in build-fuzz/ and runs each for
# SECONDS seconds
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
         "integer; NAME one of cluster trace json csv modelfile import workload" \
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

# the harnesses are meson targets (tests/fuzz/meson.build): one build graph
if [ ! -f "$out/build.ninja" ]; then
    CC=$CLANG meson setup "$out" -Dfuzz=true -Dbuildtype=debugoptimized \
        -Db_sanitize=address,undefined -Dc_args=-fno-sanitize-recover=all \
        -Dcalibrate=disabled -Dmpi=disabled >"$out/setup.log" 2>&1 ||
        { cat "$out/setup.log" >&2; echo "fuzz FAILED: meson setup" >&2; exit 1; }
fi
if ! ninja -C "$out" >"$out/build.log" 2>&1; then
    tail -n 60 "$out/build.log" >&2
    echo "fuzz FAILED: build failed" >&2
    exit 1
fi

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
    "$out/tests/fuzz/fuzz_$name" -max_total_time="$secs" -rss_limit_mb=2048 \
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
        echo "  reproduce: $out/tests/fuzz/fuzz_$name $art" \
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
run csv 65536
run modelfile 8192 -dict=tests/fuzz/modelfile.dict
run import 65536
run workload 65536
run clusterimport 65536
[ "$failed" -eq 0 ] || exit 1
