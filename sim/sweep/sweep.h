/*
 * sim/sweep/sweep.h - `dlsim sweep` (prefix swp_), private to sim/: the grid
 * spec (sim/sweep/sweep.c) and its execution (sim/sweep/sweeprun.c).
 *
 * A spec is read whole, expanded into a list of runs in grid order, and
 * validated (every trace, cluster and model file loaded, every policy
 * created once) before any output exists.  The loaded inputs stay in the
 * parent process; every run executes in a forked child, which sees them
 * copy-on-write, so nothing is read twice and a crashing run cannot take
 * the sweep down.
 *
 * The output directory DIR (see sim/sweep/sweeprun.c for the protocol):
 *   DIR/sweep.yaml        a byte copy of the spec
 *   DIR/grid.csv          run_id + grid coordinates, one row per run
 *   DIR/sweep.lock        the directory's flock (shard-I-of-N.lock: shards)
 *   DIR/traces/           the generated workloads (struct swp_gen)
 *   DIR/runs/<run_id>/    what `dlsim run --out` writes, or error.txt (a
 *                         deterministic failure) or retry.txt (one of the
 *                         environment, which --resume runs again)
 *   DIR/logs/<run_id>.log the run's stderr (warnings, the failure)
 *   DIR/summary.csv       one row per run, grid order, written last
 */
#ifndef DLSIM_SWPINT_H
#define DLSIM_SWPINT_H

#include "sim/simint.h"
#include "models/perf.h"

/* The axes, in the order of the summary.csv coordinate columns; the grid
 * is their product, the last axis varying fastest. */
enum swp_axis {
    SWP_POLICY, SWP_TRACE, SWP_CLUSTER, SWP_MODELS, SWP_LOAD, SWP_SEED,
    SWP_NAXES,
};
extern const char *const swp_axis_key[SWP_NAXES]; /* "policies", ... */

/* A generated trace of the traces axis: `trace gen` options ({gen: {...}})
 * or `trace gen --like W.yaml` options ({like: W.yaml, ...}); the seed
 * comes from the seeds axis, the load from the loads axis and, for gen,
 * the cluster from the clusters axis.  Each (trace, cluster, load, seed)
 * of gen, and each (trace, seed) of like, is one workload, written once
 * to DIR/traces/ (swp_gen_path) before the runs that read it. */
struct swp_gen {
    bool like;
    char *name;                 /* short name: run ids and file names */
    struct trc_gen_opts o;      /* gen (load, seed set per workload) */
    struct trc_like_opts lo;    /* like (seed set per workload) */
    char *gpus, *duration, *models;     /* owned strings behind o / lo */
    char *wl_path;              /* like: the workload file, resolved */
    struct trc_workload wl;     /* like: loaded by swp_validate */
    bool wl_loaded;
};

/* One distinct value of an axis (values are shared by every scenario
 * that names them, so each file is loaded once). */
struct swp_item {
    char *text;                 /* the coordinate as written in the spec */
    long line, col;             /* where first written, for messages */
    char *path;                 /* traces, clusters: resolved file path
                                   (NULL: generated, or the built-in) */
    struct swp_gen *gen;        /* traces: a generated trace, or NULL */
    double load;                /* loads: > 0, or 0 = the trace's arrivals */
    uint64_t seed;              /* seeds */
    char **args;                /* models: resolved --models arguments */
    uint32_t nargs;
    /* filled by swp_validate */
    struct trace tr;            /* traces */
    struct cluster clu;         /* clusters (the built-in one: path NULL) */
    struct mdl_spec *models;    /* models: NULL = none */
    struct dl_diag *diag;       /* traces: the warnings of loading it,
                                   replayed into every run's (owned) */
    bool loaded;
};

struct swp_scenario {
    char *name;
    long line, col;
    uint32_t *v[SWP_NAXES];     /* item indices, in the order written */
    uint32_t n[SWP_NAXES];
    simtime_t sample;           /* timeseries interval (us) */
    bool check;
    bool strict;                /* spec key strict, or sweep --strict:
                                   every warning fails the run (exit 2) */
};

struct swp_run {
    uint32_t sc;                /* scenario */
    uint32_t ax[SWP_NAXES];     /* item index per axis */
    char id[96];                /* run_id: index + readable part */
};

struct swp_spec {
    char *file;                 /* the spec's path, for messages */
    char *dir;                  /* relative paths resolve against it */
    struct swp_item *items[SWP_NAXES];
    uint32_t nitems[SWP_NAXES];
    size_t cap[SWP_NAXES];
    uint32_t *hidx[SWP_NAXES];  /* intern index: item + 1 by text hash */
    size_t hcap[SWP_NAXES];     /* its size, a power of 2 (0 = none) */
    struct swp_scenario *sc;
    uint32_t nsc;
    struct swp_run *runs;       /* grid order */
    uint32_t nruns;
    const char *outdir;         /* the sweep's DIR, for generated traces
                                   (set before swp_gen_write / swp_exec) */
};

/* Reads and expands a spec: 0, or DL_EINPUT / DL_EIO with err located at
 * file:line:col.  swp_spec_free afterwards in every case. */
int swp_spec_load(const char *path, struct swp_spec *s, struct dl_error *err);
/* Loads every trace, cluster and model file and checks every policy and
 * every (trace, cluster, load, sample) combination a run will use.  0, or
 * DL_EINPUT with err located in the spec (the underlying error is
 * printed to msgs first, when not NULL). */
int swp_validate(struct swp_spec *s, FILE *msgs, struct dl_error *err);
void swp_spec_free(struct swp_spec *s);

/* The file of run i's generated workload, "DIR/traces/NAME...csv.gz"
 * (run i's trace must be generated): into buf. */
void swp_gen_path(const struct swp_spec *s, uint32_t i, char *buf, size_t n);
/* Writes (atomically) each generated workload that the runs todo[0..n)
 * read and DIR/traces/ lacks (saying how many on msgs unless quiet).  0,
 * DL_EINPUT (a seed the generator cannot serve, with the message printed)
 * or DL_EIO. */
int swp_gen_write(struct swp_spec *s, const uint32_t *todo, uint32_t n,
                  FILE *msgs, bool quiet);

/* The coordinates of a run: the 8 leading summary.csv fields, unquoted
 * (run_id, scenario, policy, trace, cluster, models, load, seed). */
#define SWP_NCOORD 8
extern const char *const swp_coord_name[SWP_NCOORD];
void swp_coords(const struct swp_spec *s, uint32_t i, const char *f[SWP_NCOORD]);

/* The exit status of a run process that failed for a reason of its
 * environment (a full disk, an I/O error: EX_TEMPFAIL), not of its
 * inputs: the run is recorded as retryable and --resume runs it again. */
#define SWP_EXIT_RETRY 75

/* Runs run i of a validated spec in the calling process (a forked child)
 * into the directory tmpdir: 0, the exit status of `dlsim run` (1 the run
 * failed, 2 bad input), or SWP_EXIT_RETRY, with the message on stderr. */
int swp_exec(struct swp_spec *s, uint32_t i, const char *tmpdir);


/* What `dlsim sweep` asks for (sim/cli/sweep.c parses the command line). */
struct swp_opts {
    const char *spec;           /* the spec file (NULL with merge) */
    const char *out;            /* DIR, NULL = next to the spec */
    const char *merge;          /* --merge DIR: assemble shards instead */
    long jobs;                  /* worker processes, 0 = one per core */
    bool resume, quiet, strict;
    bool shard;                 /* --shard I/N */
    uint32_t shard_i, shard_n;
};
/* Runs (or resumes, shards, merges) a sweep; progress and failures on
 * stderr.  DL_OK; DL_EINPUT for a bad spec or a refused directory;
 * DL_ECHECK when a run failed or the sweep could not finish. */
int swp_run(const struct swp_opts *o);
/* "I/N" with 0 <= I < N.  0 or -1. */
int swp_parse_shard(const char *s, uint32_t *i, uint32_t *n);

#endif
