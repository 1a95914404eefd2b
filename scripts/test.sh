#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#   1. the unit, golden, queueing-theory, property and CLI tests, and the
#      Python package's pytest suite (test_python) (release);
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the fuzzers of the trace reader, the cluster loader, the JSON
#      reader of measurement files, the model files, trace import, the
#      workload reader and cluster import (7; tests/fuzz/README.md), for a
#      bounded time (FUZZ_SECONDS each, default 60), plus the replay of
#      every input they ever crashed on.
# Ends with one line "tests: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --fuzz || exit 1
passed=0
failed=0
count() {   # parse meson's "Ok: N" / "Fail: N" from a log
    local ok fail
    ok=$(grep -E '^Ok:' "$1" | awk '{print $2}')
    fail=$(grep -E '^(Fail|Timeout):' "$1" | awk '{s+=$2} END {print s+0}')
    passed=$((passed + ${ok:-0}))
    failed=$((failed + ${fail:-0}))
    [ -n "$ok" ] || failed=$((failed + 1))   # meson itself failed
}
log=$(mktemp)

echo "== build and test (release)"
scripts/build.sh build || exit 1
meson test -C build --print-errorlogs 2>&1 | tee "$log"
count "$log"

echo "== build and test (ASan + UBSan)"
# gcc's "undefined" leaves out float-cast-overflow (a double too large for
# the integer it is cast to), which clang's fuzz build catches: ask for it.
# DLSIM_RT_AUDIT: a policy that reads the run state of a job no longer in
# the system aborts (sim/policy.h, pol_rt)
scripts/build.sh build-asan -Dbuildtype=debug -Db_sanitize=address,undefined \
    "-Dc_args=-fno-sanitize-recover=all -fsanitize=float-cast-overflow -DDLSIM_RT_AUDIT" || exit 1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs --timeout-multiplier 4 2>&1 | tee "$log"
count "$log"
# criterion reports a test as passed even when LeakSanitizer (or a
# sanitizer in a forked child) complained on the way out: read the log
if grep -E 'ERROR: (Leak|Address)Sanitizer|runtime error:' \
        build-asan/meson-logs/testlog.txt; then
    echo "sanitizer reports above: counted as a failure"
    failed=$((failed + 1))
fi

echo "== fuzz"
if scripts/fuzz.sh "${FUZZ_SECONDS:-60}" 2>&1 | tee "$log"; then
    passed=$((passed + $(grep -c '^fuzz ok' "$log")))
else
    failed=$((failed + 1))
fi
rm -f "$log"
echo
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
