/*
 * tests/fuzz/fuzz_modelfile.c - libFuzzer entry for the YAML model files a
 * run reads (`--models`: mdl_spec_add dispatching on kind: models,
 * runtime, slowdown or util; models/perf.c, sdfile.c, runtime.c, yload.c).
 *
 * Beyond "no crash, no leak, no UB", it checks the readers' contract:
 * failure is DL_EINPUT with a located, non-empty message (or DL_EIO for a
 * file a models file names that cannot be read); success gives models
 * whose values lie in their documented ranges, and whose slowdown factor
 * for any co-runners stays in [rate_min, 1].
 *
 * The input goes to in.yaml in a directory of its own (made once, removed
 * at exit), so that the files a models file names, relative to its own
 * directory, are looked for there: where the input was a memfd read back
 * through /proc/self/fd/N, `util: 6` named the fuzzer's own fd 6, a pipe,
 * and the read waited on it for ever.  Build and run from the repository
 * root (scripts/fuzz.sh does this).
 */
#include "models/perf.h"
#include "models/fit/fit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_modelfile: broken promise: %s\n", what);
        abort();
    }
}

static void check_sd(const struct mdl_sd_model *m)
{
    check(m->rate_min > 0 && m->rate_min <= 1, "rate_min in (0, 1]");
    static const struct mdl_sd_share sh[4] = {
        { 0.3, 0.5, 1 }, { 1, 2, 0.1 }, { 0, 0, 0 }, { 0.9, 1e3, 1e3 },
    };
    for (uint32_t t = 0; t < m->ntypes; t++) {
        const struct mdl_sd_type *ty = &m->types[t];
        check(ty->name && ty->name[0], "type named");
        check(ty->form < MDL_SD_NFORMS, "known form");
        check(mdl_sd_find(m, ty->name) == ty || !strcmp(ty->name, "*"),
              "a type finds itself");
        for (uint32_t n = 0; n < 4; n++) {
            double r = mdl_sd_rate(ty, m->rate_min, &sh[n], sh, n);
            check(r >= m->rate_min && r <= 1, "rate in [rate_min, 1]");
        }
        double s, p;
        mdl_sd_job_sp(ty, "resnet50@64", &s, &p);
        check(s >= 0 && p >= 0 && isfinite(s) && isfinite(p), "s, p >= 0");
    }
}

static char dir[] = "/tmp/fuzz-model-XXXXXX", path[sizeof dir + 8];

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        if (!mkdtemp(dir))
            return 0;
        snprintf(path, sizeof path, "%s/in.yaml", dir);
        atexit(cleanup);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    bool whole = write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (!whole)
        return 0;
    struct mdl_spec s;
    struct dl_error err;
    memset(&err, 0, sizeof err);
    mdl_spec_init(&s);
    int rc = mdl_spec_add(&s, path, &err);
    if (rc == 0) {
        check(s.max_share >= 1 && s.max_share <= MDL_MAX_SHARE, "max_share");
        check(s.rt_noise >= 0 && s.util_noise >= 0, "noise >= 0");
        check(s.rt.eff_c > 0 && s.rt.eff_c <= 1 && s.rt.eff_m > 0 &&
              s.rt.eff_m <= 1, "efficiencies in (0, 1]");
        check(s.rt.scale_cons > 0 && s.rt.scale_spread > 0 &&
              s.rt.overhead_s >= 0, "scalings and overhead");
        if (s.has_sd)
            check_sd(&s.sd);
        if (s.has_util) {
            double x[MDL_UTIL_NFEAT] = { 1e9, 1e6, 10, 1, 10, 5 };
            double u = mdl_util_predict(&s.util, x);
            check(!(u < 0.01) && !(u > 1), "predicted util in [0.01, 1]");
        }
    } else if (rc == DL_EINPUT) {
        check(err.line >= 1 && err.col >= 1, "error is located");
        check(err.msg[0] != 0, "error has a message");
    } else {
        check(rc == DL_EIO, "DL_EINPUT or DL_EIO");
    }
    mdl_spec_free(&s);
    return 0;
}
