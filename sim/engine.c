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
 * Memory: everything per job is allocated once in eng_new; the event heap
 * and the timeseries grow geometrically; nothing is malloc'd per event.
 */
#include "sim/simint.h"
#include "models/model.h"

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

void evq_push(struct evq *q, simtime_t t, uint32_t kind, uint32_t job, uint32_t gen)
{
    xgrow(&q->a, &q->cap, q->n + 1, sizeof *q->a);
    struct evq_item it = { t, q->seq++, job, gen, kind };
    size_t i = q->n++;
    while (i > 0 && ev_less(&it, &q->a[(i - 1) / 2])) {
        q->a[i] = q->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->a[i] = it;
}

static void sift_down(struct evq *q, size_t i);

struct evq_item evq_pop(struct evq *q)
{
    DL_ASSERT(q->n > 0);
    struct evq_item top = q->a[0];
    q->a[0] = q->a[--q->n];
    if (q->n)
        sift_down(q, 0);
    return top;
}

static void sift_down(struct evq *q, size_t i)
{
    struct evq_item it = q->a[i];
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const struct evq_item *best = &it;
        if (l < q->n && ev_less(&q->a[l], best))
            m = l, best = &q->a[l];
        if (l + 1 < q->n && ev_less(&q->a[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        q->a[i] = q->a[m];
        i = m;
    }
    q->a[i] = it;
}

void evq_compact(struct evq *q, bool (*dead)(const struct evq_item *, void *),
                 void *ctx)
{
    size_t k = 0;
    for (size_t i = 0; i < q->n; i++)
        if (!dead(&q->a[i], ctx))
            q->a[k++] = q->a[i];
    q->n = k;
    for (size_t i = k / 2; i-- > 0;)
        sift_down(q, i);
}

/* --------------------------------------------------------------- engine */

static bool stale(const struct evq_item *it, void *ctx)
{
    const struct eng *e = ctx;
    return it->kind == EV_FINISH && (e->rt[it->job].state != JOB_RUNNING ||
                                     e->rt[it->job].gen != it->gen);
}

static struct pol_view view(const struct eng *e)
{
    return (struct pol_view){
        .now = e->now,
        .clu = e->clu,
        .jobs = e->tr->jobs,
        .rt = e->rt,
        .njobs = e->tr->njobs,
        .nqueued = e->nqueued,
        .nrunning = e->nrunning,
    };
}

static int fail(struct eng *e, const char *fmt, ...)
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

struct eng *eng_new(const struct trace *t, struct cluster *c,
                    const struct eng_opts *o, struct dl_error *err)
{
    const struct policy *pol = o->impl;
    struct pol_args args = { 0 };
    enum plc_mode mode = PLC_CONSOLIDATED;
    if (!pol && (pol_parse(o->policy, &pol, &args, err) ||
                 pol_arg_placement(&args, &mode, err)))
        return NULL;
    struct eng *e = xcalloc(1, sizeof *e);
    e->args = args;
    e->args.spec = o->policy;
    if (pol->create(&e->pst, &e->args, err)) {
        free(e);
        return NULL;
    }
    e->tr = t;
    e->clu = c;
    e->o = *o;
    e->pol = pol;
    e->mode = mode;
    e->ctx.e = e;
    uint32_t n = t->njobs;
    uint64_t total = 0;
    /* a job never holds more GPUs than the cluster has (more never fits) */
    for (uint32_t j = 0; j < n; j++)
        total += t->jobs[j].num_gpus < c->ngpus ? t->jobs[j].num_gpus : c->ngpus;
    e->rt = xcalloc_big(n ? n : 1, sizeof *e->rt);
    e->slots = xcalloc_big(total ? total : 1, sizeof *e->slots);
    e->first = xcalloc_big(total ? total : 1, sizeof *e->first);
    e->running = xcalloc_big(n ? n : 1, sizeof *e->running);
    e->running_pos = xcalloc_big(n ? n : 1, sizeof *e->running_pos);
    uint64_t off = 0;
    for (uint32_t j = 0; j < n; j++) {
        struct job_rt *r = &e->rt[j];
        const struct trc_job *tj = &t->jobs[j];
        r->gpus = e->slots + off;
        off += tj->num_gpus < c->ngpus ? tj->num_gpus : c->ngpus;
        r->remaining = (double)tj->duration;
        r->first_start = r->finish = r->preempted_at = SIM_NEVER;
        r->last_start = r->prev_start = SIM_NEVER;
        r->type = SIM_NONE;
        r->req_type = SIM_NONE;
        r->state = JOB_FUTURE;
    }
    e->nfuture = n;
    evq_init(&e->evq);
    clu_reset(c);
    e->first_submit = n ? t->jobs[0].submit : 0;
    e->last_finish = e->first_submit;
    e->last_instant = e->first_submit;
    e->next_sample = e->first_submit;
    return e;
}

void eng_free(struct eng *e)
{
    if (!e)
        return;
    e->pol->destroy(e->pst);
    free(e->rt);
    free(e->slots);
    free(e->first);
    free(e->running);
    free(e->running_pos);
    free(e->ts);
    evq_free(&e->evq);
    free(e);
}

const uint32_t *eng_first_gpus(const struct eng *e, uint32_t j)
{
    if (e->rt[j].first_start == SIM_NEVER)
        return NULL;
    return e->first + (e->rt[j].gpus - e->slots);
}

static void running_add(struct eng *e, uint32_t j)
{
    e->running_pos[j] = e->nrunning;
    e->running[e->nrunning++] = j;
}

static void running_del(struct eng *e, uint32_t j)
{
    uint32_t pos = e->running_pos[j], last = e->running[--e->nrunning];
    e->running[pos] = last;
    e->running_pos[last] = pos;
}

/* Brings a running job's remaining work up to now (STYLE 8). */
static void settle(struct eng *e, struct job_rt *r)
{
    r->remaining -= r->rate * (double)(e->now - r->settled);
    if (r->remaining < 0)
        r->remaining = 0;
    r->settled = e->now;
}

/* A running job leaves its GPUs (completion or preemption). */
static void stop(struct eng *e, uint32_t j)
{
    struct job_rt *r = &e->rt[j];
    const struct trc_job *tj = &e->tr->jobs[j];
    settle(e, r);
    r->gen++;
    clu_release(e->clu, r->gpus, tj->num_gpus);
    running_del(e, j);
    e->busy_gpus -= tj->num_gpus;
    e->eff_gpus -= tj->num_gpus * mdl_util(tj);
    e->work_rate -= tj->num_gpus * r->rate;
    r->rate = 0;
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

int pol_start(struct pol_ctx *x, uint32_t j, const uint32_t *gpus)
{
    struct eng *e = x->e;
    if (j >= e->tr->njobs || e->rt[j].state != JOB_QUEUED)
        return fail(e, "policy %s started job %u, which is not queued",
                    e->pol->name, j);
    struct job_rt *r = &e->rt[j];
    const struct trc_job *tj = &e->tr->jobs[j];
    const struct cluster *c = e->clu;
    uint32_t n = tj->num_gpus, type = SIM_NONE;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i];
        if (g >= c->ngpus || c->gpu_job[g] != SIM_NONE ||
            (i && g <= gpus[i - 1]))
            return fail(e, "policy %s started job %s on GPU %u, which is busy, "
                        "repeated or unsorted", e->pol->name, tj->id, g);
        uint32_t t = c->nodes[c->gpu_node[g]].type;
        if (type == SIM_NONE)
            type = t;
        if (t != type || (r->req_type != SIM_NONE && t != r->req_type))
            return fail(e, "policy %s started job %s on the wrong GPU type",
                        e->pol->name, tj->id);
    }
    /* preempted and restarted within one instant: the preemption is undone */
    bool undo = r->preempted_at == e->now;
    double rate = mdl_rate(c, tj, type);
    simtime_t fin = finish_time(e, r->remaining - (undo ? r->last_cost : 0), rate);
    if (fin == SIM_NEVER)
        return fail(e, "job %s would run past the largest time dlsim can "
                    "represent (%.6g s of work at speed %g)", tj->id,
                    r->remaining / SIM_US_PER_S, rate);
    memcpy(r->gpus, gpus, n * sizeof *gpus);
    clu_alloc(e->clu, j, gpus, n);
    r->wait += e->now - r->queued_since;
    if (r->first_start == SIM_NEVER) {
        r->first_start = e->now;
        memcpy(e->first + (r->gpus - e->slots), gpus, n * sizeof *gpus);
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
    }
    r->state = JOB_RUNNING;
    r->type = type;
    r->rate = rate;
    r->settled = e->now;
    r->finish_at = fin;
    evq_push(&e->evq, r->finish_at, EV_FINISH, j, r->gen);
    e->nqueued--;
    running_add(e, j);
    e->busy_gpus += n;
    e->eff_gpus += n * mdl_util(tj);
    e->work_rate += n * r->rate;
    if (e->pol->started) {
        struct pol_view v = view(e);
        e->pol->started(e->pst, &v, j);
    }
    return 0;
}

int eng_set_rate(struct eng *e, uint32_t j, double rate)
{
    if (j >= e->tr->njobs || e->rt[j].state != JOB_RUNNING || !(rate > 0))
        return fail(e, "rate change for job %u: not running, or rate %g <= 0",
                    j, rate);
    struct job_rt *r = &e->rt[j];
    const struct trc_job *tj = &e->tr->jobs[j];
    /* never rescale a duration: settle the work done so far, then go on
     * from what is left at the new rate */
    settle(e, r);
    simtime_t fin = finish_time(e, r->remaining, rate);
    if (fin == SIM_NEVER)
        return fail(e, "job %s would run past the largest time dlsim can "
                    "represent at rate %g", tj->id, rate);
    e->work_rate += tj->num_gpus * (rate - r->rate);
    r->rate = rate;
    r->finish_at = fin;
    r->gen++;
    e->nstale++;
    evq_push(&e->evq, r->finish_at, EV_FINISH, j, r->gen);
    if (e->pol->rate_changed) {
        struct pol_view v = view(e);
        e->pol->rate_changed(e->pst, &v, j);
    }
    return 0;
}

int pol_preempt(struct pol_ctx *x, uint32_t j, double extra_work)
{
    struct eng *e = x->e;
    if (j >= e->tr->njobs || e->rt[j].state != JOB_RUNNING)
        return fail(e, "policy %s preempted job %u, which is not running",
                    e->pol->name, j);
    if (!(extra_work >= 0))
        return fail(e, "policy %s preempted with negative cost", e->pol->name);
    struct job_rt *r = &e->rt[j];
    stop(e, j);
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
    r->state = JOB_QUEUED;
    r->queued_since = e->now;
    e->nqueued++;
    struct pol_view v = view(e);
    e->pol->enqueue(e->pst, &v, j);
    return 0;
}

void pol_wake(struct pol_ctx *x, simtime_t at)
{
    struct eng *e = x->e;
    if (at > e->now)
        evq_push(&e->evq, at, EV_WAKE, SIM_NONE, 0);
}

static void finish(struct eng *e, uint32_t j)
{
    struct job_rt *r = &e->rt[j];
    stop(e, j);
    r->remaining = 0;
    r->state = JOB_DONE;
    r->finish = e->now;
    e->ndone++;
    e->last_finish = e->now;
    struct pol_view v = view(e);
    if (e->pol->finished)
        e->pol->finished(e->pst, &v, j);
}

static void arrive(struct eng *e, uint32_t j)
{
    struct job_rt *r = &e->rt[j];
    const struct trc_job *tj = &e->tr->jobs[j];
    e->nfuture--;
    r->queued_since = e->now;
    if (tj->gpu_type)
        r->req_type = clu_type_find(e->clu, tj->gpu_type);
    bool fits = (!tj->gpu_type || r->req_type != SIM_NONE) &&
                plc_ever_fits(e->clu, tj->num_gpus, r->req_type, e->mode);
    struct pol_view v = view(e);
    if (fits && e->pol->admit)
        fits = e->pol->admit(e->pst, &v, j);
    if (!fits) {
        r->state = JOB_REJECTED;
        e->nrejected++;
        if (e->o.warn && e->nrejected <= 5)
            fprintf(e->o.warn, "%s:%u: job %s (%u GPUs%s%s) can never fit the "
                    "cluster: rejected\n", e->tr->path, tj->line, tj->id,
                    tj->num_gpus, tj->gpu_type ? " of type " : "",
                    tj->gpu_type ? tj->gpu_type : "");
        return;
    }
    r->state = JOB_QUEUED;
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
            fail(e, "the timeseries would exceed %d rows: use a larger --sample "
                 "(or --sample 0)", ENG_MAX_TS_ROWS);
            return;
        }
        xgrow(&e->ts, &e->capts, e->nts + 1, sizeof *e->ts);
        e->ts[e->nts++] = (struct ts_row){
            e->next_sample, e->nqueued, e->nrunning, e->busy_gpus,
            e->busy_gpus / ng, e->eff_gpus / ng,
        };
        e->next_sample = e->next_sample > SIM_NEVER - e->o.sample
                             ? SIM_NEVER : e->next_sample + e->o.sample;
    }
}

static int check(struct eng *e, simtime_t prev)
{
    char why[256];
    if (e->now < prev)
        return fail(e, "time went back from %lld", (long long)prev);
    if (clu_check(e->clu, why, sizeof why))
        return fail(e, "cluster: %s", why);
    uint64_t held = 0;
    for (uint32_t i = 0; i < e->nrunning; i++) {
        uint32_t j = e->running[i];
        const struct job_rt *r = &e->rt[j];
        if (r->state != JOB_RUNNING || e->running_pos[j] != i)
            return fail(e, "job %s is listed running in state %d",
                        e->tr->jobs[j].id, r->state);
        for (uint32_t k = 0; k < e->tr->jobs[j].num_gpus; k++)
            if (e->clu->gpu_job[r->gpus[k]] != j)
                return fail(e, "job %s does not hold its GPU %u",
                            e->tr->jobs[j].id, r->gpus[k]);
        held += e->tr->jobs[j].num_gpus;
        double w = r->remaining - r->rate * (double)(e->now - r->settled);
        if (!(w >= -1e-6 * (r->rate + 1)) || r->finish_at <= e->now)
            return fail(e, "job %s has negative remaining work %g",
                        e->tr->jobs[j].id, w);
    }
    uint64_t free_gpus = 0;
    for (uint32_t t = 0; t < e->clu->ntypes; t++)
        free_gpus += e->clu->types[t].free_gpus;
    if (held + free_gpus != e->clu->ngpus || held != e->busy_gpus)
        return fail(e, "GPUs over-allocated: %llu held by jobs, %llu free, %u in all",
                    (unsigned long long)held, (unsigned long long)free_gpus,
                    e->clu->ngpus);
    if (e->nfuture + e->nqueued + e->nrunning + e->ndone + e->nrejected !=
        e->tr->njobs)
        return fail(e, "job states do not add up to %u jobs", e->tr->njobs);
    if (e->nfuture != e->tr->njobs - e->next_arrival)
        return fail(e, "%u jobs still to arrive, %u counted",
                    e->tr->njobs - e->next_arrival, e->nfuture);
    if (e->pol->queued && e->pol->queued(e->pst) != e->nqueued)
        return fail(e, "policy %s holds %u queued jobs, engine %u", e->pol->name,
                    e->pol->queued(e->pst), e->nqueued);
    return 0;
}

/* Full per-job state audit (end of run with --check): O(jobs). */
static int check_final(struct eng *e)
{
    uint32_t cnt[5] = { 0 };
    for (uint32_t j = 0; j < e->tr->njobs; j++) {
        const struct job_rt *r = &e->rt[j];
        if (r->state > JOB_REJECTED)
            return fail(e, "job %s in no state", e->tr->jobs[j].id);
        cnt[r->state]++;
        if (r->state == JOB_DONE &&
            (r->finish < r->first_start || r->remaining != 0 ||
             r->first_start < e->tr->jobs[j].submit))
            return fail(e, "job %s finished inconsistently", e->tr->jobs[j].id);
    }
    if (cnt[JOB_DONE] != e->ndone || cnt[JOB_REJECTED] != e->nrejected ||
        cnt[JOB_QUEUED] || cnt[JOB_RUNNING] || cnt[JOB_FUTURE])
        return fail(e, "%u jobs left queued, %u running, %u never arrived",
                    cnt[JOB_QUEUED], cnt[JOB_RUNNING], cnt[JOB_FUTURE]);
    return 0;
}

int eng_run(struct eng *e)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const struct trace *tr = e->tr;
    simtime_t prev = e->first_submit;
    for (;;) {
        /* stale events (of preempted jobs) wait for their time in the heap;
         * when they outnumber the live ones, sweep them out at once */
        if (e->nstale > 4096 && e->nstale > 2 * (uint64_t)e->evq.n / 3) {
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
        if (t == SIM_NEVER)
            break;
        sample_until(e, t);
        if (e->failed)
            break;
        e->alloc_gpu_us += (double)e->busy_gpus * (double)(t - e->last_instant);
        e->eff_gpu_us += e->eff_gpus * (double)(t - e->last_instant);
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
        while (e->next_arrival < tr->njobs && tr->jobs[e->next_arrival].submit == t) {
            e->events++;
            arrive(e, e->next_arrival++);
        }
        struct pol_view v = view(e);
        e->pol->schedule(e->pst, &v, &e->ctx);
        if (e->failed)
            break;
        if (e->o.check && check(e, prev))
            break;
        prev = t;
    }
    if (!e->failed) {
        sample_until(e, e->last_finish + 1);
        /* rejected jobs arriving after the last finish add no samples */
        while (e->nts && e->ts[e->nts - 1].t > e->last_finish)
            e->nts--;
        if (e->o.check)
            check_final(e);
        if (!e->failed && e->nqueued)
            fail(e, "%u jobs were left waiting forever by policy %s", e->nqueued,
                 e->pol->name);
    }
    if (e->nrejected && e->o.warn)
        fprintf(e->o.warn, "%s: %u job(s) can never fit cluster %s and were "
                "rejected (listed in jobs.csv with no start)\n", tr->path,
                e->nrejected, e->clu->name);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    e->wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return e->failed;
}
