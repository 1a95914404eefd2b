/*
 * tests/fuzz/fuzz_workload.c - libFuzzer entry for the workload YAML
 * reader of `dlsim trace gen --like` (trc_wl_load, traces/workload.c) and
 * the generator that consumes what it accepts (trc_generate_like,
 * traces/like.c).
 *
 * The input goes to a memfd read back through /proc/self/fd/N.  Beyond
 * "no crash, no leak, no UB", it checks the reader's contract: failure is
 * DL_EINPUT with a non-empty message (and a zeroed workload); success
 * gives njobs >= 2, GPU counts ascending whose job counts add up to njobs,
 * each count in exactly one duration class, quantile tables of >= 2
 * non-decreasing values.  Then a trace of min(njobs, 64) jobs is generated
 * like it with each arrival process (replay, poisson, diurnal); each either
 * fails with DL_EINPUT and a message, or gives jobs with ids, num_gpus one
 * of the workload's counts, duration in (0, TRC_MAX_TIME] and submit
 * times in [0, TRC_MAX_TIME] that never decrease.  A broken promise aborts
 * (a libFuzzer crash).
 *
 * Built by scripts/fuzz.sh (fuzzing) and by tests/meson.build
 * (replay_workload: the seeds and past crashes under the test build).
 */
#include "traces/trace.h"
#include "fuzzcmd.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tab(const struct trc_qtab *t)
{
    fz_check(t->n >= 2 && t->q != NULL, "table of >= 2 values");
    for (uint32_t k = 1; k < t->n; k++)
        fz_check(t->q[k] >= t->q[k - 1], "table non-decreasing");
}

static void check_workload(const struct trc_workload *w)
{
    fz_check(w->njobs >= 2, "njobs >= 2");
    fz_check(w->ngpu >= 1, "at least one GPU count");
    uint64_t sum = 0;
    for (uint32_t k = 0; k < w->ngpu; k++) {
        fz_check(w->gpus[k] >= 1, "GPU count >= 1");
        fz_check(k == 0 || w->gpus[k] > w->gpus[k - 1], "GPU counts ascending");
        sum += w->gpu_jobs[k];
        uint32_t in = 0;
        for (uint32_t c = 0; c < w->nclass; c++)
            for (uint32_t i = 0; i < w->cls[c].ngpus; i++)
                in += w->cls[c].gpus[i] == w->gpus[k];
        fz_check(in == 1, "each GPU count in exactly one class");
    }
    fz_check(sum == w->njobs, "GPU job counts add up to njobs");
    for (uint32_t c = 0; c < w->nclass; c++)
        check_tab(&w->cls[c].dur);
    check_tab(&w->gap);
    if (w->deadline_jobs)
        check_tab(&w->slack);
    if (w->util_jobs)
        check_tab(&w->util);
    if (w->mem_jobs)
        check_tab(&w->mem);
}

static void generate(const struct trc_workload *w, enum trc_arrivals arr)
{
    struct trc_like_opts o;
    memset(&o, 0, sizeof o);
    o.njobs = w->njobs < 64 ? w->njobs : 64;
    o.seed = 7;
    o.arrivals = arr;
    struct trace t;
    struct dl_error err;
    memset(&err, 0, sizeof err);
    int rc = trc_generate_like(&o, w, &t, &err);
    if (rc) {
        fz_check(rc == DL_EINPUT, "generation fails with DL_EINPUT");
        fz_check(err.msg[0] != 0, "generation error has a message");
        return;
    }
    fz_check(t.njobs == o.njobs, "as many jobs as asked");
    for (uint32_t i = 0; i < t.njobs; i++) {
        const struct trc_job *j = &t.jobs[i];
        fz_check(j->id && j->id[0], "job id");
        bool known = false;
        for (uint32_t k = 0; k < w->ngpu && !known; k++)
            known = j->num_gpus == w->gpus[k];
        fz_check(known, "num_gpus is one of the workload's counts");
        fz_check(j->duration > 0 && j->duration <= TRC_MAX_TIME,
              "duration in (0, TRC_MAX_TIME]");
        fz_check(j->submit >= 0 && j->submit <= TRC_MAX_TIME, "submit range");
        fz_check(i == 0 || j->submit >= t.jobs[i - 1].submit, "submit order");
    }
    trc_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-workload", 0);
    if (fd < 0)
        return 0;
    fz_name = "fuzz_workload";
    fz_write_all(fd, data, size);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    static const struct trc_workload zero;
    struct trc_workload w;
    struct dl_error err;
    memset(&err, 0, sizeof err);
    int rc = trc_wl_load(path, &w, &err);
    close(fd);
    if (rc) {
        fz_check(rc == DL_EINPUT, "bad input is DL_EINPUT");
        fz_check(err.msg[0] != 0, "error has a message");
        fz_check(!memcmp(&w, &zero, sizeof w), "workload left empty");
        return 0;
    }
    check_workload(&w);
    generate(&w, TRC_ARR_REPLAY);
    generate(&w, TRC_ARR_POISSON);
    generate(&w, TRC_ARR_DIURNAL);
    trc_wl_free(&w);
    return 0;
}
