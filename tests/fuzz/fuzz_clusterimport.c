/*
 * tests/fuzz/fuzz_clusterimport.c - libFuzzer entry for `dlsim cluster
 * import` (cfg_cmd_import, sim/cfgimport.c): machine lists of public
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
#include "sim/sim.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static const char *const formats[] = {
    "pai", "openb", "spot", "philly", "tiresias", "gavel",
};
enum { NFMT = sizeof formats / sizeof formats[0] };

static int real_err = -1, devnull = -1;
static char *zoo_env;           /* DLSIM_MODELS as found, or NULL */

static void check(int ok, const char *what)
{
    if (!ok) {
        dprintf(real_err >= 0 ? real_err : 2,
                "fuzz_clusterimport: broken promise: %s\n", what);
        abort();
    }
}

static void setup(void)
{
    if (devnull >= 0)
        return;
    real_err = dup(2);
    devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    check(real_err >= 0 && devnull >= 0, "dup stderr, open /dev/null");
    const char *z = getenv("DLSIM_MODELS");
    zoo_env = z ? strdup(z) : NULL;
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)real_err);
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
    check(in >= 0 && cap >= 0, "memfd_create");
    for (size_t off = 2; off < size;) {
        ssize_t w = write(in, data + off, size - off);
        check(w > 0, "write input");
        off += (size_t)w;
    }
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

    fflush(stdout);
    fflush(stderr);
    int real_out = dup(1);
    check(real_out >= 0, "dup stdout");
    dup2(cap, 1);
    dup2(devnull, 2);
    int rc = cfg_cmd_import(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(real_out, 1);
    dup2(real_err, 2);
    close(real_out);
    close(in);

    check(rc == 0 || rc == 1 || rc == 2, "exit status 0, 1 or 2");
    struct stat st;
    check(fstat(cap, &st) == 0, "fstat");
    size_t len = (size_t)st.st_size;
    if (rc != 0) {
        check(len == 0, "nothing on stdout on failure");
    } else {
        check(len > 0, "a cluster on stdout");
        char *text = malloc(len);
        check(text != NULL, "malloc");
        check(pread(cap, text, len, 0) == (ssize_t)len, "read output");
        struct cluster c;
        struct dl_error err;
        memset(&err, 0, sizeof err);
        int r = cfg_load_cluster_mem("out.yaml", text, len, &c, &err);
        if (r)
            dprintf(real_err, "fuzz_clusterimport: %s:%ld:%ld: %s\n%.*s\n",
                    err.file, err.line, err.col, err.msg, (int)len, text);
        check(r == 0, "the output loads as a cluster");
        check(c.ngpus >= 1 && c.ntypes >= 1, "GPUs in the output");
        clu_free(&c);
        free(text);
    }
    close(cap);
    return 0;
}
