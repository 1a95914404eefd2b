/*
 * sim/base/base.h - the bottom layer (libdlsim_base): what every other
 * layer builds on, and nothing else.  Not in this header = not API.
 *
 *   dl_     errors (file:line:col: message, exit codes), warnings of a
 *           command (struct dl_diag), streamed and whole-file input (plain
 *           or gzip), atomic output files, the temporary-file registry,
 *           standard output's check, name indexes, YAML scalars
 *   x*, arena_  memory: abort on exhaustion; run-constant arenas
 *   sim_    exact time (integer microseconds) and strict number parsing
 *
 * The format readers (CSV, JSON, YAML documents) are sim/base/formats.h.
 *
 * Time is an integer count of microseconds on the trace's own clock
 * (simtime_t).  Integer time makes event order exact and reproducible: two
 * events at "the same" second really are at the same instant.  Work is
 * measured in reference-GPU microseconds (a job of duration d seconds has
 * d * 1e6 units of work) and advances at a rate in work units per
 * microsecond, so that a model can change a running job's speed.
 *
 * Failure has three mechanisms (STYLE 9): bad input returns DL_EINPUT and
 * fills a struct dl_error; a broken invariant is a bug and DL_ASSERT aborts
 * with file:line; out of memory aborts in xmalloc.
 */
#ifndef DLSIM_BASE_H
#define DLSIM_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
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
/* The same, not zeroed: for an array its owner writes whole (on as many
 * threads as it likes: a page's first write pays its fault). */
void *xmalloc_big(size_t n, size_t size);
/* A growable array for millions of elements: *p (NULL at first) holds at
 * least need bytes after this, zeroed where never written, kept (never
 * copied) as it grows.  Its own mapping, grown by mremap and, from 4 MiB,
 * advised for huge pages as a whole (advice on part of a realloc'd block
 * splits it and stops mremap; unadvised, a trace of millions of jobs
 * takes a page fault every 4 KiB).  Free with xbig_free. */
void xbig_reserve(void *p, size_t need);
/* Shrinks *p's block to n bytes (its slack given back). */
void xbig_trim(void *p, size_t n);
void xbig_free(void *p);
/* Grow *arr (of *cap elements of size elt) to hold at least need (the
 * test inline: most calls find room, and the hot loops make many);
 * xgrow_more: the growth, for need > *cap. */
void xgrow_more(void *arrp, size_t *cap, size_t need, size_t elt);
static inline void xgrow(void *arrp, size_t *cap, size_t need, size_t elt)
{
    if (need > *cap)
        xgrow_more(arrp, cap, need, elt);
}

/* Ascending LSD radix sorts, 8 bits a pass, skipping the passes where
 * every key has the same byte, through tmp[n] (NULL: allocated here):
 * several times faster than qsort on many keys, and deterministic; up to
 * 32 keys by insertion (stable too), where the counts would cost more. */
void dl_sort_u32(uint32_t *a, size_t n, uint32_t *tmp);
void dl_sort_u64(uint64_t *a, size_t n, uint64_t *tmp);
/* The same by the bits from bit `from` (a multiple of 8) up only: stable,
 * so keys equal there keep their order (a payload in the low bits). */
void dl_sort_u64_high(uint64_t *a, size_t n, uint64_t *tmp, unsigned from);
/* Stable by key (values with equal keys keep their order). */
struct dl_pair {
    uint64_t key;
    uint32_t val;
};
void dl_sort_pairs(struct dl_pair *a, size_t n, struct dl_pair *tmp);
/* The k-th smallest of a[0..n) (k < n, 0-based), leaving it at a[k], the
 * smaller-or-equal before it and the greater-or-equal after it (the rest
 * reordered): quickselect, O(n) on average, falling back to the radix
 * sort of what is left when pivots keep failing, so no input costs more
 * than a sort.  Percentiles of a run need a few ranks, not the order. */
uint64_t dl_select_u64(uint64_t *a, size_t n, size_t k);

/* Limits of every text input (docs/validation.md, Reliability).  A line of a real
 * trace or machine list is under 1 KB and the longest line dlsim writes
 * (a workload file's wrapped table) under 200 bytes; 1 MiB leaves room
 * for long ids and names while a line that never ends (a gzip member
 * unpacking to gigabytes of one line, /dev/zero) is refused after 1 MiB
 * of memory instead of exhausting it. */
#define DL_MAX_LINE ((size_t)1 << 20)
/* The most bytes a streamed input (a native trace, a trace to import) may
 * unpack to: 64 GiB, sixty times the largest public trace (Philly's
 * cluster_job_log, about 1 GB unpacked), so that a gzip bomb of short
 * lines ends in an error rather than hours of reading. */
#ifndef DL_MAX_STREAM
#define DL_MAX_STREAM ((uint64_t)64 << 30)
#endif

/* A streamed input file, plain or gzip told apart by content (gzip when
 * it starts with the magic bytes 1f 8b).  A gzip file may hold several
 * members (as `cat a.gz b.gz` makes); bytes after the last member that do
 * not start another are not data: they are skipped and reported by
 * dl_in_trailing, so that rows appended to a .gz file in plain text are
 * not lost silently.  More than max unpacked bytes is an error. */
struct dl_in;
/* Opens path ("-" = standard input).  NULL with err (DL_EIO) filled. */
struct dl_in *dl_in_open(const char *path, uint64_t max, struct dl_error *err);
/* The same over an open descriptor (taken over; closed by dl_in_close);
 * name is used in messages. */
struct dl_in *dl_in_fdopen(int fd, const char *name, uint64_t max);
/* Up to n bytes into buf: the count (> 0), 0 at the end, or -1 on an
 * error, which dl_in_fail then reports. */
long dl_in_read(struct dl_in *in, void *buf, size_t n);
/* gzip inputs longer than this many unpacked bytes are inflated ahead on a
 * helper thread (default 8 MiB; tests set 0 to exercise it). */
void dl_in_thread_after(uint64_t bytes);
/* Fills err with "name[:line[:col]]: what went wrong" for the error that
 * made dl_in_read return -1 (line 0 = not known, col 0 = no column; an
 * input over its limit is the file's, never a line's).  Returns its code:
 * DL_EINPUT for a truncated or corrupt gzip stream or an input over its
 * limit, DL_EIO for a read error. */
int dl_in_fail(const struct dl_in *in, long line, long col,
               struct dl_error *err);
/* Bytes after the last gzip member that were skipped (0 = none). */
uint64_t dl_in_trailing(const struct dl_in *in);
/* "path: warning: N bytes after the last gzip member are not gzip data
 * and were not read (...)" when there were any: to the diag set with
 * dl_in_set_diag (counted, kept for summary.json, an error under
 * --strict), else to stderr.  The readers that take no struct dl_diag
 * (the CSV and whole-file readers: model files, the cluster file, quota
 * files) warn so.  dl_in_set_diag returns the diag it replaces: a command
 * sets its own around its input loading and puts the previous one back. */
struct dl_diag;
void dl_in_warn_trailing(const char *path, const struct dl_in *in);
struct dl_diag *dl_in_set_diag(struct dl_diag *d);
void dl_in_close(struct dl_in *in);

/* A hash index of names for the caller's entries 0..n-1, each named by
 * name(ctx, i): open addressing, at most half full, optionally ignoring
 * ASCII case (fold).  Zero-initialize; dl_names_add(ix, i, ...) indexes
 * entry i once entries 0..i-1 are (a repeated name stays found as its
 * first entry); dl_names_find gives the first entry named name, or
 * SIM_NONE.  Costs O(1) per call, where a scan made 100,000 GPU types or
 * racks quadratic. */
struct dl_names {
    uint32_t *slot;             /* entry + 1; 0 = empty */
    uint32_t cap;               /* a power of two, or 0 */
    bool fold;
};
typedef const char *(*dl_name_fn)(const void *ctx, uint32_t i);
uint32_t dl_names_find(const struct dl_names *ix, const char *name,
                       dl_name_fn name_of, const void *ctx);
void dl_names_add(struct dl_names *ix, uint32_t i, dl_name_fn name_of,
                  const void *ctx);
void dl_names_free(struct dl_names *ix);

/* Reads a whole input file through dl_in into *buf (malloc'd,
 * NUL-terminated, *len bytes before the NUL).  0; DL_EIO when it cannot be
 * opened or read; DL_EINPUT when it holds more than max bytes, is a
 * corrupt or truncated gzip stream, or (maxline > 0: a text file) holds a
 * NUL byte or a line longer than maxline bytes, named by line and column.
 * Skipped bytes after the last gzip member are a warning on stderr.  On
 * failure *buf is NULL. */
int dl_read_file(const char *path, size_t max, size_t maxline, char **buf,
                 size_t *len, struct dl_error *err);
/* The text checks of dl_read_file over buf[0..len): 0, or DL_EINPUT with
 * "name:line:col: NUL byte ..." or "name:line: line longer than N
 * bytes". */
int dl_text_check(const char *name, const char *buf, size_t len,
                  size_t maxline, struct dl_error *err);

/* YAML input (libyaml's document API), shared by every YAML reader: the
 * cluster file, the model files, workload files and sweep specs.  Nesting
 * deeper than DL_YAML_MAX_DEPTH is refused before the document is built:
 * libyaml's scanner costs O(depth) per token, so 100,000 nested '[' took
 * about a minute to reject.  dlsim's files nest at most 5 deep. */
#define DL_YAML_MAX_DEPTH 64
struct yaml_document_s;         /* libyaml's yaml_document_t */
/* Parses buf[0..len) (name for messages) into *doc, which must hold
 * exactly one document.  0, or DL_EINPUT with file:line:col (a syntax
 * error, too deep, a second document); on failure *doc is not to be
 * deleted. */
int dl_yaml_load(const char *name, const char *buf, size_t len,
                 struct yaml_document_s *doc, struct dl_error *err);
/* Writes s as a YAML scalar that reads back as the same bytes: a double-
 * quoted string (control and non-printable characters escaped, a long
 * string continued over lines by escaped line breaks, continuation lines
 * indented by indent spaces), or, when s is not UTF-8 (YAML holds only
 * Unicode), a !!binary scalar of its bytes in base64. */
void dl_yaml_put_str(FILE *f, const char *s, int indent);
/* A number as the model files write it: %.9g, NaN as null. */
void dl_yaml_put_num(FILE *f, double x);
/* Whether dl_yaml_put_str writes s as one short double-quoted string, so
 * that it may be an implicit mapping key ("name": value); else the key
 * must be written explicitly ("? name" then ": value"), since implicit
 * keys are single-line and at most 1024 characters. */
bool dl_yaml_str_short(const char *s);
/* The bytes of a scalar written by dl_yaml_put_str: value itself, or for
 * tag !!binary its base64 decoded into a (malloc'd) *out.  0, or -1 when
 * the base64 is malformed or decodes to a NUL byte. */
int dl_yaml_bytes(const char *tag, const char *value, char **out);

/* Standard output, checked once for the whole process: dl_stdout_guard
 * (first thing in main) keeps descriptors 0-2 open so that no file the
 * command opens becomes one of them, and makes writes to a closed
 * standard output fail; dl_stdout_finish(rc) (on the way out) flushes it
 * and, when any write failed (a full disk, a closed descriptor), prints
 * "dlsim: cannot write to standard output: REASON" and returns 1 (rc
 * when rc is already a failure). */
/* The directory of the running executable (/proc/self/exe) into buf: 0,
 * or -1 when it cannot be read or does not fit. */
int dl_exe_dir(char *buf, size_t n);
/* dir, an installed executable's directory (PREFIX/BINDIR, BINDIR as meson
 * was configured), cut to PREFIX in place. */
void dl_dir_to_prefix(char *dir);
void dl_stdout_guard(void);
int dl_stdout_finish(int rc);

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
/* Starts a helper thread running fn(arg) with every signal blocked, so
 * that signals (and the temporary-file clean-up below) stay with the
 * thread that was there; false if it cannot (the caller does the work
 * itself). */
bool dl_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);
/* Temporary files are registered while they exist: SIGINT, SIGTERM and
 * SIGHUP (when not caught or ignored by the program) remove this
 * process's registered files, then end it by the same signal.
 * dl_tmp_open and trc_write register theirs and dl_tmp_commit forgets a
 * file it renamed or removed; a caller that renames a file later (after
 * dl_tmp_commit without rename_now) calls dl_tmp_forget once it has.
 * A registered directory (one made for outputs not yet in place) is
 * removed after the files, if it is empty by then.
 * At most DL_TMP_MAX files are registered at once (beyond that a file is
 * simply not removed on a signal). */
#define DL_TMP_MAX 64
void dl_tmp_register(const char *tmp);
void dl_tmp_forget(const char *tmp);
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
char *arena_strndup(struct arena *a, const char *s, size_t n); /* unaligned */
void arena_free(struct arena *a);

/* Exact decimal seconds ("12", "0.5", "1e3", "3.25e-2") -> microseconds,
 * rounded to the nearest microsecond.  Returns 0, or -1 when s is not a
 * finite number or is out of range. */
int sim_parse_seconds(const char *s, simtime_t *out);
/* A sampling interval in seconds: 0 (none) or at least 1 us (the clock's
 * resolution; a smaller positive value would round to 0, silently none). */
int sim_parse_interval(const char *s, simtime_t *out);
/* Microseconds -> shortest exact decimal seconds ("12.5", "3", "-0.25"). */
void sim_fmt_seconds(char *buf, size_t n, simtime_t t);
/* The same into a buffer of at least 32 bytes; returns the length. */
size_t sim_fmt_seconds_raw(char *buf, simtime_t t);
/* The decimal digits of v into buf (at least 20 bytes, no NUL); returns
 * their count. */
size_t dl_fmt_u64(char *buf, uint64_t v);
/* v millionths as a decimal "WHOLE.FFFFFF" into buf (at least 28 bytes, no
 * NUL); trim: the fraction's trailing zeros dropped, and the point with
 * them when none is left.  Returns the length. */
size_t dl_fmt_micro(char *buf, uint64_t v, bool trim);
/* A wall-clock duration for people (progress lines, ETAs): "42s",
 * "3m07s", "2h05m", rounded to the second. */
void sim_fmt_duration(char *buf, size_t n, double seconds);
/* The plural suffix of a count: "" for 1, "s" otherwise ("1 rack",
 * "2 racks"). */
#define DL_PLURAL(n) ((n) == 1 ? "" : "s")
/* The most GPU memory (GB per GPU) any input may state: 10^6, some five
 * thousand times today's largest GPU, so a typo such as 1e23 is refused
 * instead of overflowing a float or passing every fit test. */
#define DL_MAX_MEM_GB 1e6

/* Strict number parsers: the whole string must be a number.  0 or -1.
 * A double is decimal only ([+-] digits [. digits] [e [+-] digits], or
 * starting at the point): no hex floats ("0x1p3"), no "inf" or "nan", no
 * blanks, and finite; every numeric field of every input uses it. */
int sim_parse_double(const char *s, double *out);
int sim_parse_long(const char *s, long *out);
/* The length (1..4) of the UTF-8 character at s and its code point, or 0
 * where s does not start one (a stray byte, overlong, surrogate, past
 * U+10FFFF, cut short by the NUL); reads no further than the NUL. */
int sim_utf8_char(const char *s, uint32_t *cp);

#endif
