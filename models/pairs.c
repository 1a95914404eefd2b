/*
 * models/pairs.c - the co-location pairs file (SPEC 7: gpu_type, job_a,
 * job_b, rate_a, rate_b, optional util_a, util_b), read by a run's models
 * (measured pairs override the slowdown form where they cover every
 * co-runner) and by `dlsim fit slowdown` (models/fit/).  Jobs and GPU types
 * are interned; pairs refer to them by index.
 */
#include "models/perf.h"
#include "sim/base/formats.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_LEN 128

/* ------------------------------------------------------------ pairs file */

uint32_t mdl_intern(const char ***names, uint32_t *n, size_t *cap,
                    struct arena *a, const char *s, bool fold_case)
{
    for (uint32_t i = 0; i < *n; i++)
        if (fold_case ? !strcasecmp((*names)[i], s) : !strcmp((*names)[i], s))
            return i;
    xgrow(names, cap, (size_t)*n + 1, sizeof **names);
    (*names)[*n] = arena_strndup(a, s, strlen(s));
    return (*n)++;
}

void mdl_pairs_free(struct mdl_pairs *ps)
{
    free(ps->gpus);
    free(ps->jobs);
    free(ps->p);
    if (ps->arena)
        arena_free(ps->arena);
    memset(ps, 0, sizeof *ps);
}

int mdl_pairs_load(const char *path, struct mdl_pairs *ps,
                       struct dl_error *err)
{
    enum { GPU, JA, JB, RA, RB, UA, UB, NCOL };
    static const char *const names[NCOL] = { "gpu_type", "job_a", "job_b",
                                             "rate_a", "rate_b", "util_a",
                                             "util_b" };
    static const bool req[NCOL] = { 1, 1, 1, 1, 1, 0, 0 };
    memset(ps, 0, sizeof *ps);
    struct dl_csv c;
    int rc = dl_csv_open(&c, path, &dl_csv_model_files, err);
    if (rc)
        return rc;
    int col[NCOL];
    ps->arena = arena_new();
    size_t gcap = 0, jcap = 0, pcap = 0;
    if ((rc = dl_csv_header(&c, names, req, NCOL, col, err)))
        goto out;
    while ((rc = dl_csv_row(&c, err)) == 1) {
        struct mdl_pair q = { .line = c.line, .util_a = -1, .util_b = -1 };
        for (int i = GPU; i <= JB; i++)
            if (!c.f[col[i]][0] || strlen(c.f[col[i]]) >= NAME_LEN) {
                rc = dl_fail(err, path, c.line, c.fcol[col[i]],
                             "%s: empty or longer than %d bytes", names[i],
                             NAME_LEN - 1);
                goto out;
            }
        if ((rc = dl_csv_range(&c, col[RA], "rate_a", true, 0, 1, true, &q.rate_a, err)) ||
            (rc = dl_csv_range(&c, col[RB], "rate_b", true, 0, 1, true, &q.rate_b, err)))
            goto out;
        if ((col[UA] >= 0 &&
             (rc = dl_csv_range(&c, col[UA], "util_a", false, 0, 1, false, &q.util_a, err))) ||
            (col[UB] >= 0 &&
             (rc = dl_csv_range(&c, col[UB], "util_b", false, 0, 1, false, &q.util_b, err))))
            goto out;
        q.gpu = mdl_intern(&ps->gpus, &ps->ngpus, &gcap, ps->arena, c.f[col[GPU]], true);
        q.a = mdl_intern(&ps->jobs, &ps->njobs, &jcap, ps->arena, c.f[col[JA]], false);
        q.b = mdl_intern(&ps->jobs, &ps->njobs, &jcap, ps->arena, c.f[col[JB]], false);
        if (ps->n == UINT32_MAX - 1) {
            rc = dl_fail(err, path, c.line, 0, "too many rows");
            goto out;
        }
        xgrow(&ps->p, &pcap, (size_t)ps->n + 1, sizeof *ps->p);
        ps->p[ps->n++] = q;
    }
out:
    dl_csv_close(&c);
    if (rc < 0) {
        mdl_pairs_free(ps);
        return rc;
    }
    return 0;
}

