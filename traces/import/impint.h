/*
 * traces/import/impint.h - private to the trace importers (traces/import/import.c and
 * traces/imp_*.c); the public entry point is cli_trace_import in
 * traces/trace.h.
 *
 * An importer reads one public trace format and hands each job to the
 * shared machinery (imp_add), which counts what it skips and why.  The
 * machinery then filters by time, sorts by (submit, input order), moves
 * the clock's zero, removes duplicate ids and writes the native trace
 * (import.c).  Importers never sort and never write.
 *
 * Units: every time an importer passes is in microseconds on the input's
 * own clock converted to seconds (wall-clock formats: seconds since
 * 1970-01-01 00:00:00, the trace's local time read as UTC).
 */
#ifndef DLSIM_TRACES_IMPINT_H
#define DLSIM_TRACES_IMPINT_H

#include "traces/import/import.h"
#include "sim/base/formats.h"

/* Why a job of the input was not written, one counter each. */
#define IMP_SKIPS(X)                                                      \
    X(ZERO_GPUS, "no GPUs (CPU-only)")                                    \
    X(BAD_DURATION, "zero, negative or missing duration")                 \
    X(FAILED, "failed, killed or cancelled (--keep-failed keeps them)")   \
    X(UNFINISHED, "not finished (pending, running, or no end time)")      \
    X(NO_TIME, "missing submit time")                                     \
    X(NO_THROUGHPUT, "no throughput for its job type and GPU count")      \
    X(NO_TASKS, "no row in the task table (pai)")                          \
    X(FILTER_VC, "filtered out: virtual cluster")                         \
    X(FILTER_TIME, "filtered out: submit time outside the window")        \
    X(DUP_ID, "duplicate job id (the first is kept)")
enum imp_skip {
#define IMP_ENUM(name, text) IMP_S_##name,
    IMP_SKIPS(IMP_ENUM)
#undef IMP_ENUM
    IMP_NSKIP
};

/* Notes: changes made to kept jobs, reported but not skipped. */
#define IMP_NOTES(X)                                                      \
    X(DEADLINE_DROPPED, "deadline before submit, dropped")                \
    X(FRACTIONAL, "fractional GPU request -> 1 GPU with util = share")   \
    X(ROUNDED_UP, "fractional multi-GPU request rounded up")              \
    X(MULTI_TYPE, "several GPU types allowed -> no type constraint")      \
    X(EXTRAPOLATED, "throughput scaled from a smaller measured gang")
enum imp_note {
#define IMP_ENUM(name, text) IMP_N_##name,
    IMP_NOTES(IMP_ENUM)
#undef IMP_ENUM
    IMP_NNOTE
};

enum imp_unit { IMP_SEC, IMP_MS, IMP_MIN, IMP_HOUR };

/* The largest GPU count of a job an importer takes (num_gpus is below
 * 2^32); a count, or a job's summed fractional requests, above it is bad
 * input. */
#define IMP_MAX_GPUS 4e9


/* What finish() sorts and deduplicates by, filled by imp_add while the
 * record is hot in cache: 16 bytes per job instead of the whole record. */
struct imp_key {
    simtime_t submit;
    uint32_t idx;               /* index in jobs[], i.e. input order */
    uint32_t hash;              /* of the id */
};

struct imp {
    const struct imp_opts *o;
    struct dl_error *err;
    struct arena *arena;        /* strings of kept jobs; becomes the trace's */
    struct trc_job *jobs;       /* kept so far, in input order */
    struct imp_key *keys;       /* [njobs] */
    size_t njobs, cap, kcap;
    uint64_t nread;             /* jobs (rows, objects) read */
    uint64_t file_read0;        /* nread when the current file began */
    uint64_t skip[IMP_NSKIP];
    uint64_t note[IMP_NNOTE];
    void *state;                /* a format's state across files (gavel) */
    const char *id_prefix;      /* "FILE:" before ids when several files
                                 * are merged (NULL: none) */
    const char **files;         /* [nfiles] input paths, for messages */
    size_t *file_first;         /* [nfiles] first job of each in jobs[] */
    size_t nfiles;
    uint32_t *out_file;         /* after finish: file of each kept job */
};

/* imp_read_one counts one job read (a row, an object).  imp_vc_ok is true
 * when vc passes --filter vc=... (always without one; a job with no VC
 * never passes one); otherwise it counts the job as filtered out. */
void imp_read_one(struct imp *m);
bool imp_vc_ok(struct imp *m, const char *vc);
void imp_skip(struct imp *m, enum imp_skip why);
/* Adds a job (strings are copied into the arena).  Skips (and counts) a
 * job with no GPUs or a duration <= 0; num_gpus, duration and submit are
 * taken from j, the rest as given (deadline SIM_NEVER, util/mem_gb < 0 when
 * unknown; line: the job's line in its input file, for messages).  A NULL id becomes the job's place in its input file (1, 2,
 * ...: the jobs read so far, imp_read_one).  Returns true when kept. */
bool imp_add(struct imp *m, const struct trc_job *j);
/* A job with nothing known: zeros, deadline SIM_NEVER, util and mem_gb
 * -1 (unknown). */
void imp_job_init(struct trc_job *j);
const char *imp_str(struct imp *m, const char *s);

/* ------------------------------------------------------------- CSV
 *
 * Every importer reads through the base's CSV reader (dl_csv_,
 * sim/base/formats.h) under these rules: plain or gzip, one record per
 * line, with ',' RFC 4180 quoting (a quoted field holds no line break),
 * blanks around fields trimmed, lines of blanks skipped; with '\t' (TSV)
 * a quote is text.  A missing column's message asks whether the format
 * is right. */
extern const struct dl_csv_opts imp_csv_rules, imp_tsv_rules;

/* ------------------------------------------------------------- values */

/* A time: 0 and *out in us; 1 when missing (empty, None, NaN, null, NA);
 * -1 when malformed or out of range.  Numbers are in unit; a wall-clock
 * date "YYYY-MM-DD[ HH:MM[:SS[.frac]]]" (or a 'T' between) gives seconds
 * since 1970-01-01 read as UTC; wall = 1 forbids numbers, wall = 0 forbids
 * dates, wall = -1 takes either. */
int imp_time(const char *s, enum imp_unit unit, int wall, simtime_t *out);
/* A whole number >= 0 ("3", "3.0"): 0, or -1. */
int imp_count(const char *s, long *out);
/* Fails with "file:line: column NAME: WHY 'value'". */
int imp_bad(struct imp *m, const struct dl_csv *c, const char *col,
            const char *why, const char *val);
/* The file name without directories and without .gz/.csv/.trace/.json
 * extensions, into the arena. */
const char *imp_stem(struct imp *m, const char *path);

/* ------------------------------------------------------------ importers
 * Each reads one input file; 0, DL_EINPUT or DL_EIO. */
int imp_itp(struct imp *m, const char *path);
int imp_elasticflow(struct imp *m, const char *path);
int imp_philly(struct imp *m, const char *path);
int imp_helios(struct imp *m, const char *path);
int imp_tiresias(struct imp *m, const char *path);
int imp_chronus(struct imp *m, const char *path);
int imp_muri(struct imp *m, const char *path);
int imp_philly_json(struct imp *m, const char *path);
int imp_pai(struct imp *m, const char *path);
int imp_openb(struct imp *m, const char *path);
int imp_gavel(struct imp *m, const char *path);
/* Called once before / after all files of gavel (loads the throughputs). */
int imp_gavel_begin(struct imp *m);
void imp_gavel_end(struct imp *m);

#endif
