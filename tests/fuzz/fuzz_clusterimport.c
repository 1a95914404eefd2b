/*
 * tests/fuzz/fuzz_clusterimport.c - libFuzzer entry for `dlsim cluster
 * import` (cli_cluster_import, sim/cli/cluster.c, traces/import/cluster.c): machine lists of public
 * traces (CSV, gzip, a tar archive, Gavel's cluster-spec JSON).
 *
 * Input layout:
 *   byte 0      the format, modulo 6: pai openb spot philly tiresias gavel
 *   byte 1      option bits: 1 --rack-nodes 3, 2 --map G1=V100,
 *               4 --reference V100, 8 --node-gpus 4 and --gpu-type T4,
 *               16 --select b, 32 --name fuzz, 64 the model zoo
 *   the rest    the input file (written to a memfd, read back through
 *               /proc/self/fd/N, so gzip and tar detection by content run)
 *
 * The command runs through its real argv path without -o, so the cluster
 * goes to stdout, which is a second memfd while it runs; stderr goes to
 * /dev/null (the sanitizers keep reporting on the real stderr).  With bit
 * 64 the GPU figures come from the model zoo when one is found
 * (DLSIM_MODELS, or ./models from the repository root); without it
 * DLSIM_MODELS names no directory, so every type gets placeholders (loading
 * the zoo is 50 times slower than the rest of a run).  Beyond "no
 * crash, no leak, no UB", it checks the contract: exit status 0, 1 or 2;
 * on 0 stdout holds a cluster file that cfg_load_cluster_mem accepts, on
 * failure stdout is empty.  A broken promise aborts (a libFuzzer crash).
 *
 * Built by scripts/fuzz.sh (fuzzing) and by tests/meson.build
 * (replay_clusterimport: the seeds and past crashes under the test build).
 */
#include "sim/cli/cli.h"
#include "sim/sim.h"
#include "fuzzcmd.h"
#include "traces/import/import.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const formats[] = {
    "pai", "openb", "spot", "philly", "tiresias", "gavel",
};
enum { NFMT = sizeof formats / sizeof formats[0] };

static char *zoo_env;           /* DLSIM_MODELS as found, or NULL */
static bool zoo_seen;

static void setup(void)
{
    fz_init("fuzz_clusterimport");
    if (zoo_seen)
        return;
    zoo_seen = true;
    const char *z = getenv("DLSIM_MODELS");
    zoo_env = z ? strdup(z) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    setup();
    const char *fmt = formats[data[0] % NFMT];
    unsigned bits = data[1];
    int in = memfd_create("fuzz-cluster-import", 0);
    int cap = memfd_create("fuzz-cluster-out", 0);
    fz_check(in >= 0 && cap >= 0, "memfd_create");
    fz_write_all(in, data + 2, size - 2);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", in);

    char *argv[24];
    int argc = 0;
    argv[argc++] = "import";
    argv[argc++] = "--format";
    argv[argc++] = (char *)fmt;
    if (bits & 1) {
        argv[argc++] = "--rack-nodes";
        argv[argc++] = "3";
    }
    if (bits & 2) {
        argv[argc++] = "--map";
        argv[argc++] = "G1=V100";
    }
    if (bits & 4) {
        argv[argc++] = "--reference";
        argv[argc++] = "V100";
    }
    if (bits & 8) {
        argv[argc++] = "--node-gpus";
        argv[argc++] = "4";
        argv[argc++] = "--gpu-type";
        argv[argc++] = "T4";
    }
    if (bits & 16) {
        argv[argc++] = "--select";
        argv[argc++] = "b";
    }
    if (bits & 32) {
        argv[argc++] = "--name";
        argv[argc++] = "fuzz";
    }
    argv[argc++] = path;
    argv[argc] = NULL;
    if (!(bits & 64))
        setenv("DLSIM_MODELS", "/nonexistent/dlsim-fuzz-no-zoo", 1);
    else if (zoo_env)
        setenv("DLSIM_MODELS", zoo_env, 1);
    else
        unsetenv("DLSIM_MODELS");

    int rc = fz_run(cli_cluster_import, argc, argv, cap);
    close(in);

    fz_check(rc == 0 || rc == 1 || rc == 2, "exit status 0, 1 or 2");
    struct stat st;
    fz_check(fstat(cap, &st) == 0, "fstat");
    size_t len = (size_t)st.st_size;
    if (rc != 0) {
        fz_check(len == 0, "nothing on stdout on failure");
    } else {
        fz_check(len > 0, "a cluster on stdout");
        char *text = malloc(len);
        fz_check(text != NULL, "malloc");
        fz_check(pread(cap, text, len, 0) == (ssize_t)len, "read output");
        struct cluster c;
        struct dl_error err;
        memset(&err, 0, sizeof err);
        int r = cfg_load_cluster_mem("out.yaml", text, len, &c, &err);
        if (r)
            dprintf(fz_real_err, "fuzz_clusterimport: %s:%ld:%ld: %s\n%.*s\n",
                    err.file, err.line, err.col, err.msg, (int)len, text);
        fz_check(r == 0, "the output loads as a cluster");
        fz_check(c.ngpus >= 1 && c.ntypes >= 1, "GPUs in the output");
        clu_free(&c);
        free(text);
    }
    close(cap);
    return 0;
}
