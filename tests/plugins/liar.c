/*
 * tests/plugins/liar.c - a buggy plug-in: it starts every queued job on
 * GPU 0, busy or not.  The engine must refuse the second start exactly as
 * it would a built-in's (the run fails, exit 1, nothing written), and its
 * option is validated as a built-in's.
 */
#include "policies/kit.h"

#include <stdlib.h>

struct liar {
    uint32_t *q;
    uint32_t n, cap;
};

static int create(void **st, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    long x;
    int rc = pol_arg_long(a, "greed", 0, 3, &x, err);
    if (rc)
        return rc;
    struct liar *s = calloc(1, sizeof *s);
    s->cap = v->njobs ? v->njobs : 1;
    s->q = calloc(s->cap, sizeof *s->q);
    *st = s;
    return 0;
}

static void destroy(void *st)
{
    struct liar *s = st;
    free(s->q);
    free(s);
}

static void enqueue(void *st, const struct pol_view *v, uint32_t job)
{
    (void)v;
    struct liar *s = st;
    s->q[s->n++] = job;
}

static void schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)v;
    struct liar *s = st;
    static const uint32_t gpu0[64];     /* "GPU 0" for any gang */
    while (s->n)
        if (pol_start(x, s->q[--s->n], gpu0))
            return;
}

static const struct pol_opt opts[] = {
    { "greed", "1", "how many jobs to cram onto GPU 0 (ignored)" },
    { NULL, NULL, NULL },
};

static const struct policy liar = {
    .name = "liar", .summary = "starts everything on GPU 0 (a test)",
    .blocking = "nothing blocks it", .opts = opts, .create = create,
    .destroy = destroy, .enqueue = enqueue, .schedule = schedule,
};

DLSIM_POLICY_PLUGIN(&liar);
