/*
 * traces/import/import.h - importers of public data (libdlsim_import, a
 * tool above the models layer): `dlsim trace import` of the public traces
 * (import.c, one reader per family in imp_*.c; traces/import/impint.h is
 * their shared context) and `dlsim cluster import` of the published machine
 * lists (cluster.c, which names GPU types through the zoo's alias table and
 * figures).
 */
#ifndef DLSIM_IMPORT_H
#define DLSIM_IMPORT_H

#include "traces/trace.h"

/* What `dlsim trace import` asks for (sim/cli/import.c parses it). */
struct imp_opts {
    const char *format;
    const char **vc;            /* --filter vc=...: kept VCs, or NULL */
    size_t nvc;
    bool has_start, has_end;
    simtime_t start, end;       /* window on the input clock, us */
    bool keep_failed;
    bool epoch_trace;           /* keep the input's clock (else first = 0) */
    int time_unit;              /* enum imp_unit, or -1 = format default */
    const char *tasks;          /* pai: the task table */
    const char *throughputs;    /* gavel: the throughput JSON */
    bool deadline_last;         /* chronus soft jobs: last deadline */
    bool multi_first;           /* openb a|b: first type (else any) */
    bool force;                 /* skip the plausibility checks */
};

/* Converts the public trace in[0..nin) (files, or directories of files
 * where the format takes them) of format o->format to the native trace
 * out, printing the import report (jobs read, kept, skipped per reason) on
 * stderr.  0, or a DL_ code with err (nothing written). */
int trc_import_run(const struct imp_opts *o, char *const *in, size_t nin,
                   const char *out, struct dl_error *err);
/* The formats, one paragraph each (name, summary, where to get it). */
void trc_import_formats(FILE *to);
/* Whether format exists (*known) and the option it needs ("--tasks",
 * "--throughputs") or NULL. */
const char *trc_import_needs(const char *format, bool *known);
/* A --filter time: seconds, or a date YYYY-MM-DD[THH:MM:SS].  0 or -1. */
int trc_import_parse_time(const char *s, simtime_t *t);
/* `dlsim cluster import`: a cluster file (SPEC 3) from a published machine
 * list (traces/import/cluster.c; docs/commands.md: the formats and their figures). */
#define CLU_IMPORT_MAX_MAPS 16
#define CLU_IMPORT_MAX_NODE_GPUS 64    /* a cluster file's limit */
struct clu_import_opts {
    const char *format;         /* pai, openb, spot, philly, tiresias, gavel */
    const char *in;
    const char *out;            /* NULL: the YAML on standard output */
    const char *name, *reference, *select;
    const char *gpu_type;       /* tiresias: its GPUs' type (NULL: V100) */
    const char *maps[CLU_IMPORT_MAX_MAPS];  /* "FROM=TYPE" */
    uint32_t nmaps;
    uint32_t rack_nodes;        /* machines per rack, 0 = as listed */
    unsigned long long node_gpus;   /* gavel: GPUs per node */
};
/* Reads, converts, checks (the result is loaded back) and writes the
 * cluster file; a summary line on stderr.  0, or DL_EINPUT (the input, a
 * --map or --reference that names nothing) / DL_EIO (no model zoo, I/O)
 * with err. */
int clu_import_run(const struct clu_import_opts *o, struct dl_error *err);

#endif
