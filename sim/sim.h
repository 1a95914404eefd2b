/*
 * sim/sim.h - the public interface of dlsim's simulation kernel.
 *
 * Not in this header = not API.  Three layers live behind it:
 *
 *   base   error reporting (dl_), memory (x*, arena_), exact time (sim_)
 *   clu_   the cluster: GPU types, nodes, GPUs, and which job holds each GPU
 *   cfg_   the cluster file (YAML, SPEC section 3) -> struct cluster
 *   eng_   the event loop that replays a trace over a cluster under a policy
 *   met_   metrics and out_ writers (SPEC sections 4 and 5)
 *
 * Time is an integer count of microseconds on the trace's own clock
 * (simtime_t).  Integer time makes event order exact and reproducible: two
 * events at "the same" second really are at the same instant.  Work is
 * measured in reference-GPU microseconds (a job of duration d seconds has
 * d * 1e6 units of work) and advances at a rate in work units per
 * microsecond, so that a later model can change a running job's speed.
 *
 * Failure has three mechanisms (STYLE 9): bad input returns DL_EINPUT and
 * fills a struct dl_error; a broken invariant is a bug and DL_ASSERT aborts
 * with file:line; out of memory aborts in xmalloc.
 */
#ifndef DLSIM_SIM_H
#define DLSIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ base */

typedef int64_t simtime_t;             /* microseconds */
#define SIM_US_PER_S INT64_C(1000000)
#define SIM_NEVER INT64_MAX
/* No event may be scheduled past this (about 73,000 years), so sums of
 * times never overflow. */
#define SIM_TIME_LIMIT (INT64_MAX / 4)
#define SIM_NONE UINT32_MAX            /* "no job", "no node", "no type" */

/* Error codes: one list, so names, messages and values cannot drift. */
#define DL_ERRORS(X)                                  \
    X(OK, 0, "success")                               \
    X(EINPUT, -2, "bad input")                        \
    X(EIO, -3, "input/output error")                  \
    X(ECHECK, -4, "invariant violated")
enum dl_err {
#define DL_ENUM(name, val, msg) DL_##name = val,
    DL_ERRORS(DL_ENUM)
#undef DL_ENUM
};
const char *dl_strerror(int code);

/* A located error: "file:line[:col]: message".  line/col 0 = unknown. */
struct dl_error {
    char file[512];
    long line;
    long col;
    char msg[512];
};
/* Fills err (if non-NULL) and returns DL_EINPUT.  file may be NULL. */
int dl_fail(struct dl_error *err, const char *file, long line, long col,
            const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Same, returning DL_EIO. */
int dl_fail_io(struct dl_error *err, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void dl_error_print(const struct dl_error *err, FILE *to);

/* Exit status of the command line tool for an error code (SPEC 1). */
int dl_exit_status(int code);

/* A bug: print file:line and abort.  Never compiled out. */
#define DL_ASSERT(cond)                                                   \
    ((cond) ? (void)0 : dl_assert_fail(#cond, __FILE__, __LINE__))
_Noreturn void dl_assert_fail(const char *what, const char *file, int line);

/* Memory: these abort on exhaustion, so callers never check. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Zeroed, for big run-long arrays (huge pages where the kernel allows);
 * release with free(). */
void *xcalloc_big(size_t n, size_t size);
/* Grow *arr (of *cap elements of size elt) to hold at least need. */
void xgrow(void *arrp, size_t *cap, size_t need, size_t elt);

/* Reads a whole input file, plain or gzip (told apart by content), into
 * *buf (malloc'd, NUL-terminated, *len bytes before the NUL).  0; DL_EIO
 * when it cannot be opened or read; DL_EINPUT when it holds more than max
 * bytes or is a corrupt or truncated gzip stream.  On failure *buf is
 * NULL. */
int dl_read_file(const char *path, size_t max, char **buf, size_t *len,
                 struct dl_error *err);

/* Size and zlib CRC-32 of a file's bytes as stored (a gzip file's
 * compressed bytes), for provenance.  0 or DL_EIO. */
int dl_file_crc32(const char *path, uint64_t *bytes, uint32_t *crc,
                  struct dl_error *err);

/* Warnings of one command, collected in a context (as SQLite collects
 * parse errors) instead of printed and forgotten: each is echoed as it
 * comes, counted, and the first DL_DIAG_KEEP are kept for summary.json.
 * Under --strict (strict set) the command turns any warning into bad
 * input: it stops before writing an output, with exit status 2.  Library
 * functions take a struct dl_diag * that may be NULL (nothing recorded,
 * nothing printed). */
#define DL_DIAG_KEEP 32
struct dl_diag {
    FILE *echo;                 /* each warning also goes here, or NULL */
    bool strict;
    uint32_t n;                 /* warnings so far */
    uint32_t nkept;
    char *kept[DL_DIAG_KEEP];   /* malloc'd, without the trailing newline */
};
void dl_diag_init(struct dl_diag *d, FILE *echo, bool strict);
void dl_diag_free(struct dl_diag *d);
void dl_warn(struct dl_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Whether a strict command must stop now (strict and n > 0); prints why
 * on to (cmd names the command). */
bool dl_diag_stop(const struct dl_diag *d, const char *cmd, FILE *to);

/* Atomic output files.  dl_tmp_open opens PATH.tmp.PID for writing, its
 * name in *tmp (malloc'd); NULL with err filled (DL_EIO) on failure.
 * dl_tmp_commit closes f and checks every write; with rename_now it
 * renames tmp over path and frees tmp, else the caller renames (and frees)
 * it later, so that several files can appear together.  On failure it
 * removes tmp.  0 or DL_EIO (also when path is not a regular file). */
FILE *dl_tmp_open(const char *path, char **tmp, struct dl_error *err);
/* 0, or DL_EIO when path exists and is not a regular file (a device
 * such as /dev/null, a FIFO, a directory): the rename would replace it,
 * and as root that destroys /dev/null.  dl_tmp_open and trc_write call
 * it; so must any other writer that renames into place. */
int dl_out_check(const char *path, struct dl_error *err);
int dl_tmp_commit(FILE *f, char *tmp, const char *path, bool rename_now,
                  struct dl_error *err);

/* An arena for run-constant data: freed all at once, never piecewise. */
struct arena;
struct arena *arena_new(void);
void *arena_alloc(struct arena *a, size_t n);          /* 8-byte aligned */
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_free(struct arena *a);

/* Exact decimal seconds ("12", "0.5", "1e3", "3.25e-2") -> microseconds,
 * rounded to the nearest microsecond.  Returns 0, or -1 when s is not a
 * finite number or is out of range. */
int sim_parse_seconds(const char *s, simtime_t *out);
/* Microseconds -> shortest exact decimal seconds ("12.5", "3", "-0.25"). */
void sim_fmt_seconds(char *buf, size_t n, simtime_t t);
/* The same into a buffer of at least 32 bytes; returns the length. */
size_t sim_fmt_seconds_raw(char *buf, simtime_t t);
/* Strict number parsers: the whole string must be a number.  0 or -1. */
int sim_parse_double(const char *s, double *out);
int sim_parse_long(const char *s, long *out);
/* The length (1..4) of the UTF-8 character at s and its code point, or 0
 * where s does not start one (a stray byte, overlong, surrogate, past
 * U+10FFFF, cut short by the NUL); reads no further than the NUL. */
int sim_utf8_char(const char *s, uint32_t *cp);

/* --------------------------------------------------------------- cluster */

struct clu_type {
    const char *name;
    double memory_gb;
    double speed;               /* relative to the reference type = 1.0 */
    uint32_t total_gpus;
    uint32_t free_gpus;         /* maintained by clu_alloc/clu_release */
    uint32_t max_node_gpus;     /* GPUs of its largest node */
};

struct clu_node {
    uint32_t type;              /* index into cluster.types */
    uint32_t ngpus;             /* 1..64 */
    uint32_t first_gpu;         /* GPUs first_gpu .. first_gpu+ngpus-1 */
    uint32_t group;             /* index into cluster.groups */
    uint32_t rack;              /* index into cluster.racks */
    uint32_t nfree;
    uint64_t free_mask;         /* bit i set = local GPU i is free */
    /* position in the group's free-count bucket (intrusive list) */
    uint32_t bprev, bnext;
};

/* Nodes of one GPU type and one size, indexed by how many GPUs are free,
 * so that "is there a node with >= k free GPUs" and "best fit" are O(size)
 * rather than O(nodes).  bucket[f] lists nodes with exactly f free GPUs,
 * in ascending node order at load time. */
struct clu_group {
    uint32_t type;
    uint32_t gpus_per_node;
    uint32_t nnodes;
    uint32_t *bucket_head;      /* [gpus_per_node + 1] */
    uint32_t *bucket_count;     /* [gpus_per_node + 1] */
};

struct cluster {
    const char *name;
    const char *path;           /* file it came from, for messages */
    uint32_t ref_type;
    struct clu_type *types;
    uint32_t ntypes;
    struct clu_node *nodes;
    uint32_t nnodes;
    struct clu_group *groups;
    uint32_t ngroups;
    const char **racks;
    uint32_t nracks;
    uint32_t ngpus;
    uint32_t *gpu_node;         /* [ngpus] */
    uint32_t *gpu_job;          /* [ngpus] job holding the GPU, or SIM_NONE */
    uint32_t max_node_gpus;     /* largest node */
    uint32_t *type_order;       /* [ntypes] fastest first, ties by index */
    struct arena *arena;        /* owns the strings; arrays are malloc'd
                                   and freed by clu_free */
    uint32_t *rack_ix;          /* while building: racks by name (open
                                   addressing, rack + 1; 0 = empty), */
    uint32_t rack_ixcap;        /* freed by clu_finish */
};

/* The most GPUs a cluster file may ask for (sim/cfg.c says why); a
 * fuzzing build defines it smaller.  Must stay below SIM_NONE. */
#ifndef CFG_MAX_GPUS
#define CFG_MAX_GPUS (UINT32_C(1) << 24)
#endif

/* Loads a cluster file (SPEC 3).  Returns 0 or DL_EINPUT/DL_EIO with err
 * filled as file:line:col.  On failure *c is left empty. */
int cfg_load_cluster(const char *path, struct cluster *c, struct dl_error *err);
/* The same from a buffer; name is used in messages. */
int cfg_load_cluster_mem(const char *name, const char *buf, size_t len,
                         struct cluster *c, struct dl_error *err);

/* `dlsim cluster import --format F IN [-o OUT]` (sim/cfgimport.c): a
 * cluster file from a public machine list.  argv[0] is "import".
 * Returns the exit status (0; 2 bad usage or input; 1 I/O). */
int cfg_cmd_import(int argc, char **argv);

/* Builders used by cfg_ and by tests that hand-build a cluster. */
void clu_init(struct cluster *c, const char *name);
uint32_t clu_add_type(struct cluster *c, const char *name, double memory_gb,
                      double speed);
uint32_t clu_type_find(const struct cluster *c, const char *name);
/* Adds count nodes of ngpus GPUs each; rack may be NULL. */
void clu_add_nodes(struct cluster *c, uint32_t count, uint32_t ngpus,
                   uint32_t type, const char *rack);
/* Freezes the topology and builds the free-GPU index.  Speeds are divided
 * by the reference type's speed.  Call once after the last add. */
void clu_finish(struct cluster *c);
void clu_free(struct cluster *c);
/* The built-in default cluster of `dlsim demo` and of commands run
 * without --cluster: "demo-256", 24 nodes of 8 V100 and 16 nodes of 4
 * P100 (speed 0.6 of a V100), in two racks. */
void clu_builtin_demo(struct cluster *c);
/* Releases every GPU (start of a run). */
void clu_reset(struct cluster *c);

/* Gives GPUs gpus[0..n) to job; each must be free.  Updates the index. */
void clu_alloc(struct cluster *c, uint32_t job, const uint32_t *gpus, uint32_t n);
void clu_release(struct cluster *c, const uint32_t *gpus, uint32_t n);
/* Index queries. */
uint32_t clu_group_max_free(const struct cluster *c, uint32_t g);
/* First node of group g with exactly f free GPUs, or SIM_NONE; next node. */
uint32_t clu_bucket_first(const struct cluster *c, uint32_t g, uint32_t f);
static inline uint32_t clu_bucket_next(const struct cluster *c, uint32_t node)
{
    return c->nodes[node].bnext;
}
/* Whether gpus[0..n) (sorted, one type t) lie on more nodes than the
 * fewest that can hold n GPUs of t: "spread" for the runtime model. */
bool clu_spread(const struct cluster *c, uint32_t t, const uint32_t *gpus,
                uint32_t n);
/* Recomputes the index from the masks and compares; DL_ECHECK or 0. */
int clu_check(const struct cluster *c, char *why, size_t n);

/* "n3:0-3+n4:0-7" for a sorted GPU list; GPUs not contiguous on one node
 * give one segment each ("n3:0-1+n3:4"), so the text never has a comma. */
void clu_fmt_placement(const struct cluster *c, const uint32_t *gpus,
                       uint32_t n, char *buf, size_t len);

/* ------------------------------------------------------------- placement
 * (sim/placement.c) */

enum plc_mode { PLC_CONSOLIDATED, PLC_POOL };

/* Finds GPUs for a gang of ngpus on one GPU type (req_type, or any type,
 * fastest first).  consolidated: a gang of up to the size of the type's
 * largest node on one node (best fit: the fullest node that still fits;
 * never split over smaller nodes); a larger gang on floor(ngpus/n) wholly
 * free nodes of one size n (the largest that can take it) plus, for the
 * remainder, the best-fitting node of that size.  pool: any free GPUs of the type,
 * taken from the fullest nodes first.  Writes the sorted GPU ids to gpus
 * (may be NULL to only ask) and the type to *type (may be NULL).
 * Returns true when found. */
bool plc_find(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
              enum plc_mode mode, uint32_t *type, uint32_t *gpus);
/* Whether the gang could be placed on the empty cluster. */
bool plc_ever_fits(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
                   enum plc_mode mode);

#endif
