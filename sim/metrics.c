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

/* LSD radix sort of non-negative microsecond counts, 8 bits a pass,
 * skipping the passes where every key has the same byte: several times
 * faster than qsort on a million jobs, and trivially deterministic. */
static void radix_sort(uint64_t *a, size_t n)
{
    uint64_t *tmp = xmalloc((n ? n : 1) * sizeof *tmp), *src = a, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = { 0 };
        for (size_t i = 0; i < n; i++)
            count[((src[i] >> shift) & 0xff) + 1]++;
        if (count[((src[0] >> shift) & 0xff) + 1] == n)
            continue;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(tmp);
}

static double pct_s(const uint64_t *sorted, size_t n, double p)
{
    if (!n)
        return 0;
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    rank = rank < 1 ? 1 : rank > n ? n : rank;
    return (double)sorted[rank - 1] / SIM_US_PER_S;
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
        if (e->rt[j].state != JOB_DONE)
            continue;
        double best = 0;
        for (uint32_t ty = 0; ty < c->ntypes; ty++) {
            if ((e->rt[j].req_type != SIM_NONE && ty != e->rt[j].req_type) ||
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

void met_summarize(const struct eng *e, struct met_summary *m)
{
    const struct trace *t = e->tr;
    size_t n = 0;
    uint64_t *jct = xmalloc((t->njobs ? t->njobs : 1) * sizeof *jct);
    uint64_t *wait = xmalloc((t->njobs ? t->njobs : 1) * sizeof *wait);
    double sj = 0, sw = 0, si = 0;
    *m = (struct met_summary){ .jobs = t->njobs };
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct job_rt *r = &e->rt[j];
        const struct trc_job *tj = &t->jobs[j];
        if (tj->deadline != SIM_NEVER) {
            m->qos_jobs++;
            if (r->state == JOB_DONE && r->finish <= tj->deadline)
                m->qos_met++;
        }
        if (r->state == JOB_REJECTED)
            m->rejected++;
        if (r->state != JOB_DONE)
            continue;
        if (r->solo_us > 0)
            si += r->run_us / r->solo_us;
        else
            si += 1;
        m->colocated_jobs += r->solo_us < r->run_us;
        jct[n] = (uint64_t)(r->finish - tj->submit);
        wait[n] = (uint64_t)r->wait;
        sj += (double)jct[n];
        sw += (double)wait[n];
        n++;
    }
    m->finished = (uint32_t)n;
    radix_sort(jct, n);
    radix_sort(wait, n);
    m->avg_jct = n ? sj / (double)n / SIM_US_PER_S : 0;
    m->avg_wait = n ? sw / (double)n / SIM_US_PER_S : 0;
    m->p50_jct = pct_s(jct, n, 50);
    m->p95_jct = pct_s(jct, n, 95);
    m->p99_jct = pct_s(jct, n, 99);
    m->p50_wait = pct_s(wait, n, 50);
    m->p99_wait = pct_s(wait, n, 99);
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
    const struct cluster *c = e->clu;
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct job_rt *r = &e->rt[j];
        uint32_t ty = r->type != SIM_NONE ? r->type : c->ref_type;
        m->jobs_src[mdl_perf_source(e->perf, j, ty)]++;
    }
    m->colocated_frac = e->alloc_gpu_us > 0 ? e->shared_gpu_us / e->alloc_gpu_us : 0;
    m->interference = n ? si / (double)n : 1;
    m->preemptions = e->preemptions;
    m->events = e->events;
    free(jct);
    free(wait);
}
