/*
 * sim/run.c - one whole run (sim_run): what `dlsim run`, the demo, every
 * sweep run and the Python binding share.  The engine runs the trace; a
 * strict run (--strict: o->diag->strict) stops with DL_EINPUT at the
 * first warning, before the run (the models' fallbacks) or after it (a
 * rejected job); the metrics are computed; the outputs, when asked for,
 * are written with their provenance: jobs.csv while the engine runs
 * (out_stream_start), the rest after it.  Nothing is left unless the run
 * succeeded.
 */
#include "sim/simint.h"

#include <time.h>

/* DL_EINPUT when a strict run has had a warning (its text was echoed). */
static int strict_stop(const struct dl_diag *d, struct dl_error *err)
{
    if (!d || !dl_diag_stop(d, "run", NULL))
        return 0;
    return dl_fail(err, NULL, 0, 0, "dlsim run: --strict: %u warning%s above "
                   "%s an error; nothing written", d->n, d->n == 1 ? "" : "s",
                   d->n == 1 ? "is" : "are");
}

double sim_cpu_seconds(void)
{
    struct timespec c;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    return (double)c.tv_sec + 1e-9 * (double)c.tv_nsec;
}

double sim_wall_seconds(void)
{
    struct timespec c;
    clock_gettime(CLOCK_MONOTONIC, &c);
    return (double)c.tv_sec + 1e-9 * (double)c.tv_nsec;
}

int sim_run(const struct trace *t, struct cluster *c, const struct eng_opts *o,
            const struct out_prov *pv, const char *dir, struct sim_result *res,
            struct dl_error *err)
{
    double c0 = sim_cpu_seconds(), w0 = sim_wall_seconds();
    struct eng *e = eng_new(t, c, o, err);     /* fails on policy options */
    if (!e)
        return DL_EINPUT;
    res->cpu_setup = sim_cpu_seconds() - c0;
    res->wall_setup = sim_wall_seconds() - w0;
    int rc = 0;
    struct out_stream *js = NULL;   /* jobs.csv, written as the run goes */
    if ((rc = strict_stop(o->diag, err)))
        goto out;
    if (dir && (rc = out_stream_start(e, dir, &js, err)))
        goto out;
    e->stream = js && out_stream_threaded(js) ? js : NULL;
    int failed = eng_run(e);
    e->stream = NULL;           /* js is finished or aborted below */
    if (failed) {
        rc = DL_ECHECK;
        dl_fail(err, NULL, 0, 0, "run failed: %s", e->fail_msg);
        goto out;
    }
    if ((rc = strict_stop(o->diag, err)))
        goto out;
    /* jobs.csv's writer may still be formatting rows: it reads the
     * records, the first placements and the models' rates, none of which
     * this gives back (only run states, per-slot arrays, utils, memory) */
    eng_drop_run_state(e);
    res->wall_seconds = e->wall_seconds;
    res->cpu_engine = e->cpu_seconds;
    res->events = e->events;
    c0 = sim_cpu_seconds();
    w0 = sim_wall_seconds();
    if (dir) {
        rc = out_write_run(e, &res->m, js, dir, o->policy, t->path, c->name,
                           pv, err);
        js = NULL;              /* finished and freed */
    } else {
        met_summarize(e, &res->m);
    }
    res->cpu_write = sim_cpu_seconds() - c0;
    res->wall_write = sim_wall_seconds() - w0;
out:
    out_stream_abort(js, dir);  /* a failed run leaves nothing */
    eng_free(e);
    return rc;
}
