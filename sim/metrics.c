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
 */
#include "sim/simint.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double met_percentile(const double *sorted, size_t n, double p)
{
    if (!n)
        return 0;
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

void met_summarize(const struct eng *e, struct met_summary *m)
{
    const struct trace *t = e->tr;
    size_t n = 0;
    double *jct = xmalloc((t->njobs ? t->njobs : 1) * sizeof *jct);
    double *wait = xmalloc((t->njobs ? t->njobs : 1) * sizeof *wait);
    double sj = 0, sw = 0;
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
        jct[n] = (double)(r->finish - tj->submit) / SIM_US_PER_S;
        wait[n] = (double)r->wait / SIM_US_PER_S;
        sj += jct[n];
        sw += wait[n];
        n++;
    }
    m->finished = (uint32_t)n;
    qsort(jct, n, sizeof *jct, cmp_double);
    qsort(wait, n, sizeof *wait, cmp_double);
    m->avg_jct = n ? sj / (double)n : 0;
    m->avg_wait = n ? sw / (double)n : 0;
    m->p50_jct = met_percentile(jct, n, 50);
    m->p95_jct = met_percentile(jct, n, 95);
    m->p99_jct = met_percentile(jct, n, 99);
    m->p50_wait = met_percentile(wait, n, 50);
    m->p99_wait = met_percentile(wait, n, 99);
    m->makespan = n ? e->last_finish - e->first_submit : 0;
    m->qos_rate = m->qos_jobs ? (double)m->qos_met / m->qos_jobs : 0;
    double denom = (double)e->clu->ngpus * (double)m->makespan;
    m->util_alloc = denom > 0 ? e->alloc_gpu_us / denom : 0;
    m->util_eff = denom > 0 ? e->eff_gpu_us / denom : 0;
    m->preemptions = e->preemptions;
    m->events = e->events;
    free(jct);
    free(wait);
}
