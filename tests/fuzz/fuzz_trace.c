/*
 * tests/fuzz/fuzz_trace.c - libFuzzer entry for the native trace reader
 * (trc_load_fd, traces/reader.c).
 *
 * Each input is written to an anonymous in-memory file (memfd_create) and
 * read through the same descriptor path as a real file, so gzip detection
 * by content is exercised too.  Beyond "no crash, no leak, no UB", it
 * checks what traces/trace.h promises: success gives at least one job,
 * each with an id, num_gpus >= 1, duration > 0 and a submit time >= 0 that
 * never decreases; failure returns DL_EINPUT or DL_EIO with a message and
 * leaves the trace zeroed.  A broken promise aborts (a libFuzzer crash).
 *
 * Build and run (from the repository root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. \
 *     tests/fuzz/fuzz_trace.c traces/reader.c sim/base/base.c -lyaml -lz -lm \
 *     -o /tmp/fuzz_trace
 *   /tmp/fuzz_trace -max_total_time=60 /tmp/corpus tests/fuzz/corpus_trace
 */
#include "traces/trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_trace: broken promise: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct trace zero;
    int fd = memfd_create("fuzz_trace", MFD_CLOEXEC);
    check(fd >= 0, "memfd_create");
    for (size_t off = 0; off < size;) {
        ssize_t w = write(fd, data + off, size - off);
        check(w > 0, "write to memfd");
        off += (size_t)w;
    }
    check(lseek(fd, 0, SEEK_SET) == 0, "lseek");

    struct trace t;
    struct dl_error err;
    memset(&err, 0, sizeof err);
    int rc = trc_load_fd(fd, "fuzz.csv", &t, &err, NULL);   /* closes fd */
    if (rc == 0) {
        check(t.njobs >= 1 && t.jobs != NULL, "at least one job");
        for (uint32_t i = 0; i < t.njobs; i++) {
            const struct trc_job *j = &t.jobs[i];
            check(j->id != NULL, "job id");
            check(j->num_gpus >= 1, "num_gpus >= 1");
            check(j->duration > 0, "duration > 0");
            check(j->submit >= 0, "submit >= 0");
            check(i == 0 || j->submit >= t.jobs[i - 1].submit,
                  "submit order");
        }
        trc_free(&t);
    } else {
        check(rc == DL_EINPUT || rc == DL_EIO, "error code");
        check(err.msg[0] != 0, "error has a message");
        check(!memcmp(&t, &zero, sizeof t), "trace left empty");
    }
    return 0;
}
