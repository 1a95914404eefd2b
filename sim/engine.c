/*
 * sim/engine.c - the event loop (eng_) and its event queue (evq_).
 *
 * Time advances from one instant to the next; nothing happens between.
 * An instant is the earliest of the next queued event (a predicted
 * completion, a policy wake-up) and the next arrival, which streams from
 * the sorted trace rather than sitting in the queue.  Within an instant:
 *
 *   1. timeseries samples due before the instant are taken (the state then
 *      is the state after the previous instant);
 *   2. completions: every live EV_FINISH at this time (a stale one -- its
 *      job was preempted since, so its generation changed -- is skipped);
 *   3. arrivals: every job submitted at this time; a job that can never fit
 *      the cluster (more GPUs than its type has, unknown GPU type) or that
 *      the policy's admit hook refuses is REJECTED, the rest QUEUED;
 *   4. one call to the policy's schedule(), whose actions are validated and
 *      applied as they come (pol_start, pol_preempt, pol_wake);
 *   5. with --check, the invariants below.
 *
 * Progress is remaining work at a rate (STYLE 8): a running job's
 * remaining work is settled (remaining -= rate * dt) whenever it stops,
 * and its completion is predicted as now + ceil(remaining / rate).
 * Durations are never rescaled.
 *
 * Invariants (--check, after every instant): the cluster index is
 * consistent (clu_check); each running job holds exactly its GPUs and
 * nothing else is held; every job is in exactly one state and the counts
 * add up, the policy's queue holds exactly the queued jobs; remaining work
 * is never negative; time never goes back.
 *
 * Memory: everything per job is reserved once in eng_new and touched as
 * the jobs arrive: a compact record per job (job_end), and the full run
 * state (job_rt) by slot, only for the jobs in the system, a slot reused
 * once its job has left.  The event heap and the timeseries grow
 * geometrically; nothing is malloc'd per event.
 */
#include "sim/simint.h"
#include "models/perf.h"
#include "sim/base/heap.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------- event queue */

void evq_init(struct evq *q)
{
    memset(q, 0, sizeof *q);
}

void evq_free(struct evq *q)
{
    free(q->a);
    memset(q, 0, sizeof *q);
}

static inline bool ev_less(const struct evq_item *a, const struct evq_item *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

HEAP_DEFINE(evh, struct evq, struct evq_item, ev_less)

void evq_push_slot(struct evq *q, simtime_t t, uint32_t kind, uint32_t job,
                   uint32_t gen, uint32_t slot)
{
    evh_push(q, (struct evq_item){ t, q->seq++, job, gen, kind, slot });
}

void evq_push(struct evq *q, simtime_t t, uint32_t kind, uint32_t job, uint32_t gen)
{
    evq_push_slot(q, t, kind, job, gen, 0);
}

struct evq_item evq_pop(struct evq *q)
{
    DL_ASSERT(q->n > 0);
    return evh_pop(q);
}

void evq_compact(struct evq *q, bool (*dead)(const struct evq_item *, void *),
                 void *ctx)
{
    size_t k = 0;
    for (size_t i = 0; i < q->n; i++)
        if (!dead(&q->a[i], ctx))
            q->a[k++] = q->a[i];
    q->n = k;
    evh_heapify(q);
}

/* --------------------------------------------------------------- engine */

static bool stale(const struct evq_item *it, void *ctx)
{
    const struct eng *e = ctx;
    /* a running job's slot is the one it had when the event was made */
    return it->kind == EV_FINISH && (e->state[it->job] != JOB_RUNNING ||
                                     e->rts[it->slot].gen != it->gen);
}

static const struct pol_services services;  /* defined below */

static struct pol_view view(const struct eng *e)
{
    return (struct pol_view){
        .now = e->now,
        .clu = e->clu,
        .jobs = e->tr->jobs,
        .rts = e->rts,
        .rt_slot = e->rt_slot,
        .state = e->state,
        .njobs = e->tr->njobs,
        .nqueued = e->nqueued,
        .nrunning = e->nrunning,
        .nocc = e->nocc,
        .occ = e->occ,
        .max_share = e->max_share,
        .mem_used = e->mem_used,
        .mem = e->perf->mem,
        .svc = &services,
        .impl = e,
    };
}

int eng_fail(struct eng *e, const char *fmt, ...)
{
    if (!e->failed) {
        char t[32];
        sim_fmt_seconds(t, sizeof t, e->now);
        int off = snprintf(e->fail_msg, sizeof e->fail_msg, "t=%s: ", t);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->fail_msg + off, sizeof e->fail_msg - (size_t)off, fmt, ap);
        va_end(ap);
        e->failed = DL_ECHECK;
    }
    return DL_ECHECK;
}

/* ------------------------------------------------------ the services */

static int s_start(struct pol_ctx *x, uint32_t j, const uint32_t *gpus,
                   uint32_t n, bool share);
static int s_preempt(struct pol_ctx *x, uint32_t j, double extra_work);
const char *eng_policy_failure(const struct pol_ctx *x)
{
    const struct eng *e = x->impl;
    return e->failed ? e->fail_msg : "";
}

int eng_policy_fail(struct pol_ctx *x, const char *msg)
{
    return eng_fail(x->impl, "policy %s failed: %s", ((struct eng *)x->impl)->pol->name,
                    msg);
}

static void s_wake(struct pol_ctx *x, simtime_t at);
static int s_resize(struct pol_ctx *x, uint32_t j, const uint32_t *gpus,
                    uint32_t n);

static double s_pred_runtime(const struct pol_view *v, uint32_t j,
                             uint32_t t, uint32_t n, bool spread)
{
    const struct eng *e = v->impl;
    return mdl_perf_pred_runtime_n(e->perf, j, t, n, spread);
}

/* The GPU type a utilization question without one is about: the job's
 * current (or last) type once it has started, else its required type,
 * else the cluster's reference type. */
static uint32_t util_type(const struct eng *e, uint32_t j, uint32_t t)
{
    const struct job_end *d = &e->end[j];
    if (t != SIM_NONE)
        return t;
    /* its run state, from its arrival (admit) to the end of its finished
     * hook */
    bool in = e->rt_slot[j] != 0;
    if (!in && e->state[j] == JOB_FUTURE)
        return e->clu->ref_type;
    simtime_t first = in ? eng_rt(e, j)->first_start : d->first_start;
    if (first != SIM_NEVER)
        return in ? eng_rt(e, j)->type : eng_last_type(e, j);
    uint32_t req = in ? eng_rt(e, j)->req_type : eng_req_type(e, j);
    return req != SIM_NONE ? req : e->clu->ref_type;
}

static double s_pred_util(const struct pol_view *v, uint32_t j, uint32_t t)
{
    const struct eng *e = v->impl;
    return mdl_perf_pred_util(e->perf, j, util_type(e, j, t));
}

static double s_measured_util(const struct pol_view *v, uint32_t j, uint32_t t)
{
    const struct eng *e = v->impl;
    return mdl_perf_util(e->perf, j, util_type(e, j, t));
}

static bool s_spread(const struct cluster *c, uint32_t t, const uint32_t *gpus,
                     uint32_t n)
{
    return clu_spread(c, t, gpus, n);
}

static const struct pol_services services = {
    .abi = DLSIM_POLICY_ABI,
    .start = s_start,
    .preempt = s_preempt,
    .wake = s_wake,
    .pred_runtime = s_pred_runtime,
    .pred_util = s_pred_util,
    .measured_util = s_measured_util,
    .place = plc_find,
    .ever_fits = plc_ever_fits,
    .spread = s_spread,
    .resize = s_resize,
};

/* The common option placement= (every policy takes it; the engine's
 * admission needs it to tell a job that can never fit). */
static int placement_of(const struct pol_args *a, enum plc_mode *mode,
                        struct dl_error *err)
{
    *mode = PLC_CONSOLIDATED;
    for (uint32_t i = 0; a && i < a->n; i++) {
        if (strcmp(a->key[i], "placement"))
            continue;
        if (!strcmp(a->val[i], "pool"))
            *mode = PLC_POOL;
        else if (strcmp(a->val[i], "consolidated"))
            return dl_fail(err, "--policy", 0, 0, "placement=%s: expected "
                           "consolidated or pool", a->val[i]);
    }
    return 0;
}

/* A job's run state as it arrives, nothing done (a struct copy: vector
 * stores, where a memset and the fields took a string store); slot 0's,
 * no job's. */
static const struct job_rt fresh_rt = {
    .first_start = SIM_NEVER, .finish = SIM_NEVER, .preempted_at = SIM_NEVER,
    .last_start = SIM_NEVER, .prev_start = SIM_NEVER,
    .type = SIM_NONE, .req_type = SIM_NONE };

struct eng *eng_new(const struct trace *t, struct cluster *c,
                    const struct eng_opts *o, struct dl_error *err)
{
    const struct policy *pol = o->pol;
    enum plc_mode mode;
    DL_ASSERT(pol);
    if (placement_of(o->args, &mode, err))
        return NULL;
    struct eng *e = xcalloc(1, sizeof *e);
    e->tr = t;
    e->clu = c;
    /* Each job's record, slot and allocation (a run of e->slots, or its
     * slot's gpu1 for a job of one GPU) are reserved here, zero
     * (JOB_FUTURE), and set up as the job arrives: pages of memory are
     * touched as the run reaches them (on a VM whose host takes freed
     * memory back, touching costs about 1.5 s a GB). */
    uint32_t n = t->njobs;
    uint64_t total = 0;
    /* a job never holds more GPUs than the cluster has (more never fits) */
    for (uint32_t j = 0; j < n; j++) {
        uint32_t g = eng_room(e, j);
        total += g > 1 ? g : 0;
        if (total > UINT32_MAX) {   /* 16 GiB of allocations (gpus_off) */
            free(e);
            dl_fail(err, t->path, t->jobs[j].line, 0, "job %s: the gangs up "
                    "to here would hold %llu GPUs in all (each up to the "
                    "cluster's %u), more than a run indexes (4,294,967,295)",
                    t->jobs[j].id, (unsigned long long)total, c->ngpus);
            return NULL;
        }
        e->any_user |= t->jobs[j].user != NULL;
        e->any_vc |= t->jobs[j].vc != NULL;
    }
    size_t n1 = n ? n : 1;
    xbig_reserve(&e->state, n1 * sizeof *e->state);
    xbig_reserve(&e->end, n1 * sizeof *e->end);
    if (e->any_user || e->any_vc)
        xbig_reserve(&e->gpu_us, n1 * sizeof *e->gpu_us);
    if (o->keep_rt)
        xbig_reserve(&e->kept, n1 * sizeof *e->kept);
    /* slot 0 is no job's: the slot of every job not in the system (a
     * policy that reads a departed job's run state sees a job never
     * started, holding nothing, at generation 0) */
    xbig_reserve(&e->rts, (n1 + 1) * sizeof *e->rts);
    e->nslots = 1;
    e->rts[0] = fresh_rt;
    xbig_reserve(&e->rt_slot, n1 * sizeof *e->rt_slot);
    xbig_reserve(&e->free_slots, n1 * sizeof *e->free_slots);
    xbig_reserve(&e->running_pos, (n1 + 1) * sizeof *e->running_pos);
    xbig_reserve(&e->gpu1, (n1 + 1) * sizeof *e->gpu1);
    xbig_reserve(&e->slots, (total ? total : 1) * sizeof *e->slots);
    struct mdl_perf *perf = mdl_perf_new(o->models, c, t, o->seed, o->diag);
    if (o->args)
        e->args = *o->args;
    e->args.spec = o->policy;
    e->perf = perf;
    e->max_share = perf->max_share;
    e->nocc = xcalloc_big(c->ngpus ? c->ngpus : 1, sizeof *e->nocc);
    e->occ = xcalloc_big((size_t)(c->ngpus ? c->ngpus : 1) * e->max_share,
                         sizeof *e->occ);
    e->usum = xcalloc_big(c->ngpus ? c->ngpus : 1, sizeof *e->usum);
    e->uuse = xcalloc_big(c->ngpus ? c->ngpus : 1, sizeof *e->uuse);
    e->mem_used = xcalloc_big(c->ngpus ? c->ngpus : 1, sizeof *e->mem_used);
    e->sfac = xcalloc_big((size_t)(c->ngpus ? c->ngpus : 1) * e->max_share,
                          sizeof *e->sfac);
    e->scratch = xcalloc_big(c->ngpus ? c->ngpus : 1, sizeof *e->scratch);
    e->o = *o;
    e->pol = pol;
    e->mode = mode;
    e->ctx = (struct pol_ctx){ &services, e };
    e->first_off = xcalloc(n ? n : 1, sizeof *e->first_off);
    xbig_reserve(&e->running, n1 * sizeof *e->running);
    /* the offered load of the trace that runs, at each job's speeds under
     * the run's models (SPEC 5), as trace stats --models reports it */
    double *caps = xmalloc((n ? n : 1) * sizeof *caps);
    mdl_perf_caps(perf, caps);
    e->offered_load = trc_offered_load_caps(t, c, caps);
    free(caps);
    e->nfuture = n;
    e->win_alloc_us = e->win_eff_us = e->win_useful_us = 0;
    evq_init(&e->evq);
    clu_reset(c);
    e->first_submit = n ? t->jobs[0].submit : 0;
    e->last_finish = e->first_submit;
    e->last_instant = e->first_submit;
    e->next_sample = e->first_submit;
    if (pol->rate_changed)      /* only a policy told of rate changes */
        xbig_reserve(&e->pending_mark, (n1 + 1) * sizeof *e->pending_mark);
    e->now = e->first_submit;
    struct pol_view v = view(e);
    if (pol->create(&e->pst, &e->args, &v, err)) {
        e->pst = NULL;
        eng_free(e);
        return NULL;
    }
    return e;
}

/* Job j arrives: its record and its run state in a free slot, as it
 * starts (nothing done), its allocation the next run of e->slots. */
static struct job_rt *enter(struct eng *e, uint32_t j)
{
    const struct trc_job *tj = &e->tr->jobs[j];
    uint32_t slot = e->nfree_slots ? e->free_slots[--e->nfree_slots]
                                   : e->nslots++;
    e->rt_slot[j] = slot;
    struct job_rt *r = &e->rts[slot];
    *r = fresh_rt;
    struct job_end *d = &e->end[j];
    uint32_t room = eng_room(e, j);
    if (room > 1) {
        d->gpus_off = (uint32_t)e->slot_next;
        e->slot_next += room;
        r->gpus = e->slots + d->gpus_off;
    } else {
        r->gpus = e->gpu1 + slot;
        e->gpu1[slot] = 0;      /* none yet (not the last occupant's) */
    }
    r->remaining = (double)tj->duration;
    r->queued_since = e->now;
    return r;
}

/* Job j is done or rejected (state): what its outputs need is kept in
 * its record (before its finished hook, whose questions about it read
 * that record), its slot still its own until release. */
static void record(struct eng *e, uint32_t j, enum job_state state)
{
    struct job_rt *r = eng_rt(e, j);
    struct job_end *d = &e->end[j];
    e->state[j] = (uint8_t)state;
    d->first_start = r->first_start;
    d->finish = r->finish;
    d->wait = r->wait;
    if (e->gpu_us)
        e->gpu_us[j] = r->gpu_us;
    double x = r->solo_us > 0 ? r->run_us / r->solo_us : 1;
    if (x != 1) {
        if (!e->interf)
            xbig_reserve(&e->interf, (size_t)e->tr->njobs * sizeof *e->interf);
        e->interf[j] = x;
    }
    d->preemptions = r->preemptions;
    size_t n = e->tr->njobs;
    uint32_t room = eng_room(e, j);
    if (r->first_start != SIM_NEVER) {
        if (r->first_ngpus != room) {
            if (!e->first_n) {  /* jobs.csv's writer reads it: published
                                   once made (zero: every job's is its
                                   room, as it was before) */
                uint32_t *a = NULL;
                xbig_reserve(&a, n * sizeof *a);
                __atomic_store_n(&e->first_n, a, __ATOMIC_RELEASE);
            }
            e->first_n[j] = r->first_ngpus;
        }
        /* the allocation is the first one unless a restart or a resize
         * saved that (save_first) */
        const struct cluster *c = e->clu;
        uint32_t f = e->first_off[j] ? e->first_pool[e->first_off[j] - 1]
                                     : SIM_NONE;
        if (f != SIM_NONE && r->type != c->nodes[c->gpu_node[f]].type) {
            if (!e->last_type)
                xbig_reserve(&e->last_type, n * sizeof *e->last_type);
            e->last_type[j] = r->type + 1;
        }
    }
    if (room == 1)
        d->gpus_off = *r->gpus;         /* its GPU, if it ever had one */
    if (e->kept) {
        e->kept[j] = *r;
        if (room == 1)
            e->kept[j].gpus = &d->gpus_off;
    }
}

/* Job j, recorded, leaves the system: its slot is given back. */
static void release(struct eng *e, uint32_t j)
{
    e->free_slots[e->nfree_slots++] = e->rt_slot[j];
    e->rt_slot[j] = 0;
}

int eng_check_policy(const struct policy *p, const struct pol_args *a,
                     struct cluster *c, struct dl_error *err)
{
    struct trace t;
    trc_init(&t, "", 0);
    struct eng_opts o = { .policy = a ? a->spec : p->name, .pol = p, .args = a };
    struct eng *e = eng_new(&t, c, &o, err);
    bool ok = e != NULL;
    eng_free(e);
    trc_free(&t);
    return ok ? 0 : DL_EINPUT;
}

int eng_scale_load(struct trace *t, const struct cluster *c,
                   const struct mdl_spec *models, double load,
                   double *factor, struct dl_error *err)
{
    if (!models)
        return trc_scale_load(t, c, load, factor, err);
    /* speeds do not depend on submit times, nor on the seed */
    struct mdl_perf *p = mdl_perf_new(models, c, t, 0, NULL);
    double *caps = xmalloc((t->njobs ? t->njobs : 1) * sizeof *caps);
    mdl_perf_caps(p, caps);
    mdl_perf_free(p);
    int rc = trc_scale_load_caps(t, c, caps, load, factor, err);
    free(caps);
    return rc;
}

void eng_free(struct eng *e)
{
    if (!e)
        return;
    if (e->pst)
        e->pol->destroy(e->pst);
    free(e->pending);
    xbig_free(e->pending_mark);
    mdl_perf_free(e->perf);
    free(e->nocc);
    free(e->occ);
    free(e->sfac);
    free(e->usum);
    free(e->uuse);
    free(e->mem_used);
    free(e->scratch);
    free(e->touched);
    xbig_free(e->touch_mark);
    free(e->jf);
    xbig_free(e->state);
    xbig_free(e->end);
    xbig_free(e->gpu_us);
    xbig_free(e->interf);
    xbig_free(e->perr);
    xbig_free(e->first_n);
    xbig_free(e->last_type);
    xbig_free(e->kept);
    xbig_free(e->rts);
    xbig_free(e->rt_slot);
    xbig_free(e->free_slots);
    xbig_free(e->slots);
    free(e->first_off);
    free(e->first_pool);
    xbig_free(e->running);
    xbig_free(e->running_pos);
    xbig_free(e->gpu1);
    free(e->ts);
    evq_free(&e->evq);
    free(e);
}

uint32_t eng_first_ngpus(const struct eng *e, uint32_t j)
{
    const uint32_t *a = __atomic_load_n(&e->first_n, __ATOMIC_ACQUIRE);
    return a && a[j] ? a[j] : eng_room(e, j);
}

uint32_t eng_last_type(const struct eng *e, uint32_t j)
{
    const struct cluster *c = e->clu;
    const uint32_t *g = eng_first_gpus(e, j);
    if (!g)
        return SIM_NONE;
    if (e->last_type && e->last_type[j])
        return e->last_type[j] - 1;
    return c->nodes[c->gpu_node[g[0]]].type;
}

/* Job j's solo rate on gpus[0..n) of type t, and whether they are
 * spread over more nodes than needed: what a start, a resize and
 * eng_iso_rate compute alike. */
static double solo_rate(const struct eng *e, uint32_t j, uint32_t t,
                        const uint32_t *gpus, uint32_t n, bool *spread)
{
    *spread = n > 1 && clu_spread(e->clu, t, gpus, n);
    return mdl_perf_rate_n(e->perf, j, t, n, *spread);
}

double eng_iso_rate(const struct eng *e, uint32_t j)
{
    const struct cluster *c = e->clu;
    const uint32_t *g = eng_first_gpus(e, j);
    bool spread;
    return solo_rate(e, j, c->nodes[c->gpu_node[g[0]]].type, g,
                     eng_first_ngpus(e, j), &spread);
}

void eng_drop_run_state(struct eng *e)
{
    DL_ASSERT(!e->nqueued && !e->nrunning);
    xbig_free(e->rts);
    xbig_free(e->rt_slot);
    xbig_free(e->free_slots);
    xbig_free(e->running);
    xbig_free(e->running_pos);
    xbig_free(e->gpu1);
    xbig_free(e->pending_mark);
    xbig_free(e->touch_mark);
    free(e->jf);
    mdl_perf_drop_run(e->perf);
    e->rts = NULL;
    e->rt_slot = e->free_slots = e->running = e->running_pos = e->gpu1 = NULL;
    e->pending_mark = e->touch_mark = NULL;
    e->jf = NULL;
}

const uint32_t *eng_first_gpus(const struct eng *e, uint32_t j)
{
    uint8_t st = e->state[j];
    bool in = st == JOB_QUEUED || st == JOB_RUNNING;
    if (st == JOB_FUTURE ||
        (in ? eng_rt(e, j)->first_start : e->end[j].first_start) == SIM_NEVER)
        return NULL;
    if (e->first_off[j])
        return e->first_pool + (e->first_off[j] - 1);
    if (eng_room(e, j) > 1)
        return e->slots + e->end[j].gpus_off;
    return in ? eng_rt(e, j)->gpus : &e->end[j].gpus_off;
}

/* Before job j's allocation is overwritten: keeps its first placement
 * when that is what the allocation still holds. */
static void save_first(struct eng *e, uint32_t j)
{
    const struct job_rt *r = eng_rt(e, j);
    if (r->first_start == SIM_NEVER || e->first_off[j])
        return;
    bool moves = e->stream && e->nfirst_pool + r->first_ngpus > e->capfirst_pool;
    if (moves)                  /* jobs.csv's writer reads the pool */
        out_stream_lock(e->stream);
    xgrow(&e->first_pool, &e->capfirst_pool, e->nfirst_pool + r->first_ngpus,
          sizeof *e->first_pool);
    if (moves)
        out_stream_unlock(e->stream);
    memcpy(e->first_pool + e->nfirst_pool, r->gpus,
           r->first_ngpus * sizeof *r->gpus);
    e->first_off[j] = e->nfirst_pool + 1;
    e->nfirst_pool += r->first_ngpus;
}

static void running_add(struct eng *e, uint32_t j)
{
    e->running_pos[e->rt_slot[j]] = e->nrunning;
    e->running[e->nrunning++] = j;
}

static void running_del(struct eng *e, uint32_t j)
{
    uint32_t pos = e->running_pos[e->rt_slot[j]], last = e->running[--e->nrunning];
    e->running[pos] = last;
    e->running_pos[e->rt_slot[last]] = pos;
    if (e->jf)                  /* kept by place among the running */
        e->jf[pos] = e->jf[e->nrunning];
}

/* Brings a running job's remaining work up to now (STYLE 8). */
static void settle(struct eng *e, struct job_rt *r)
{
    double dt = (double)(e->now - r->settled);
    r->remaining -= r->rate * dt;
    if (r->remaining < 0)
        r->remaining = 0;
    r->run_us += dt;
    r->gpu_us += dt * r->ngpus;
    r->solo_us += dt * (r->rate / r->base_rate);
    r->settled = e->now;
}

/* Predicted completion of a job with remaining work rem at rate, from
 * now; SIM_NEVER if it would pass SIM_TIME_LIMIT. */
static simtime_t finish_time(const struct eng *e, double rem, double rate)
{
    double dt = ceil(rem / rate - 1e-9);
    if (!(dt < (double)(SIM_TIME_LIMIT - e->now)))
        return SIM_NEVER;
    return e->now + (dt < 1 ? 1 : (simtime_t)dt);
}


/* The slowdown factor of running job j: that of its slowest GPU.  With
 * extra != SIM_NONE, as if job extra were also on every GPU of gpus
 * (a start being considered). */
/* Sets running job j's rate from now on: settles the work done so far,
 * predicts its completion at the new rate (the old event goes stale) and
 * tells the policy.  A job completing at this very instant keeps its
 * completion.  0 or DL_ECHECK. */
static int apply_rate(struct eng *e, uint32_t j, double rate)
{
    struct job_rt *r = eng_rt(e, j);
    const struct trc_job *tj = &e->tr->jobs[j];
    if (rate == r->rate || r->finish_at <= e->now) {
        shr_credit(e, j);       /* eng_set_rate may have moved base_rate */
        return 0;
    }
    /* never rescale a duration: settle the work done so far, then go on
     * from what is left at the new rate */
    settle(e, r);
    simtime_t fin = finish_time(e, r->remaining, rate);
    if (fin == SIM_NEVER)
        return eng_fail(e, "job %s would run past the largest time dlsim can "
                    "represent at rate %g", tj->id, rate);
    e->work_rate += tj->num_gpus * (rate - r->rate);
    r->rate = rate;
    shr_credit(e, j);
    r->finish_at = fin;
    r->gen++;
    e->nstale++;
    evq_push_slot(&e->evq, r->finish_at, EV_FINISH, j, r->gen, e->rt_slot[j]);
    if (e->pol->rate_changed) {
        if (e->in_schedule) {
            /* no hook inside schedule(): told once it returns */
            if (!e->pending_mark[e->rt_slot[j]]) {
                xgrow(&e->pending, &e->cappending, e->npending + 1,
                      sizeof *e->pending);
                e->pending[e->npending++] = j;
                e->pending_mark[e->rt_slot[j]] = 1;
            }
        } else {
            struct pol_view v = view(e);
            e->pol->rate_changed(e->pst, &v, j);
        }
    }
    return 0;
}

/* Every job that shares a GPU of gpus[0..n) (except skip) gets the rate
 * its co-runners now allow. */
static int rerate_neighbours(struct eng *e, const uint32_t *gpus, uint32_t n,
                             uint32_t skip)
{
    shr_neighbours(e, gpus, n, skip);
    for (size_t m = 0; m < e->ntouched; m++) {
        uint32_t k = e->touched[m];
        struct job_rt *r = eng_rt(e, k);
        if (apply_rate(e, k, r->base_rate * shr_kept_factor(e, k)))
            return DL_ECHECK;
    }
    return 0;
}

/* A running job leaves its GPUs (completion or preemption); its
 * co-runners speed up. */
static int stop(struct eng *e, uint32_t j)
{
    struct job_rt *r = eng_rt(e, j);
    const struct trc_job *tj = &e->tr->jobs[j];
    uint32_t n = r->ngpus, nfree, nshared;
    settle(e, r);
    r->gen++;
    nfree = shr_leave(e, j, &nshared);
    clu_release(e->clu, e->scratch, nfree);
    running_del(e, j);
    e->busy_gpus -= nfree;
    e->work_rate -= tj->num_gpus * r->rate;   /* job work: reference GPU-us */
    r->rate = 0;
    return nshared ? rerate_neighbours(e, r->gpus, n, j) : 0;
}

/* Starts queued job j on gpus[0..n) (n = WHOLE_GANG: its num_gpus),
 * sharing them with other jobs if share. */
#define WHOLE_GANG UINT32_MAX
static int start(struct eng *e, uint32_t j, const uint32_t *gpus, uint32_t n,
                 bool share)
{
    const char *pn = e->pol->name;
    if (j >= e->tr->njobs || e->state[j] != JOB_QUEUED)
        return eng_fail(e, "policy %s started job %u, which is not queued", pn, j);
    struct job_rt *r = eng_rt(e, j);
    const struct trc_job *tj = &e->tr->jobs[j];
    const struct cluster *c = e->clu;
    uint32_t type = SIM_NONE, nshared = 0;
    double mem = mdl_perf_mem(e->perf, j);
    if (n == WHOLE_GANG)
        n = tj->num_gpus;
    if (n < 1 || n > tj->num_gpus || n > c->ngpus)
        return eng_fail(e, "policy %s started job %s on %u GPUs (it asks for %u)",
                    pn, tj->id, n, tj->num_gpus);
    /* the node's type is looked up once per node (a gang's GPUs come
     * node by node) */
    uint32_t node = SIM_NONE, t = SIM_NONE;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i];
        if (g >= c->ngpus || (i && g <= gpus[i - 1]))
            return eng_fail(e, "policy %s started job %s on GPU %u, which is "
                        "repeated, unsorted or absent", pn, tj->id, g);
        if (c->gpu_node[g] != node) {
            node = c->gpu_node[g];
            t = c->nodes[node].type;
        }
        uint32_t k = e->nocc[g];
        if (k) {
            if (!share)
                return eng_fail(e, "policy %s started job %s on GPU %u, which "
                                "is busy", pn, tj->id, g);
            if (k >= e->max_share)
                return eng_fail(e, "policy %s put job %s on GPU %u, which "
                                "already holds %u jobs (max_jobs_per_gpu)", pn,
                                tj->id, g, k);
            if (mem > 0 && c->types[t].memory_gb > 0 &&
                e->mem_used[g] + mem > c->types[t].memory_gb + 1e-9)
                return eng_fail(e, "policy %s put job %s (%g GB) on GPU %u, "
                                "which has %g of %g GB in use", pn, tj->id, mem,
                                g, e->mem_used[g], c->types[t].memory_gb);
            nshared++;
        }
        if (type == SIM_NONE)
            type = t;
        if (t != type || (r->req_type != SIM_NONE && t != r->req_type))
            return eng_fail(e, "policy %s started job %s on the wrong GPU type",
                        pn, tj->id);
    }
    /* preempted and restarted within one instant on the same GPUs: the
     * preemption is undone.  On other GPUs the job moved (a checkpoint and
     * a restore elsewhere): that is a preemption, counted and paid. */
    bool undo = r->preempted_at == e->now && r->ngpus == n &&
                !memcmp(r->gpus, gpus, n * sizeof *gpus);
    bool spread;
    double base = solo_rate(e, j, type, gpus, n, &spread);
    uint32_t at = 0;            /* a GPU + 1 where its factor is reached */
    double f = nshared ? shr_factor(e, j, type, gpus, n, &at) : 1;
    double rate = base * f;
    simtime_t fin = finish_time(e, r->remaining - (undo ? r->last_cost : 0), rate);
    if (fin == SIM_NEVER)
        return eng_fail(e, "job %s would run past the largest time dlsim can "
                    "represent (%.6g s of work at speed %g)", tj->id,
                    r->remaining / SIM_US_PER_S, rate);
    save_first(e, j);
    memmove(r->gpus, gpus, n * sizeof *gpus);
    r->ngpus = n;
    uint32_t nfree = shr_join(e, j, gpus, n, rate / base);
    clu_alloc(e->clu, j, e->scratch, nfree);
    r->wait += e->now - r->queued_since;
    if (r->first_start == SIM_NEVER) {
        r->first_start = e->now;
        r->iso_rate = base;
        r->first_ngpus = n;
        /* what the policy was told of this allocation against the truth */
        double pr = mdl_perf_pred_runtime_n(e->perf, j, type, n, spread);
        float x = tj->duration > 0 && pr > 0
                      ? (float)log(pr * base / (double)tj->duration) : NAN;
        if (x != 0 && !e->perr)
            xbig_reserve(&e->perr, (size_t)e->tr->njobs * sizeof *e->perr);
        if (e->perr)
            e->perr[j] = x;
    }
    if (undo) {
        /* nothing happened: the run goes on from where it began */
        r->preemptions--;
        e->preemptions--;
        e->events--;
        r->remaining -= r->last_cost;
        r->preempted_at = SIM_NEVER;
        r->last_start = r->prev_start;
    } else {
        r->last_start = e->now;
        r->start_remaining = r->remaining;
    }
    e->state[j] = JOB_RUNNING;
    r->type = type;
    r->base_rate = base;
    r->rate = rate;
    r->settled = e->now;
    r->finish_at = fin;
    evq_push_slot(&e->evq, r->finish_at, EV_FINISH, j, r->gen, e->rt_slot[j]);
    e->nqueued--;
    running_add(e, j);
    shr_keep(e, j, f, at);
    e->busy_gpus += nfree;
    e->work_rate += tj->num_gpus * r->rate;
    if (nshared && rerate_neighbours(e, gpus, n, j))
        return DL_ECHECK;
    return 0;
}

static int s_start(struct pol_ctx *x, uint32_t j, const uint32_t *gpus,
                   uint32_t n, bool share)
{
    struct eng *e = x->impl;
    if (!e->in_schedule)
        return eng_fail(e, "policy %s acted outside schedule()", e->pol->name);
    return start(e, j, gpus, n, share);
}

int eng_set_rate(struct eng *e, uint32_t j, double rate)
{
    if (j >= e->tr->njobs || e->state[j] != JOB_RUNNING || !(rate > 0))
        return eng_fail(e, "rate change for job %u: not running, or rate %g <= 0",
                    j, rate);
    eng_rt(e, j)->base_rate = rate;  /* same GPUs, same co-runners: same factor */
    return apply_rate(e, j, rate * shr_kept_factor(e, j));
}

static int s_preempt(struct pol_ctx *x, uint32_t j, double extra_work)
{
    struct eng *e = x->impl;
    if (!e->in_schedule)
        return eng_fail(e, "policy %s acted outside schedule()", e->pol->name);
    if (j >= e->tr->njobs || e->state[j] != JOB_RUNNING)
        return eng_fail(e, "policy %s preempted job %u, which is not running",
                    e->pol->name, j);
    if (!(extra_work >= 0))
        return eng_fail(e, "policy %s preempted with negative cost", e->pol->name);
    struct job_rt *r = eng_rt(e, j);
    if (stop(e, j))
        return DL_ECHECK;
    e->nstale++;
    if (r->last_start == e->now) {
        /* started within this instant: it never ran */
        if (r->first_start == e->now)
            r->first_start = SIM_NEVER;
    } else {
        r->remaining += extra_work;
        r->last_cost = extra_work;
        r->preempted_at = e->now;
        r->prev_start = r->last_start;
        r->preemptions++;
        e->preemptions++;
        e->events++;
    }
    e->state[j] = JOB_QUEUED;
    r->queued_since = e->now;
    e->nqueued++;
    return 0;
}

/* Running job j moves to gpus[0..n) of its type (pol_resize): validated
 * first, then its work is settled at the old rate, its GPUs swapped and
 * its completion predicted at the solo rate of the new gang. */
static int resize(struct eng *e, uint32_t j, const uint32_t *gpus, uint32_t n)
{
    const char *pn = e->pol->name;
    if (j >= e->tr->njobs || e->state[j] != JOB_RUNNING)
        return eng_fail(e, "policy %s resized job %u, which is not running",
                        pn, j);
    struct job_rt *r = eng_rt(e, j);
    const struct trc_job *tj = &e->tr->jobs[j];
    const struct cluster *c = e->clu;
    if (n < 1 || n > tj->num_gpus)
        return eng_fail(e, "policy %s resized job %s to %u GPUs (it asks for "
                        "%u; a gang holds 1 to that many)", pn, tj->id, n,
                        tj->num_gpus);
    for (uint32_t i = 0; i < r->ngpus; i++)
        if (e->nocc[r->gpus[i]] != 1)
            return eng_fail(e, "policy %s resized job %s, which shares GPU %u "
                            "(a co-located gang is not resized)", pn, tj->id,
                            r->gpus[i]);
    bool same = n == r->ngpus;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i];
        if (g >= c->ngpus || (i && g <= gpus[i - 1]))
            return eng_fail(e, "policy %s resized job %s onto GPU %u, which is "
                            "repeated, unsorted or absent", pn, tj->id, g);
        if (c->nodes[c->gpu_node[g]].type != r->type)
            return eng_fail(e, "policy %s resized job %s onto GPU %u of "
                            "another type", pn, tj->id, g);
        bool mine = e->nocc[g] == 1 && eng_gpu_jobs(e, g)[0] == j;
        if (e->nocc[g] && !mine)
            return eng_fail(e, "policy %s resized job %s onto GPU %u, which is "
                            "busy", pn, tj->id, g);
        same = same && mine;
    }
    if (same)
        return 0;
    uint32_t type = r->type, old = r->ngpus, nsh;
    bool spread;
    double base = solo_rate(e, j, type, gpus, n, &spread);
    settle(e, r);
    simtime_t fin = finish_time(e, r->remaining, base);
    if (fin == SIM_NEVER)
        return eng_fail(e, "job %s would run past the largest time dlsim can "
                        "represent at speed %g", tj->id, base);
    uint32_t nfree = shr_leave(e, j, &nsh);
    DL_ASSERT(nsh == 0);
    clu_release(e->clu, e->scratch, nfree);
    save_first(e, j);
    memmove(r->gpus, gpus, n * sizeof *gpus);
    r->ngpus = n;
    nfree = shr_join(e, j, gpus, n, 1);
    DL_ASSERT(nfree == n);
    shr_keep(e, j, 1, 0);       /* alone */
    clu_alloc(e->clu, j, e->scratch, nfree);
    e->busy_gpus = e->busy_gpus - old + n;
    e->work_rate += tj->num_gpus * (base - r->rate);
    r->base_rate = base;
    r->rate = base;
    r->finish_at = fin;
    r->gen++;
    e->nstale++;
    evq_push_slot(&e->evq, fin, EV_FINISH, j, r->gen, e->rt_slot[j]);
    r->resizes++;
    e->resizes++;
    return 0;
}

static int s_resize(struct pol_ctx *x, uint32_t j, const uint32_t *gpus,
                    uint32_t n)
{
    struct eng *e = x->impl;
    if (!e->in_schedule)
        return eng_fail(e, "policy %s acted outside schedule()", e->pol->name);
    return resize(e, j, gpus, n);
}

static void s_wake(struct pol_ctx *x, simtime_t at)
{
    struct eng *e = x->impl;
    if (at > e->now)
        evq_push(&e->evq, at, EV_WAKE, SIM_NONE, 0);
}

static void finish(struct eng *e, uint32_t j)
{
    struct job_rt *r = eng_rt(e, j);
    stop(e, j);     /* a failure is in e->failed */
    r->remaining = 0;
    r->finish = e->now;
    e->ndone++;
    e->last_finish = e->now;
    record(e, j, JOB_DONE);
    struct pol_view v = view(e);
    if (e->pol->finished)
        e->pol->finished(e->pst, &v, j);
    release(e, j);
}

static void arrive(struct eng *e, uint32_t j)
{
    struct job_rt *r = enter(e, j);
    const struct trc_job *tj = &e->tr->jobs[j];
    e->nfuture--;
    r->req_type = eng_req_type(e, j);
    bool fits = (!tj->gpu_type || r->req_type != SIM_NONE) &&
                plc_ever_fits(e->clu, tj->num_gpus, r->req_type, e->mode);
    bool admitted = true;
    struct pol_view v = view(e);
    if (fits && e->pol->admit)
        admitted = e->pol->admit(e->pst, &v, j);
    if (!fits || !admitted) {
        record(e, j, JOB_REJECTED);
        release(e, j);
        e->nrejected++;
        e->nrefused += fits;
        if (e->nrejected <= 5)
            dl_warn(e->o.diag, "%s:%u: job %s (%u GPU%s%s%s) %s: rejected",
                    e->tr->path, tj->line, tj->id, tj->num_gpus,
                    DL_PLURAL(tj->num_gpus),
                    tj->gpu_type ? " of type " : "",
                    tj->gpu_type ? tj->gpu_type : "",
                    fits ? "is refused by the policy's admission"
                         : "can never fit the cluster");
        return;
    }
    e->state[j] = JOB_QUEUED;
    e->nqueued++;
    e->pol->enqueue(e->pst, &v, j);
}

static void sample_until(struct eng *e, simtime_t t)
{
    if (e->o.sample <= 0)
        return;
    double ng = e->clu->ngpus;
    while (e->next_sample < t && !e->failed) {
        if (e->nts == ENG_MAX_TS_ROWS) {
            eng_fail(e, "the timeseries would exceed %d rows: use a larger --sample "
                 "(or --sample 0)", ENG_MAX_TS_ROWS);
            return;
        }
        xgrow(&e->ts, &e->capts, e->nts + 1, sizeof *e->ts);
        e->ts[e->nts++] = (struct ts_row){
            e->next_sample, e->nqueued, e->nrunning, e->busy_gpus,
            e->busy_gpus / ng, e->eff_gpus / ng, e->useful_gpus / ng,
        };
        e->next_sample = e->next_sample > SIM_NEVER - e->o.sample
                             ? SIM_NEVER : e->next_sample + e->o.sample;
    }
}

/* The progress line of a long run on a terminal (eng_opts.progress):
 * called every 1024 instants, it reads the clock and redraws at most four
 * times a second, once the run has taken a second.  *shown: drawn once.
 * While jobs arrive it shows the simulated time against the last arrival;
 * after it (the drain) how far past it the run is.  The ETA extrapolates
 * the wall time per job done (finished or rejected): "?" before the first. */
static void progress(struct eng *e, const struct timespec *t0, double *last,
                     bool *shown)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double el = (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
    if (el < 1.0 || el - *last < 0.25)
        return;
    *last = el;
    const struct trace *tr = e->tr;
    double span = tr->njobs ? (double)(tr->jobs[tr->njobs - 1].submit -
                                       e->first_submit) / SIM_US_PER_S / 3600 : 0;
    double at = (double)(e->now - e->first_submit) / SIM_US_PER_S / 3600;
    uint32_t done = e->ndone + e->nrejected;
    char elapsed[32], eta[32] = "?";
    sim_fmt_duration(elapsed, sizeof elapsed, el);
    if (done)
        sim_fmt_duration(eta, sizeof eta, el / done * (tr->njobs - done));
    if (at < span)
        fprintf(e->o.progress, "\rdlsim run: simulated %.1f h of %.1f h of "
                "arrivals (%.0f%%)", at, span, 100 * at / span);
    else
        fprintf(e->o.progress, "\rdlsim run: draining, simulated %.1f h "
                "(arrivals ended at %.1f h)", at, span);
    fprintf(e->o.progress, ", %llu events, %u/%u jobs done, %s, ETA %s\033[K",
            (unsigned long long)e->events, done, tr->njobs, elapsed, eta);
    fflush(e->o.progress);
    *shown = true;
}

/* Tells jobs.csv's writer how many rows from the first are final: every
 * job up to there done or rejected (each job is passed over once; told
 * in steps of 1,024 rows, and at the last). */
static void stream_rows(struct eng *e)
{
    uint32_t r = e->ready, n = e->tr->njobs;
    while (r < n && (e->state[r] == JOB_DONE || e->state[r] == JOB_REJECTED))
        r++;
    e->ready = r;
    if (r - e->published >= 1024 || (r == n && r != e->published)) {
        out_stream_publish(e->stream, r);
        e->published = r;
    }
}

int eng_run(struct eng *e)
{
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    double last_progress = 0;
    bool progress_shown = false;
    const struct trace *tr = e->tr;
    simtime_t prev = e->first_submit;
    for (;;) {
        /* stale events (of preempted jobs) wait for their time in the heap;
         * when they outnumber the live ones (and are more than a few),
         * sweep them out at once: a sweep costs the heap's size and halves
         * it at least, and every push and pop costs its depth */
        if (e->nstale > 256 && e->nstale > (uint64_t)e->evq.n / 2) {
            evq_compact(&e->evq, stale, e);
            e->nstale = 0;
        }
        const struct evq_item *top;
        while ((top = evq_top(&e->evq)) && stale(top, e)) {
            evq_pop(&e->evq);
            if (e->nstale)
                e->nstale--;
        }
        simtime_t t = top ? top->t : SIM_NEVER;
        if (e->next_arrival < tr->njobs && tr->jobs[e->next_arrival].submit < t)
            t = tr->jobs[e->next_arrival].submit;
        /* nothing left to run: a policy's pending wake-ups are moot */
        if (t == SIM_NEVER ||
            (e->next_arrival == tr->njobs && !e->nqueued && !e->nrunning))
            break;
        sample_until(e, t);
        if (e->failed)
            break;
        e->alloc_gpu_us += (double)e->busy_gpus * (double)(t - e->last_instant);
        e->eff_gpu_us += e->eff_gpus * (double)(t - e->last_instant);
        e->useful_gpu_us += e->useful_gpus * (double)(t - e->last_instant);
        if (tr->njobs && t <= tr->jobs[tr->njobs - 1].submit) {
            /* the arrival window ends at the last submit, an instant */
            e->win_alloc_us = e->alloc_gpu_us;
            e->win_eff_us = e->eff_gpu_us;
            e->win_useful_us = e->useful_gpu_us;
        }
        e->shared_gpu_us += (double)e->shared_gpus * (double)(t - e->last_instant);
        e->work_done += e->work_rate * (double)(t - e->last_instant);
        e->last_instant = t;
        e->now = t;
        e->instants++;
        while ((top = evq_top(&e->evq)) && top->t == t) {
            struct evq_item ev = evq_pop(&e->evq);
            if (stale(&ev, e)) {
                if (e->nstale)
                    e->nstale--;
            } else if (ev.kind == EV_WAKE) {
                e->events++;
            } else {
                e->events++;
                finish(e, ev.job);
            }
        }
        if (e->failed)
            break;
        while (e->next_arrival < tr->njobs && tr->jobs[e->next_arrival].submit == t) {
            e->events++;
            arrive(e, e->next_arrival++);
        }
        struct pol_view v = view(e);
        e->in_schedule = true;
        e->pol->schedule(e->pst, &v, &e->ctx);
        e->in_schedule = false;
        if (e->failed)
            break;
        /* rate changes of the policy's own doing, told now, in order */
        for (size_t i = 0; i < e->npending; i++) {
            uint32_t j = e->pending[i];
            e->pending_mark[e->rt_slot[j]] = 0;
            if (e->state[j] == JOB_RUNNING) {
                v = view(e);
                e->pol->rate_changed(e->pst, &v, j);
            }
        }
        e->npending = 0;
        if (e->stream)
            stream_rows(e);
        if (e->o.check && eng_check(e, prev))
            break;
        prev = t;
        if (e->o.progress && !(e->instants & 1023))
            progress(e, &t0, &last_progress, &progress_shown);
    }
    if (progress_shown) {
        fputs("\r\033[K", e->o.progress);
        fflush(e->o.progress);
    }
    if (!e->failed) {
        sample_until(e, e->last_finish + 1);
        /* rejected jobs arriving after the last finish add no samples */
        while (e->nts && e->ts[e->nts - 1].t > e->last_finish)
            e->nts--;
        if (e->o.check)
            eng_check_final(e);
        if (!e->failed && e->nqueued)
            eng_fail(e, "%u jobs were left waiting forever by policy %s", e->nqueued,
                 e->pol->name);
    }
    if (e->nrejected > e->nrefused)
        dl_warn(e->o.diag, "%s: %u job(s) can never fit cluster %s and were "
                "rejected (listed in jobs.csv with no start)", tr->path,
                e->nrejected - e->nrefused, e->clu->name);
    if (e->nrefused)
        dl_warn(e->o.diag, "%s: %u job(s) were refused by policy %s's admission "
                "(listed in jobs.csv with no start)", tr->path, e->nrefused,
                e->pol->name);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    e->wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    e->cpu_seconds = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    return e->failed;
}
