/*
 * sim/metrics.c - the run's metrics, as SPEC section 5 defines them
 * (prefix met_).  Reads the engine after eng_run; owns nothing.
 *
 *   makespan      last finish - first submit
 *   JCT, wait     over finished jobs; percentiles by nearest rank
 *   QoS rate      finished by the deadline / jobs with a deadline
 *                 (a rejected job with a deadline counts as missed)
 *   util_alloc    integral of held GPUs / (GPUs x makespan)
 *   util_eff      integral of sum over GPUs of min(1, solo util) / same
 *   util_useful   integral of sum over GPUs of min(1, sum over its jobs of
 *                 solo util x rate / solo rate on that allocation) / same
 *   *_win         the same three over the arrival window: integrals up to
 *                 the last submit / (GPUs x (last - first submit))
 *   per tenant   by user and by vc: jobs, QoS rate, mean and p99 JCT and
 *                wait, GPU-hours held, mean slowdown (jct over the run time
 *                alone on the type of the first start)
 *   fairness_jain  (sum x)^2 / (n sum x^2) over the n users' mean
 *                slowdowns x (1 = all equal; Jain, Chiu & Hawe 1984), and
 *                the same over the VCs' (fairness_jain_vc)
 *   makespan_floor  max over finished jobs of submit + duration / (its
 *                 solo rate on the fastest type it may use, consolidated)
 *                 - first submit: no policy finishes earlier
 *   colocated_frac   GPU-time with >= 2 jobs / GPU-time with >= 1 job
 *   interference     mean over finished jobs of run time / the time the
 *                    same progress takes at its solo rates (1 = never
 *                    slowed by a co-runner)
 */
#include "sim/simint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Nearest rank: the ceil(p n)-th smallest of a[0..n), in seconds. */
static size_t rank_of(size_t n, double p)
{
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    return rank < 1 ? 0 : rank > n ? n - 1 : rank - 1;
}

/* Percentiles ps[0..np) (descending) of a[0..n) into out[], in seconds:
 * each is selected among the values at or below the one before it. */
static void pcts(uint64_t *a, size_t n, const double *ps, int np, double *out)
{
    size_t end = n;
    for (int i = 0; i < np; i++) {
        if (!n) {
            out[i] = 0;
            continue;
        }
        size_t k = rank_of(n, ps[i]);
        out[i] = (double)dl_select_u64(a, end, k) / SIM_US_PER_S;
        end = k + 1;
    }
}

/* The makespan no policy can beat: every finished job alone, from its
 * submit, on the fastest type it may use (its required type, else any
 * type with enough GPUs), consolidated. */
static simtime_t floor_of(const struct eng *e)
{
    const struct trace *t = e->tr;
    const struct cluster *c = e->clu;
    simtime_t end = e->first_submit;
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct trc_job *tj = &t->jobs[j];
        if (e->state[j] != JOB_DONE)
            continue;
        double best = 0;
        uint32_t req = eng_req_type(e, j);
        for (uint32_t ty = 0; ty < c->ntypes; ty++) {
            if ((req != SIM_NONE && ty != req) ||
                c->types[ty].total_gpus < tj->num_gpus)
                continue;
            double r = mdl_perf_rate(e->perf, j, ty, false);
            if (r > best)
                best = r;
        }
        if (!(best > 0))
            continue;
        double fin = (double)tj->submit + ceil((double)tj->duration / best - 1e-9);
        if (fin > (double)end)
            end = fin < (double)SIM_TIME_LIMIT ? (simtime_t)fin : SIM_TIME_LIMIT;
    }
    return end - e->first_submit;
}

/* Job j's slowdown: jct over its run time alone on its first type. */
static double slowdown_of(const struct eng *e, uint32_t j)
{
    const struct job_end *r = &e->end[j];
    const struct trc_job *tj = &e->tr->jobs[j];
    double iso = (double)tj->duration / eng_iso_rate(e, j);
    return iso > 0 ? (double)(r->finish - tj->submit) / iso : 1;
}

static const char *group_of(const struct eng *e, uint32_t j, bool by_vc)
{
    return by_vc ? e->tr->jobs[j].vc : e->tr->jobs[j].user;
}

static const char *name_at(const void *ctx, uint32_t i)
{
    return ((const char *const *)ctx)[i];
}

struct gname {
    const char *name;
    uint32_t first;             /* its index in order of first job */
};

static int gname_cmp(const void *a, const void *b)
{
    return strcmp(((const struct gname *)a)->name, ((const struct gname *)b)->name);
}

/* Each group's jobs: finished ones by JCT (pass 0) or wait (pass 1), then
 * job; then the others by job -- the order of the sums below, so that
 * their floating-point results stay those of one fixed order.  Groups
 * are found by name through a hash index (O(jobs)), not by sorting every
 * job by its name. */
struct met_group *met_groups(const struct eng *e, bool by_vc, uint32_t *n)
{
    const struct trace *t = e->tr;
    *n = 0;
    if (!(by_vc ? e->any_vc : e->any_user))
        return NULL;
    uint32_t nj = t->njobs, ng = 0;
    uint32_t *gid = xmalloc((nj ? nj : 1) * sizeof *gid);
    const char **names = NULL;
    size_t capn = 0;
    struct dl_names ix = { 0 };
    for (uint32_t j = 0; j < nj; j++) {
        const char *name = group_of(e, j, by_vc);
        uint32_t k = SIM_NONE;
        if (name && (k = dl_names_find(&ix, name, name_at, names)) == SIM_NONE) {
            xgrow(&names, &capn, ng + 1, sizeof *names);
            names[ng] = name;
            dl_names_add(&ix, ng, name_at, names);
            k = ng++;
        }
        gid[j] = k;
    }
    dl_names_free(&ix);
    if (!ng) {
        free(gid);
        free(names);
        return NULL;
    }
    /* the groups by name; each one's jobs, in job order (counting sort) */
    struct gname *by = xmalloc(ng * sizeof *by);
    for (uint32_t k = 0; k < ng; k++)
        by[k] = (struct gname){ names[k], k };
    qsort(by, ng, sizeof *by, gname_cmp);
    uint32_t *rank = xmalloc(ng * sizeof *rank);
    size_t *start = xcalloc((size_t)ng + 1, sizeof *start);
    for (uint32_t k = 0; k < ng; k++)
        rank[by[k].first] = k;
    for (uint32_t j = 0; j < nj; j++)
        if (gid[j] != SIM_NONE)
            start[rank[gid[j]] + 1]++;
    for (uint32_t k = 0; k < ng; k++)
        start[k + 1] += start[k];
    size_t total = start[ng], most = 0;
    for (uint32_t k = 0; k < ng; k++)
        if (start[k + 1] - start[k] > most)
            most = start[k + 1] - start[k];
    uint32_t *jix = xmalloc(total * sizeof *jix);
    {
        size_t *at = xmalloc(((size_t)ng + 1) * sizeof *at);
        memcpy(at, start, ((size_t)ng + 1) * sizeof *at);
        for (uint32_t j = 0; j < nj; j++)
            if (gid[j] != SIM_NONE)
                jix[at[rank[gid[j]]]++] = j;
        free(at);
    }
    free(gid);
    /* scratch for one group at a time */
    struct dl_pair *pairs = xmalloc(2 * most * sizeof *pairs);
    uint32_t *others = xmalloc(most * sizeof *others);
    struct met_group *g = xcalloc(ng, sizeof *g);
    for (uint32_t k = 0; k < ng; k++) {
        g[k].name = by[k].name;
        uint32_t *jobs = jix + start[k];
        size_t m = start[k + 1] - start[k], fin = 0, rest = 0;
        /* the finished first, the others after them in job order */
        for (size_t i = 0; i < m; i++) {
            if (e->state[jobs[i]] == JOB_DONE)
                jobs[fin++] = jobs[i];
            else
                others[rest++] = jobs[i];
        }
        memcpy(jobs + fin, others, rest * sizeof *jobs);
        for (int pass = 0; pass < 2; pass++) {    /* by JCT, then by wait */
            /* stable by value: ties stay in job order */
            for (size_t i = 0; i < fin; i++) {
                const struct job_end *r = &e->end[jobs[i]];
                pairs[i] = (struct dl_pair){
                    (uint64_t)(pass ? r->wait : r->finish - t->jobs[jobs[i]].submit),
                    jobs[i] };
            }
            dl_sort_pairs(pairs, fin, pairs + most);
            for (size_t i = 0; i < fin; i++)
                jobs[i] = pairs[i].val;
            struct met_group *q = &g[k];
            double sum = 0;
            for (size_t i = 0; i < m; i++) {
                uint32_t j = jobs[i];
                const struct job_end *r = &e->end[j];
                const struct trc_job *tj = &t->jobs[j];
                bool done = i < fin;
                if (pass == 0) {
                    q->jobs++;
                    q->gpu_hours += e->gpu_us[j] / SIM_US_PER_S / 3600;
                    if (tj->deadline != SIM_NEVER) {
                        q->qos_jobs++;
                        q->qos_met += done && r->finish <= tj->deadline;
                    }
                    if (done)
                        q->mean_slowdown += slowdown_of(e, j);
                }
                if (done)
                    sum += (double)(pass ? r->wait : r->finish - tj->submit);
            }
            /* nearest rank among the finished */
            double p99 = 0;
            if (fin) {
                size_t rk = (size_t)ceil(0.99 * (double)fin);
                uint32_t j = jobs[(rk < 1 ? 1 : rk) - 1];
                const struct job_end *r = &e->end[j];
                p99 = (double)(pass ? r->wait : r->finish - t->jobs[j].submit) /
                      SIM_US_PER_S;
            }
            if (pass == 0) {
                q->finished = (uint32_t)fin;
                q->avg_jct = fin ? sum / fin / SIM_US_PER_S : 0;
                q->p99_jct = p99;
                q->mean_slowdown = fin ? q->mean_slowdown / fin : 0;
            } else {
                q->avg_wait = fin ? sum / fin / SIM_US_PER_S : 0;
                q->p99_wait = p99;
            }
        }
    }
    *n = ng;
    free(jix);
    free(pairs);
    free(others);
    free(start);
    free(rank);
    free(by);
    free(names);
    return g;
}

/* Jain's index over the users' (by_vc: the VCs') mean slowdowns (those
 * with a finished job) into *jain, and the worst of them into *worst. */
static void fairness(const struct eng *e, bool by_vc, double *jain,
                     double *worst_out)
{
    uint32_t n;
    struct met_group *g = met_groups(e, by_vc, &n);
    double s = 0, s2 = 0, worst = NAN;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!g[i].finished)
            continue;
        double x = g[i].mean_slowdown;
        s += x, s2 += x * x, k++;
        if (!(worst >= x))
            worst = x;
    }
    *jain = k && s2 > 0 ? s * s / (k * s2) : NAN;
    *worst_out = worst;
    free(g);
}

/* The runtime prediction errors the engine recorded at first starts:
 * |log ratio|, non-negative, so their bit patterns order as the values;
 * v holds one per job. */
static void pred_errors(const struct eng *e, struct met_summary *m,
                        uint64_t *v)
{
    uint32_t nj = e->tr->njobs, n = 0;
    for (uint32_t j = 0; j < nj; j++) {
        if (e->state[j] == JOB_FUTURE || e->end[j].first_start == SIM_NEVER)
            continue;           /* never started */
        float p = e->perr ? e->perr[j] : 0;
        if (isnan(p))
            continue;
        double x = fabs((double)p);
        memcpy(&v[n++], &x, sizeof x);
    }
    m->pred_jobs = n;
    double q[2] = { NAN, NAN };
    size_t end = n;
    for (int i = 0; i < 2 && n; i++) {  /* p90, then the median below it */
        size_t k = rank_of(n, i ? 50 : 90);
        uint64_t b = dl_select_u64(v, end, k);
        memcpy(&q[i], &b, sizeof b);
        end = k + 1;
    }
    m->pred_err_p90 = q[0];
    m->pred_err_median = q[1];
}

void met_summarize(const struct eng *e, struct met_summary *m)
{
    const struct trace *t = e->tr;
    size_t n = 0;
    /* the JCTs, then the waits in the same array (selection reorders it) */
    uint64_t *a = xmalloc((t->njobs ? t->njobs : 1) * sizeof *a);
    double sj = 0, sw = 0, si = 0;
    *m = (struct met_summary){ .jobs = t->njobs };
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct job_end *r = &e->end[j];
        const struct trc_job *tj = &t->jobs[j];
        if (tj->deadline != SIM_NEVER) {
            m->qos_jobs++;
            if (e->state[j] == JOB_DONE && r->finish <= tj->deadline)
                m->qos_met++;
        }
        if (e->state[j] == JOB_REJECTED)
            m->rejected++;
        if (e->state[j] != JOB_DONE)
            continue;
        double x = e->interf && e->interf[j] ? e->interf[j] : 1;
        si += x;
        m->colocated_jobs += x > 1;     /* solo_us < run_us */
        a[n] = (uint64_t)(r->finish - tj->submit);
        sj += (double)a[n];
        sw += (double)r->wait;
        n++;
    }
    m->finished = (uint32_t)n;
    double pj[3], pw[2];
    pcts(a, n, (const double[]){ 99, 95, 50 }, 3, pj);
    n = 0;
    for (uint32_t j = 0; j < t->njobs; j++)
        if (e->state[j] == JOB_DONE)
            a[n++] = (uint64_t)e->end[j].wait;
    pcts(a, n, (const double[]){ 99, 50 }, 2, pw);
    m->avg_jct = n ? sj / (double)n / SIM_US_PER_S : 0;
    m->avg_wait = n ? sw / (double)n / SIM_US_PER_S : 0;
    m->p99_jct = pj[0];
    m->p95_jct = pj[1];
    m->p50_jct = pj[2];
    m->p99_wait = pw[0];
    m->p50_wait = pw[1];
    m->makespan = n ? e->last_finish - e->first_submit : 0;
    m->qos_rate = m->qos_jobs ? (double)m->qos_met / m->qos_jobs : 0;
    double denom = (double)e->clu->ngpus * (double)m->makespan;
    m->util_alloc = denom > 0 ? e->alloc_gpu_us / denom : 0;
    m->util_eff = denom > 0 ? e->eff_gpu_us / denom : 0;
    m->util_useful = denom > 0 ? e->useful_gpu_us / denom : 0;
    simtime_t win = t->njobs ? t->jobs[t->njobs - 1].submit - e->first_submit : 0;
    double wdenom = (double)e->clu->ngpus * (double)win;
    m->util_alloc_win = wdenom > 0 ? e->win_alloc_us / wdenom : NAN;
    m->util_eff_win = wdenom > 0 ? e->win_eff_us / wdenom : NAN;
    m->util_useful_win = wdenom > 0 ? e->win_useful_us / wdenom : NAN;
    m->offered_load = e->offered_load;
    m->makespan_floor = floor_of(e);
    fairness(e, false, &m->fairness_jain, &m->worst_user_slowdown);
    fairness(e, true, &m->fairness_jain_vc, &m->worst_vc_slowdown);
    const struct cluster *c = e->clu;
    for (uint32_t j = 0; j < t->njobs; j++) {
        uint32_t ty = eng_last_type(e, j);
        ty = ty != SIM_NONE ? ty : c->ref_type;
        m->jobs_src[mdl_perf_source(e->perf, j, ty)]++;
    }
    m->colocated_frac = e->alloc_gpu_us > 0 ? e->shared_gpu_us / e->alloc_gpu_us : 0;
    m->interference = n ? si / (double)n : 1;
    m->preemptions = e->preemptions;
    m->resizes = e->resizes;
    m->events = e->events;
    pred_errors(e, m, a);
    free(a);
}
