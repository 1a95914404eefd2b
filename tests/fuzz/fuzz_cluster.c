/*
 * tests/fuzz/fuzz_cluster.c - libFuzzer entry for the cluster file reader
 * (cfg_load_cluster_mem, sim/cluster/cfg.c).
 *
 * Beyond "no crash, no leak, no UB", it checks the reader's contract on
 * every input: success gives a cluster whose free-GPU index is consistent
 * (clu_check) and whose sizes are sane; failure returns DL_EINPUT with a
 * located, non-empty message and leaves the cluster zeroed.  A broken
 * promise aborts, which libFuzzer reports as a crash.
 *
 * Build and run (from the repository root; CFG_MAX_GPUS keeps each input
 * cheap, so the fuzzer is not slowed down by legal 16M-GPU clusters):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     -DCFG_MAX_GPUS=65536 -I. tests/fuzz/fuzz_cluster.c sim/base/base.c \
 *     sim/cluster/cluster.c sim/cluster/cfg.c -lyaml -lm -o /tmp/fuzz_cluster
 *   /tmp/fuzz_cluster -max_total_time=60 /tmp/corpus tests/fuzz/corpus_cluster
 * Inputs that once crashed are kept in tests/fuzz/regress_cluster/; replay
 * them with /tmp/fuzz_cluster tests/fuzz/regress_cluster/ *.
 */
#include "sim/sim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_cluster: broken promise: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct cluster zero;
    struct cluster c;
    struct dl_error err;
    memset(&err, 0, sizeof err);
    int rc = cfg_load_cluster_mem("fuzz.yaml", (const char *)data, size, &c,
                                  &err);
    if (rc == 0) {
        char why[256];
        check(clu_check(&c, why, sizeof why) == 0, "clu_check");
        check(c.ntypes > 0 && c.nnodes > 0 && c.ngpus >= c.nnodes,
              "non-empty cluster");
        check(c.ref_type < c.ntypes && c.types[c.ref_type].speed == 1.0,
              "reference speed is 1");
        check(c.max_node_gpus >= 1 && c.max_node_gpus <= 64, "node size");
        for (uint32_t t = 0; t < c.ntypes; t++)
            check(c.types[t].speed > 0 && c.types[t].memory_gb > 0,
                  "positive speed and memory");
        clu_free(&c);
    } else {
        check(rc == DL_EINPUT, "bad input is DL_EINPUT");
        check(err.line >= 1 && err.col >= 1, "error is located");
        check(err.msg[0] != 0, "error has a message");
        check(!memcmp(&c, &zero, sizeof c), "cluster left empty");
    }
    return 0;
}
