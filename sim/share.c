/*
 * sim/share.c - the co-location model (prefix shr_): who is on each GPU,
 * the memory and solo utilization they hold there, and the factor at
 * which each job runs given its co-runners (models/perf.h's slowdown
 * model: a job on several GPUs runs at the pace of its slowest).  Kept
 * apart from the event loop (sim/engine.c), which asks it for factors and
 * settles work; this file owns the per-GPU arrays occ, nocc, mem_used,
 * usum, uuse and the running sums shared_gpus, eff_gpus, useful_gpus.
 *
 *   effective: per GPU min(1, sum of the solo utils of its jobs)
 *   useful:    per GPU min(1, sum of solo util x rate / solo rate), each
 *              job's factor as last credited (job_rt.ufac)
 *
 * An emptied GPU's sums are reset to zero, so rounding never drifts.
 */
#include "sim/simint.h"

#include <string.h>

double shr_factor(const struct eng *e, uint32_t j, uint32_t type,
                  const uint32_t *gpus, uint32_t n)
{
    double f = 1;
    const uint32_t *prev = NULL;        /* the last GPU's co-runners */
    uint32_t nprev = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i], c = e->nocc[g];
        const uint32_t *o = eng_gpu_jobs(e, g);
        if (c > 1 || (c == 1 && o[0] != j)) {
            /* a gang beside a gang: the next GPU holds the same jobs,
             * and the model (a function of them) the same factor */
            if (prev && c == nprev && !memcmp(o, prev, c * sizeof *o))
                continue;
            double x = mdl_perf_shared(e->perf, type, j, o, c);
            if (x < f)
                f = x;
            prev = o;
            nprev = c;
        }
    }
    return f;
}

/* GPU g's sum[g] changes by du, and total by the change of its capped
 * contribution min(1, sum[g]) (zero again once the GPU is empty: no
 * drift). */
static inline void capped_update(const struct eng *e, double *sum,
                                 double *total, uint32_t g, double du)
{
    double before = sum[g] < 1 ? sum[g] : 1;
    sum[g] += du;
    if (e->nocc[g] == 0)
        sum[g] = 0;
    double after = sum[g] < 1 ? sum[g] : 1;
    *total += after - before;
}

/* Effective: the GPU's summed solo utilization. */
static inline void eff_update(struct eng *e, uint32_t g, double du)
{
    capped_update(e, e->usum, &e->eff_gpus, g, du);
}

/* Useful: the same, each job at its rate over its solo rate. */
static inline void useful_update(struct eng *e, uint32_t g, double du)
{
    capped_update(e, e->uuse, &e->useful_gpus, g, du);
}

/* Credits running job j's useful work at its current rate over its solo
 * rate on this allocation (rate / base_rate) on each of its GPUs. */
void shr_credit(struct eng *e, uint32_t j)
{
    struct job_rt *r = &e->rt[j];
    double f = r->rate / r->base_rate;
    if (f == r->ufac)
        return;
    double du = mdl_perf_util(e->perf, j, r->type) * (f - r->ufac);
    for (uint32_t i = 0; i < r->ngpus; i++)
        useful_update(e, r->gpus[i], du);
    r->ufac = f;
}

uint32_t shr_join(struct eng *e, uint32_t j, const uint32_t *gpus, uint32_t n,
                  double f)
{
    struct job_rt *r = &e->rt[j];
    uint32_t nfree = 0;
    const struct cluster *c = e->clu;
    uint32_t t = c->nodes[c->gpu_node[gpus[0]]].type;   /* one type */
    double u = mdl_perf_util(e->perf, j, t), mem = e->perf->mem[j];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i];
        if (e->nocc[g] == 0)
            e->scratch[nfree++] = g;
        else if (e->nocc[g] == 1)
            e->shared_gpus++;
        e->occ[(size_t)g * e->max_share + e->nocc[g]++] = j;
        e->mem_used[g] += mem > 0 ? mem : 0;
        eff_update(e, g, u);
        useful_update(e, g, u * f);
    }
    r->ufac = f;
    return nfree;
}

uint32_t shr_leave(struct eng *e, uint32_t j, uint32_t *nshared)
{
    struct job_rt *r = &e->rt[j];
    uint32_t n = r->ngpus, nfree = 0;
    double u = mdl_perf_util(e->perf, j, r->type), mem = e->perf->mem[j];
    *nshared = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = r->gpus[i];
        uint32_t *o = e->occ + (size_t)g * e->max_share, c = e->nocc[g];
        uint32_t k = 0;
        while (o[k] != j)
            k++;
        memmove(o + k, o + k + 1, (c - k - 1) * sizeof *o);
        e->nocc[g] = (uint8_t)--c;
        if (c == 1)
            e->shared_gpus--;
        e->mem_used[g] = c ? e->mem_used[g] - (mem > 0 ? mem : 0) : 0;
        eff_update(e, g, -u);
        useful_update(e, g, -u * r->ufac);
        if (c == 0)
            e->scratch[nfree++] = g;
        else {
            e->clu->gpu_job[g] = o[0];
            (*nshared)++;
        }
    }
    r->ufac = 0;
    return nfree;
}

void shr_neighbours(struct eng *e, const uint32_t *gpus, uint32_t n,
                    uint32_t skip)
{
    e->ntouched = 0;
    /* a job is listed once, in the order first met: marked with this
     * call's number (a gang of thousands of GPUs meets hundreds) */
    if (!e->touch_mark)
        e->touch_mark = xcalloc_big(e->tr->njobs ? e->tr->njobs : 1,
                                    sizeof *e->touch_mark);
    if (++e->touch_cur == 0) {
        memset(e->touch_mark, 0, e->tr->njobs * sizeof *e->touch_mark);
        e->touch_cur = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *o = eng_gpu_jobs(e, gpus[i]);
        for (uint32_t k = 0; k < e->nocc[gpus[i]]; k++) {
            if (o[k] == skip || e->touch_mark[o[k]] == e->touch_cur)
                continue;
            e->touch_mark[o[k]] = e->touch_cur;
            xgrow(&e->touched, &e->captouched, e->ntouched + 1,
                  sizeof *e->touched);
            e->touched[e->ntouched++] = o[k];
        }
    }
}
