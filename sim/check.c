/*
 * sim/check.c - the invariant checker of --check (STYLE 12), apart from
 * the engine it checks: after every instant, everything the engine keeps
 * incrementally is recomputed from scratch and compared.
 *
 *   the cluster's free-GPU index (clu_check); each running job holds
 *   exactly its GPUs and nothing else is held; its remaining work is never
 *   negative and its rate is its solo rate at its slowest GPU's co-location
 *   factor; no GPU holds more jobs than allowed or more memory than it has;
 *   a gang holds 1 to num_gpus GPUs, and one resized (pol_resize) runs at
 *   the runtime model's solo rate for the GPUs it holds now;
 *   the effective and useful utilization each GPU contributes (useful never
 *   above effective); every job is in exactly one state and the counts add
 *   up; the policy's queue holds exactly the queued jobs; time never goes
 *   back.  At the end: every job finished consistently or was rejected.
 *
 * A violation fails the run (eng_fail: exit 1) with what was wrong.
 * Costs O(GPUs + running jobs) an instant, so it is for tests and
 * debugging, not for production sweeps.
 */
#include "sim/simint.h"

#include <math.h>

int eng_check(struct eng *e, simtime_t prev)
{
    char why[256];
    const struct cluster *c = e->clu;
    if (e->now < prev)
        return eng_fail(e, "time went back from %lld", (long long)prev);
    if (clu_check(c, why, sizeof why))
        return eng_fail(e, "cluster: %s", why);
    uint64_t slots = 0;
    for (uint32_t i = 0; i < e->nrunning; i++) {
        uint32_t j = e->running[i];
        const struct job_rt *r = eng_rt(e, j);
        const struct trc_job *tj = &e->tr->jobs[j];
        if (e->state[j] != JOB_RUNNING ||
            e->running_pos[e->rt_slot[j]] != i)
            return eng_fail(e, "job %s is listed running in state %d", tj->id,
                        e->state[j]);
        for (uint32_t k = 0; k < r->ngpus; k++) {
            uint32_t g = r->gpus[k], m = 0;
            while (m < e->nocc[g] && eng_gpu_jobs(e, g)[m] != j)
                m++;
            if (m == e->nocc[g])
                return eng_fail(e, "job %s does not hold its GPU %u", tj->id, g);
        }
        slots += r->ngpus;
        if (r->ngpus < 1 || r->ngpus > tj->num_gpus)
            return eng_fail(e, "job %s holds %u GPUs of its %u", tj->id,
                            r->ngpus, tj->num_gpus);
        /* a resized gang runs at the runtime model's solo rate for the
         * GPUs it holds now (pol_resize) */
        if (r->resizes) {
            bool sp = r->ngpus > 1 && clu_spread(c, r->type, r->gpus, r->ngpus);
            double solo = mdl_perf_rate_n(e->perf, j, r->type, r->ngpus, sp);
            if (r->base_rate != solo)
                return eng_fail(e, "job %s, resized to %u GPUs, runs at solo "
                                "rate %.17g, the model's is %.17g", tj->id,
                                r->ngpus, r->base_rate, solo);
        }
        double w = r->remaining - r->rate * (double)(e->now - r->settled);
        if (!(w >= -1e-6 * (r->rate + 1)) || r->finish_at <= e->now)
            return eng_fail(e, "job %s has negative remaining work %g", tj->id, w);
        /* its rate is its solo rate at its slowest GPU's slowdown */
        double fresh = shr_factor_fresh(e, j, r->type, r->gpus, r->ngpus);
        if (shr_kept_factor(e, j) != fresh)
            return eng_fail(e, "job %s keeps factor %.17g, its co-runners "
                            "allow %.17g", tj->id, shr_kept_factor(e, j), fresh);
        double want = r->base_rate * fresh;
        if (r->rate != want)
            return eng_fail(e, "job %s runs at rate %.17g, its co-runners allow "
                        "%.17g", tj->id, r->rate, want);
    }
    uint64_t held = 0, occupied = 0, shared = 0;
    for (uint32_t g = 0; g < c->ngpus; g++) {
        uint32_t n = e->nocc[g];
        const uint32_t *o = eng_gpu_jobs(e, g);
        occupied += n;
        held += n > 0;
        shared += n > 1;
        if (n > e->max_share || c->gpu_job[g] != (n ? o[0] : SIM_NONE))
            return eng_fail(e, "GPU %u holds %u jobs, or the cluster thinks it "
                        "holds job %u", g, n, c->gpu_job[g]);
        double mem = 0;
        for (uint32_t k = 0; k < n; k++) {
            if (e->state[o[k]] != JOB_RUNNING)
                return eng_fail(e, "GPU %u holds job %s, which is not running", g,
                            e->tr->jobs[o[k]].id);
            double m = mdl_perf_mem(e->perf, o[k]);
            mem += m > 0 ? m : 0;
        }
        double cap = c->types[c->nodes[c->gpu_node[g]].type].memory_gb;
        if (n > 1 && cap > 0 && mem > cap + 1e-6)
            return eng_fail(e, "GPU %u: %g GB of %g GB in use", g, mem, cap);
        /* useful work: each job's solo util at its rate over its solo
         * rate, never above the effective figure */
        double use = 0, eff = 0;
        for (uint32_t k = 0; k < n; k++) {
            const struct job_rt *r = eng_rt(e, o[k]);
            use += mdl_perf_util(e->perf, o[k], r->type) * (r->rate / r->base_rate);
            eff += mdl_perf_util(e->perf, o[k], r->type);
            if (r->ufac != r->rate / r->base_rate)
                return eng_fail(e, "job %s is credited useful factor %.17g at "
                            "rate / solo rate %.17g", e->tr->jobs[o[k]].id,
                            r->ufac, r->rate / r->base_rate);
        }
        if (fabs(use - e->uuse[g]) > 1e-9 * (n + 1) ||
            fabs(eff - e->usum[g]) > 1e-9 * (n + 1) ||
            (use < 1 ? use : 1) > (eff < 1 ? eff : 1) + 1e-12)
            return eng_fail(e, "GPU %u: useful %.17g (kept %.17g), effective "
                        "%.17g (kept %.17g)", g, use, e->uuse[g], eff,
                        e->usum[g]);
    }
    uint64_t free_gpus = 0;
    for (uint32_t t = 0; t < c->ntypes; t++)
        free_gpus += c->types[t].free_gpus;
    if (held + free_gpus != c->ngpus || held != e->busy_gpus ||
        occupied != slots || shared != e->shared_gpus)
        return eng_fail(e, "GPUs over-allocated: %llu held by jobs, %llu free, %u "
                    "in all; %llu job slots for %llu; %llu shared",
                    (unsigned long long)held, (unsigned long long)free_gpus,
                    c->ngpus, (unsigned long long)occupied,
                    (unsigned long long)slots, (unsigned long long)shared);
    if (e->nfuture + e->nqueued + e->nrunning + e->ndone + e->nrejected !=
        e->tr->njobs)
        return eng_fail(e, "job states do not add up to %u jobs", e->tr->njobs);
    if (e->nslots - 1 - e->nfree_slots != e->nqueued + e->nrunning)
        return eng_fail(e, "%u slots of run state in use for %u jobs in the "
                        "system", e->nslots - 1 - e->nfree_slots,
                        e->nqueued + e->nrunning);
    if (e->nfuture != e->tr->njobs - e->next_arrival)
        return eng_fail(e, "%u jobs still to arrive, %u counted",
                    e->tr->njobs - e->next_arrival, e->nfuture);
    if (e->pol->queued && e->pol->queued(e->pst) != e->nqueued)
        return eng_fail(e, "policy %s holds %u queued jobs, engine %u", e->pol->name,
                    e->pol->queued(e->pst), e->nqueued);
    return 0;
}

/* Full per-job state audit (end of run with --check): O(jobs). */
int eng_check_final(struct eng *e)
{
    uint32_t cnt[5] = { 0 };
    for (uint32_t j = 0; j < e->tr->njobs; j++) {
        const struct job_end *r = &e->end[j];
        if (e->state[j] > JOB_REJECTED)
            return eng_fail(e, "job %s in no state", e->tr->jobs[j].id);
        cnt[e->state[j]]++;
        if (e->state[j] == JOB_DONE &&
            (r->finish < r->first_start || r->first_start == SIM_NEVER ||
             r->first_start < e->tr->jobs[j].submit))
            return eng_fail(e, "job %s finished inconsistently", e->tr->jobs[j].id);
    }
    if (cnt[JOB_DONE] != e->ndone || cnt[JOB_REJECTED] != e->nrejected ||
        cnt[JOB_QUEUED] || cnt[JOB_RUNNING] || cnt[JOB_FUTURE])
        return eng_fail(e, "%u jobs left queued, %u running, %u never arrived",
                    cnt[JOB_QUEUED], cnt[JOB_RUNNING], cnt[JOB_FUTURE]);
    return 0;
}

