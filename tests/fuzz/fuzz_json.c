/*
 * tests/fuzz/fuzz_json.c - libFuzzer entry for the JSON reader
 * (dl_json_parse, sim/base/json.c), which reads measurement files such as
 * Gavel's throughput JSON.
 *
 * Beyond "no crash, no leak, no UB", it checks the reader's contract:
 * success gives a tree whose every node has a known type, whose arrays and
 * objects hold exactly n kids, whose object members all have names and
 * whose positions lie inside the input; failure returns DL_EINPUT with a
 * located, non-empty message and an empty document.
 *
 * Build and run from the repository root (scripts/fuzz.sh does this):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. \
 *     tests/fuzz/fuzz_json.c sim/base/json.c sim/base/base.c -lm -o /tmp/fuzz_json
 */
#include "models/perf.h"
#include "sim/base/formats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_json: broken promise: %s\n", what);
        abort();
    }
}

static void walk(const struct dl_json *j, int depth, int in_object, long lines)
{
    check(depth <= DL_JSON_MAX_DEPTH + 1, "depth within the limit");
    check(j->type <= DL_JSON_OBJECT, "known type");
    check(j->line >= 1 && j->line <= lines && j->col >= 1, "position inside input");
    check(!in_object || j->key, "object members have names");
    if (j->type == DL_JSON_STRING)
        check(j->str && strlen(j->str) == j->len, "string length");
    if (j->type == DL_JSON_ARRAY || j->type == DL_JSON_OBJECT) {
        check(j->n == 0 || j->kid, "kids present");
        for (uint32_t i = 0; i < j->n; i++)
            walk(&j->kid[i], depth + 1, j->type == DL_JSON_OBJECT, lines);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dl_json_doc d;
    struct dl_error err;
    memset(&err, 0, sizeof err);
    long lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    int rc = dl_json_parse("fuzz.json", (const char *)data, size, &d, &err);
    if (rc == 0) {
        if (d.root)
            walk(d.root, 0, 0, lines);
        dl_json_free(&d);
    } else {
        check(rc == DL_EINPUT, "bad input is DL_EINPUT");
        check(err.msg[0] != 0 && err.line >= 1, "located message");
        check(d.root == NULL, "empty document on failure");
    }
    return 0;
}
