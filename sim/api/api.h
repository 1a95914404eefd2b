/*
 * sim/api/api.h - the api layer's interface to the command line above it
 * (prefix api_): one whole `dlsim run` from already-parsed options, so that
 * the command line and libdlsim.so's dlsim_run (sim/api/dlsim.h) share
 * every check and every step; and the foreign-policy shim.
 */
#ifndef DLSIM_API_API_H
#define DLSIM_API_API_H

#include "sim/api/dlsim.h"
#include "sim/sim.h"

/* What a run is made of, as `dlsim run` takes it. */
struct api_run {
    const char *trace;          /* required */
    const char *cluster;        /* NULL = built-in demo-256 */
    const char *out;            /* NULL = no files */
    const char *command;        /* for summary.json, NULL = none */
    double load;                /* 0 = none */
    bool announce;              /* print --load's factor on stderr */
    struct eng_opts o;          /* o.policy the spec; o.pol NULL: parsed
                                   here; o.models NULL or not yet finished */
    const struct dlsim_py *py;  /* a foreign policy, else NULL */
};

/* The run: the policy (a "py:" spec needs py), the models, the cluster,
 * the trace, --load, the provenance, --sample's bound, then sim_run.
 * 0, or a DL_ code with err (DL_ECHECK: the run failed). *factor: --load's
 * gap factor (1 without); *cpu_read (may be NULL): sim_cpu_seconds() once
 * the inputs are read. */
int api_run(const struct api_run *r, struct sim_result *res, double *factor,
            double *cpu_read, struct dl_error *err);
/* Whether a --policy names a foreign (Python) policy: "py:...". */
bool api_is_foreign(const char *spec);
/* The foreign policy the process's dlsim_cli (sim/cli/cli.c) was given,
 * or NULL; api_set_host sets it. */
const struct dlsim_py *api_host(void);
void api_set_host(const struct dlsim_py *py);

/* pyshim.c: the contract's policy for foreign policy py, and its options
 * (placement only). */
void api_shim(const struct dlsim_py *py, struct policy *p, struct pol_args *a);
/* The hooks the next shim create() binds to (api_run sets them). */
void api_shim_creating(const struct dlsim_py *py);

#endif
