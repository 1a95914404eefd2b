/*
 * sim/api/pyshim.c - a policy of the contract (sim/policy.h) whose
 * decisions are made in another language: the Python binding's
 * dlsim.Policy.  It is one more client of the contract, no second path
 * into the engine: the engine creates it, tells it of arrivals,
 * completions and rate changes, and calls its schedule() once per instant
 * as it does any policy's, and validates every action it forwards.
 *
 * The shim logs the hooks' events (enqueue, finished, rate_changed) and
 * hands them, in order, to one foreign call per instant, from inside
 * schedule(): the engine calls schedule() at every instant right after
 * that instant's completions and arrivals, so the foreign policy sees the
 * events at the instant they happened, and only ever runs where actions
 * are allowed (an exception there can fail the run cleanly).  A rate
 * change caused by the policy's own actions is told after schedule()
 * returns, so it reaches the foreign side at the next instant.
 *
 * It also keeps the sets of queued and running jobs (positions in pos[],
 * removal by swap: a deterministic order), so a foreign policy can list
 * them without keeping its own; --check compares the queued set with the
 * engine's count.
 */
#include "sim/api/api.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

struct dlsim_sched {
    const struct dlsim_py *py;
    const struct pol_view *v;   /* during schedule() */
    struct pol_ctx *x;
    uint32_t *ev;               /* (kind, job) pairs since the last call */
    size_t nev, capev;          /* in uint32_t */
    uint32_t *q, nq;            /* queued jobs */
    uint32_t *r, nr;            /* running jobs */
    uint32_t *pos;              /* [njobs] index in q or r */
};

static void set_add(uint32_t *set, uint32_t *n, uint32_t *pos, uint32_t j)
{
    pos[j] = *n;
    set[(*n)++] = j;
}

static void set_del(uint32_t *set, uint32_t *n, uint32_t *pos, uint32_t j)
{
    uint32_t i = pos[j], last = set[--*n];
    set[i] = last;
    pos[last] = i;
}

static void log_event(struct dlsim_sched *s, uint32_t kind, uint32_t j)
{
    xgrow(&s->ev, &s->capev, s->nev + 2, sizeof *s->ev);
    s->ev[s->nev++] = kind;
    s->ev[s->nev++] = j;
}

/* The foreign policy of the run being created: the contract's create()
 * takes options as text, so api_run hands the hooks over here, set just
 * before the engine is made (runs in one thread are sequential). */
static _Thread_local const struct dlsim_py *creating;

void api_shim_creating(const struct dlsim_py *py)
{
    creating = py;
}

static int create(void **state, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    (void)a;
    if (!creating)
        return dl_fail(err, "--policy", 0, 0, "a Python policy runs only "
                       "from Python (dlsim.run, python3 -m dlsim)");
    struct dlsim_sched *s = xcalloc(1, sizeof *s);
    s->py = creating;
    size_t n = v->njobs ? v->njobs : 1;
    s->q = xmalloc(n * sizeof *s->q);
    s->r = xmalloc(n * sizeof *s->r);
    s->pos = xmalloc(n * sizeof *s->pos);
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    struct dlsim_sched *s = state;
    free(s->ev);
    free(s->q);
    free(s->r);
    free(s->pos);
    free(s);
}

static void enqueue(void *state, const struct pol_view *v, uint32_t j)
{
    (void)v;
    struct dlsim_sched *s = state;
    set_add(s->q, &s->nq, s->pos, j);
    log_event(s, DLSIM_EV_ENQUEUE, j);
}

static void finished(void *state, const struct pol_view *v, uint32_t j)
{
    (void)v;
    struct dlsim_sched *s = state;
    set_del(s->r, &s->nr, s->pos, j);
    log_event(s, DLSIM_EV_FINISHED, j);
}

static void rate_changed(void *state, const struct pol_view *v, uint32_t j)
{
    (void)v;
    log_event(state, DLSIM_EV_RATE, j);
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct dlsim_sched *s = state;
    s->v = v;
    s->x = x;
    struct dlsim_instant in = {
        .now_us = v->now, .events = s->ev, .nevents = (uint32_t)(s->nev / 2),
        .nqueued = &s->nq, .nrunning = &s->nr, .queued = s->q, .running = s->r,
        .jobs = v->jobs, .rts = v->rts, .rt_slot = v->rt_slot, .state = v->state,
        .njobs = v->njobs,
    };
    int rc = s->py->schedule(s, &in);
    s->nev = 0;
    if (rc && !*eng_policy_failure(x))
        eng_policy_fail(x, "its Python code raised an exception");
    s->v = NULL;
    s->x = NULL;
}

static uint32_t queued(void *state)
{
    return ((struct dlsim_sched *)state)->nq;
}

void api_shim(const struct dlsim_py *py, struct policy *p, struct pol_args *a)
{
    memset(p, 0, sizeof *p);
    p->name = py->name ? py->name : "python";
    p->summary = "a policy written in Python (dlsim.Policy)";
    p->create = create;
    p->destroy = destroy;
    p->enqueue = enqueue;
    p->finished = finished;
    p->rate_changed = rate_changed;
    p->schedule = schedule;
    p->queued = queued;
    memset(a, 0, sizeof *a);
    a->n = 1;
    strcpy(a->key[0], "placement");
    strcpy(a->val[0], py->pool ? "pool" : "consolidated");
    a->spec = p->name;
}

/* ------------------------------------------------ what the foreign side
 * calls while its schedule() runs; outside it (a view kept by the foreign
 * side) an action fails and a query answers nothing, and a job, type or
 * node out of range is refused, never read past */

#define OUTSIDE "called outside the policy's schedule()"

int dlsim_sched_start(struct dlsim_sched *s, uint32_t job, const uint32_t *gpus,
                      uint32_t n, int32_t share)
{
    if (!s->x)
        return DL_ECHECK;
    int rc = s->x->svc->start(s->x, job, gpus, n, share != 0);
    if (!rc) {
        set_del(s->q, &s->nq, s->pos, job);
        set_add(s->r, &s->nr, s->pos, job);
    }
    return rc;
}

int dlsim_sched_preempt(struct dlsim_sched *s, uint32_t job, double cost_us)
{
    if (!s->x)
        return DL_ECHECK;
    int rc = pol_preempt(s->x, job, cost_us);
    if (!rc) {
        set_del(s->r, &s->nr, s->pos, job);
        set_add(s->q, &s->nq, s->pos, job);
    }
    return rc;
}

void dlsim_sched_wake(struct dlsim_sched *s, int64_t at_us)
{
    if (s->x)
        pol_wake(s->x, at_us);
}

const char *dlsim_sched_failure(const struct dlsim_sched *s)
{
    return s->x ? eng_policy_failure(s->x) : OUTSIDE;
}

int dlsim_sched_place(const struct dlsim_sched *s, uint32_t ngpus,
                      uint32_t req_type, int32_t pool, uint32_t *type,
                      uint32_t *gpus)
{
    if (!s->v || ngpus < 1 || ngpus > s->v->clu->ngpus ||
        (req_type != SIM_NONE && req_type >= s->v->clu->ntypes))
        return 0;
    return pol_place(s->v, ngpus, req_type, pool ? PLC_POOL : PLC_CONSOLIDATED,
                     type, gpus);
}

double dlsim_sched_pred_runtime(const struct dlsim_sched *s, uint32_t job,
                                uint32_t type, uint32_t n, int32_t spread)
{
    if (!s->v || job >= s->v->njobs || type >= s->v->clu->ntypes || n < 1)
        return NAN;
    return pol_pred_runtime_n(s->v, job, type, n, spread != 0);
}

double dlsim_sched_pred_util(const struct dlsim_sched *s, uint32_t job,
                             uint32_t type)
{
    if (!s->v || job >= s->v->njobs || type >= s->v->clu->ntypes)
        return NAN;
    return pol_pred_util_on(s->v, job, type);
}

void dlsim_sched_cluster(const struct dlsim_sched *s, uint32_t *ntypes,
                         uint32_t *nnodes, uint32_t *ngpus, uint32_t *ref_type,
                         uint32_t *max_share)
{
    *ntypes = *nnodes = *ngpus = *ref_type = *max_share = 0;
    if (!s->v)
        return;
    const struct cluster *c = s->v->clu;
    *ntypes = c->ntypes;
    *nnodes = c->nnodes;
    *ngpus = c->ngpus;
    *ref_type = c->ref_type;
    *max_share = s->v->max_share;
}

const char *dlsim_sched_type(const struct dlsim_sched *s, uint32_t t,
                             uint32_t *total, uint32_t *nfree)
{
    if (!s->v || t >= s->v->clu->ntypes)
        return NULL;
    const struct cluster *c = s->v->clu;
    *total = c->types[t].total_gpus;
    *nfree = c->types[t].free_gpus;
    return c->types[t].name;
}

void dlsim_sched_node(const struct dlsim_sched *s, uint32_t node,
                      uint32_t *type, uint32_t *ngpus, uint32_t *nfree,
                      uint32_t *first_gpu)
{
    *type = *ngpus = *nfree = *first_gpu = 0;
    if (!s->v || node >= s->v->clu->nnodes)
        return;
    const struct clu_node *n = &s->v->clu->nodes[node];
    *type = n->type;
    *ngpus = n->ngpus;
    *nfree = n->nfree;
    *first_gpu = n->first_gpu;
}

uint32_t dlsim_sched_gpu_jobs(const struct dlsim_sched *s, uint32_t g,
                              uint32_t *jobs)
{
    if (!s->v || g >= s->v->clu->ngpus)
        return 0;
    uint32_t n;
    const uint32_t *o = pol_gpu_jobs(s->v, g, &n);
    memcpy(jobs, o, n * sizeof *o);
    return n;
}

uint32_t dlsim_sched_type_find(const struct dlsim_sched *s, const char *name)
{
    return s->v ? clu_type_find(s->v->clu, name) : SIM_NONE;
}
