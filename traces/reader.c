/*
 * traces/reader.c - reads a native trace (SPEC section 2) into struct trace.
 *
 * Owns: the loaded trace's job array (malloc'd, freed by trc_free) and its
 * arena, which holds the path, every job id and the interned model,
 * gpu_type and user strings (equal names share one pointer).
 *
 * Pipeline, all in one pass and without a per-field malloc:
 *
 *   dl_in -> growable byte buffer -> records -> fields (split in place)
 *         -> typed job record -> checks -> jobs[] (grown geometrically)
 *
 * The file is read through dl_in (sim/base/base.c), which passes plain text
 * through and inflates gzip (told apart by content, not by name), member
 * after member; bytes after the last member are a warning (rows appended
 * to a .gz file would otherwise be lost silently).  We split lines
 * ourselves instead of using gzgets so that a line up to DL_MAX_LINE
 * bytes fits (the buffer doubles) and an embedded NUL byte is seen and
 * rejected instead of silently cutting a line short; a longer record is
 * an error before it takes more memory, and the whole input may unpack
 * to at most DL_MAX_STREAM bytes.  A record is one line, or several when a
 * double-quoted field (RFC 4180) holds a newline; its reported line is the
 * line it starts on.  Fields are split and unquoted in place ("" -> ") and
 * NUL-terminated inside the buffer, so the number parsers read them there.
 *
 * Invariants of struct rd: 0 <= pos <= len < cap; buf[pos..len) is data not
 * yet consumed; buf[len] is always writable (one spare byte), so the last
 * record can be NUL-terminated even without a trailing newline; len - pos
 * stays within DL_MAX_LINE plus one read.  Once eof is set no more reads
 * happen; failed records whether the stream ended in an error.  A truncated or corrupt gzip stream is reported on the line
 * where the data stops, after every complete line before it was checked.
 *
 * Lenience, chosen for hand-written traces: blank lines and lines starting
 * with '#' are skipped anywhere; spaces and tabs around a field are
 * ignored; CRLF line ends are accepted; a UTF-8 byte order mark before the
 * header is skipped.  Everything else that is not well formed is an error
 * naming file:line, the column and the offending text.
 */
#include "traces/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- columns */

enum col {
    C_JOB_ID, C_SUBMIT, C_GPUS, C_DURATION,          /* required */
    C_MODEL, C_GPU_TYPE, C_DEADLINE, C_UTIL, C_MEM, C_USER, C_PRIORITY,
    C_VC, NCOLS
};
enum { NREQUIRED = C_DURATION + 1 };

static const char *const col_name[NCOLS] = {
    "job_id", "submit_time", "num_gpus", "duration", "model", "gpu_type",
    "deadline", "util", "mem_gb", "user", "priority", "vc",
};

/* ------------------------------------------------------------ line reader */

enum { RD_INIT = 256 * 1024, RD_CHUNK = 1 << 30 };

struct rd {
    struct dl_in *in;
    char *buf;
    size_t cap;         /* bytes allocated */
    size_t pos, len;    /* unread data is buf[pos..len) */
    long line;          /* physical lines consumed so far */
    int eof;            /* dl_in_read said end of stream */
    int failed;         /* ... after an error (dl_in_fail reports it) */
};

/* Reads more input after buf[len]; compacts and grows as needed.  Sets
 * eof (and zerr) at end of stream.  Returns bytes read. */
static size_t rd_fill(struct rd *r)
{
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
    }
    if (r->cap - r->len < RD_INIT / 2) {     /* keep reads large */
        r->cap *= 2;
        r->buf = xrealloc(r->buf, r->cap);
    }
    size_t want = r->cap - 1 - r->len;       /* keep one spare byte */
    if (want > RD_CHUNK)
        want = RD_CHUNK;
    long n = dl_in_read(r->in, r->buf + r->len, want);
    if (n > 0) {
        r->len += (size_t)n;
        return (size_t)n;
    }
    r->eof = 1;
    r->failed = n < 0;
    return 0;
}

/*
 * Next record: *rec points at it inside the buffer, NUL-terminated at
 * rec[*n] (a trailing CR removed), *line is its first line.  Returns 1, 0 at
 * end of input, -1 when the stream ended in an error (dl_in_fail), or -2
 * when the record runs past DL_MAX_LINE bytes (*line is its first line
 * and *n says whether it spans lines).
 * The record stays valid until the next call.
 */
static int rd_record(struct rd *r, char **rec, size_t *n, long *line)
{
    size_t scan = r->pos;       /* where the search for '\n' resumes */
    int inq = 0;                /* inside a quoted field at scan */
    long lines = 0;
    size_t end, next;
    int comment = -1;           /* unknown until the first byte is here */
    for (;;) {
        if (comment < 0 && r->len > r->pos)
            comment = r->buf[r->pos] == '#';
        char *nl = memchr(r->buf + scan, '\n', r->len - scan);
        if (!nl && r->len - r->pos > DL_MAX_LINE) {
            *line = r->line + 1;
            *n = lines > 0;
            return -2;
        }
        if (!nl) {
            if (!r->eof) {
                size_t off = scan - r->pos;
                rd_fill(r);
                scan = r->pos + off;
                continue;
            }
            if (r->failed)
                return -1;
            if (r->pos == r->len)
                return 0;
            end = next = r->len;
            lines++;
            break;
        }
        size_t e = (size_t)(nl - r->buf);
        lines++;
        if (comment <= 0 && memchr(r->buf + scan, '"', e - scan)) {
            for (size_t i = scan; i < e; i++)
                inq ^= r->buf[i] == '"';
        }
        if (!inq) {
            end = e;
            next = e + 1;
            break;
        }
        scan = e + 1;
    }
    *rec = r->buf + r->pos;
    *line = r->line + 1;
    r->line += lines;
    if (end > r->pos && r->buf[end - 1] == '\r')
        end--;
    r->buf[end] = '\0';
    *n = end - r->pos;
    r->pos = next;
    return 1;
}

/* ---------------------------------------------------------------- fields */

struct field {
    char *s;            /* NUL-terminated in the buffer */
    size_t n;
};

struct fields {
    struct field *f;
    size_t cap;
    size_t n;
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Splits rec[0..n) in place into fs.  Returns 0, or -1 with *why and the
 * 1-based column *col of the problem. */
static int split(char *rec, size_t n, struct fields *fs, const char **why,
                 size_t *col)
{
    char *p = rec, *end = rec + n;
    fs->n = 0;
    for (;;) {
        while (p < end && is_blank(*p))
            p++;
        char *s;
        size_t len;
        *col = fs->n + 1;
        if (p < end && *p == '"') {
            char *w = s = ++p;
            for (;;) {
                if (p == end) {
                    *why = "unterminated quoted field";
                    return -1;
                }
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (*p == '\0') {
                    *why = "NUL byte (binary data?)";
                    return -1;
                }
                *w++ = *p++;
            }
            len = (size_t)(w - s);
            while (p < end && is_blank(*p))
                p++;
            if (p < end && *p != ',') {
                *why = "text after a closing quote";
                return -1;
            }
        } else {
            s = p;
            for (; p < end && *p != ','; p++) {
                if (*p == '"') {
                    *why = "stray quote in an unquoted field";
                    return -1;
                }
                if (*p == '\0') {
                    *why = "NUL byte (binary data?)";
                    return -1;
                }
            }
            char *e = p;
            while (e > s && is_blank(e[-1]))
                e--;
            len = (size_t)(e - s);
        }
        xgrow(&fs->f, &fs->cap, fs->n + 1, sizeof *fs->f);
        fs->f[fs->n].s = s;
        fs->f[fs->n].n = len;
        fs->n++;
        int last = p == end;
        s[len] = '\0';          /* at or before p: already scanned */
        if (last)
            return 0;
        p++;                    /* the comma */
    }
}

/* A field's text for a message: at most 40 bytes, unprintables as '?'. */
static const char *show(const struct field *f, char *buf, size_t cap)
{
    size_t n = f->n < 40 ? f->n : 40, i;
    if (n > cap - 4)
        n = cap - 4;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)f->s[i];
        buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (n < f->n)
        buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
    buf[i] = '\0';
    return buf;
}

/* ------------------------------------------------------------- hash sets */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);        /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
    return h ^ (h >> 29);
}

/* Open addressing, linear probing, at most half full.  A slot holds an
 * index + 1 (0 = empty) and the low hash bits to skip most compares. */
struct hslot {
    uint32_t idx1;
    uint32_t hash;
};

struct hset {
    struct hslot *slot;
    size_t mask;        /* capacity - 1; capacity a power of two */
    size_t used;
};

static void hset_init(struct hset *h)
{
    h->mask = 1023;
    h->used = 0;
    h->slot = xcalloc(h->mask + 1, sizeof *h->slot);
}

static void hset_grow(struct hset *h)
{
    size_t ncap = (h->mask + 1) * 2;
    struct hslot *ns = xcalloc(ncap, sizeof *ns);
    /* the stored hash holds only 32 bits: enough up to 2^32 slots.  In
     * blocks, prefetching the targets first (random writes miss cache). */
    for (size_t b = 0; b <= h->mask; b += 32) {
        for (size_t i = b; i < b + 32 && i <= h->mask; i++)
            __builtin_prefetch(&ns[h->slot[i].hash & (ncap - 1)], 1);
        for (size_t i = b; i < b + 32 && i <= h->mask; i++) {
            if (!h->slot[i].idx1)
                continue;
            size_t j = h->slot[i].hash & (ncap - 1);
            while (ns[j].idx1)
                j = (j + 1) & (ncap - 1);
            ns[j] = h->slot[i];
        }
    }
    free(h->slot);
    h->slot = ns;
    h->mask = ncap - 1;
}

/* String interning for the repetitive columns (model, gpu_type, user). */
struct interner {
    struct hset h;
    const char **str;
    size_t cap, n;
};

static const char *intern(struct interner *in, struct arena *a,
                          const char *s, size_t n)
{
    struct hset *h = &in->h;
    if ((h->used + 1) * 2 > h->mask + 1)
        hset_grow(h);
    uint32_t hv = (uint32_t)hash_bytes(s, n);
    size_t j = hv & h->mask;
    for (; h->slot[j].idx1; j = (j + 1) & h->mask) {
        if (h->slot[j].hash != hv)
            continue;
        const char *o = in->str[h->slot[j].idx1 - 1];
        if (!memcmp(o, s, n) && o[n] == '\0')
            return o;
    }
    xgrow(&in->str, &in->cap, in->n + 1, sizeof *in->str);
    in->str[in->n] = arena_strndup(a, s, n);
    h->slot[j].idx1 = (uint32_t)++in->n;
    h->slot[j].hash = hv;
    h->used++;
    return in->str[in->n - 1];
}

/* ---------------------------------------------------------------- loader */

struct loader {
    const char *path;           /* for messages (in the trace's arena) */
    struct trace *t;
    struct dl_error *err;
    struct dl_diag *diag;
    struct rd rd;
    struct fields fs;
    int colidx[NCOLS];          /* header position of each column, or -1 */
    size_t ncols;               /* fields in the header */
    long header_line;
    /* Duplicate ids are found once, by sorting: idkey[i] is job i's id
     * hash << 32 | i (a hash set of millions of ids misses the cache at
     * every insert; a radix sort streams).  Every error path checks the
     * jobs read so far first, so the error reported is still the first
     * one in file order. */
    uint64_t *idkey;            /* xbig_reserve'd */
    struct interner strs;
};

/* The largest time accepted in a trace (see TRC_MAX_TIME in trace.h). */
static int parse_time(const struct field *f, simtime_t *out)
{
    if (sim_parse_seconds(f->s, out) < 0)
        return -1;
    return (*out > TRC_MAX_TIME || *out < -TRC_MAX_TIME) ? -1 : 0;
}

#define BAD(L, ...) dl_fail(ld->err, ld->path, (L), 0, __VA_ARGS__)

static int id_cmp(const void *x, const void *y, void *ctx)
{
    const struct trc_job *jobs = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int c = strcmp(jobs[a].id, jobs[b].id);
    return c ? c : (a > b) - (a < b);
}

/* The first job in file order whose id an earlier job has.  0 or
 * DL_EINPUT (that duplicate, naming the first line of its id). */
static int ids_check(struct loader *ld)
{
    struct trace *t = ld->t;
    uint32_t n = t->njobs, dup = SIM_NONE, first = 0, *run = NULL;
    size_t caprun = 0;
    dl_sort_u64_high(ld->idkey, n, NULL, 32);  /* by hash, stable by index */
    for (uint32_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && ld->idkey[b] >> 32 == ld->idkey[a] >> 32; b++)
            ;
        if (b - a < 2)
            continue;
        /* equal hashes: by id, then index; in each run of equal ids the
         * first is the original, the second the earliest duplicate */
        xgrow(&run, &caprun, b - a, sizeof *run);
        for (uint32_t i = a; i < b; i++)
            run[i - a] = (uint32_t)ld->idkey[i];
        qsort_r(run, b - a, sizeof *run, id_cmp, t->jobs);
        for (uint32_t i = 1; i < b - a; i++)
            if (run[i] < dup && !strcmp(t->jobs[run[i]].id, t->jobs[run[i - 1]].id) &&
                (i < 2 || strcmp(t->jobs[run[i]].id, t->jobs[run[i - 2]].id))) {
                dup = run[i];
                first = run[i - 1];
            }
    }
    free(run);
    if (dup == SIM_NONE)
        return 0;
    char vb[64];
    const char *id = t->jobs[dup].id;
    struct field f = {(char *)id, strlen(id)};
    return BAD(t->jobs[dup].line, "duplicate job_id '%s' (first on line %u)",
               show(&f, vb, sizeof vb), t->jobs[first].line);
}

/* The error of rd_record's r < 0: the stream's (on the line where the
 * data stops), or a record too long (at its first line; spans = it runs
 * over several lines, inside a quoted field). */
static int rd_failure(struct loader *ld, int r, long line, size_t spans)
{
    if (r == -1)
        return dl_in_fail(ld->rd.in, ld->rd.line + 1, 0, ld->err);
    if (spans)
        return BAD(line, "record longer than %zu bytes (a quoted field "
                   "that never ends?)", DL_MAX_LINE);
    return BAD(line, "line longer than %zu bytes", DL_MAX_LINE);
}

static int read_header(struct loader *ld)
{
    char *rec;
    size_t n, col;
    long line;
    const char *why;
    int r;
    for (;;) {
        r = rd_record(&ld->rd, &rec, &n, &line);
        if (r <= 0)
            break;
        if (line == 1 && n >= 3 && !memcmp(rec, "\xef\xbb\xbf", 3)) {
            rec += 3;           /* UTF-8 byte order mark */
            n -= 3;
        }
        size_t i = 0;
        while (i < n && is_blank(rec[i]))
            i++;
        if (i == n || rec[0] == '#')
            continue;
        break;
    }
    if (r < 0)
        return rd_failure(ld, r, line, n);
    if (r == 0)
        return BAD(ld->rd.line + 1 > 1 ? ld->rd.line + 1 : 1,
                   ld->rd.line ? "no header line (only comments or blank lines)"
                               : "empty file: no header line");
    ld->header_line = line;
    if (split(rec, n, &ld->fs, &why, &col) < 0)
        return BAD(line, "header, column %zu: %s", col, why);
    ld->ncols = ld->fs.n;
    for (int k = 0; k < NCOLS; k++)
        ld->colidx[k] = -1;
    char unknown[400];
    size_t ulen = 0, nunknown = 0;
    int elided = 0;
    unknown[0] = '\0';
    for (size_t i = 0; i < ld->fs.n; i++) {
        const struct field *f = &ld->fs.f[i];
        int k;
        for (k = 0; k < NCOLS; k++)
            if (!strcmp(f->s, col_name[k]))
                break;
        if (k < NCOLS) {
            if (ld->colidx[k] >= 0)
                return BAD(line, "duplicate column '%s' (columns %d and %zu)",
                           col_name[k], ld->colidx[k] + 1, i + 1);
            ld->colidx[k] = (int)i;
            continue;
        }
        char vb[64];
        if (ulen < sizeof unknown - 60) {   /* one name takes < 60 bytes */
            int w = snprintf(unknown + ulen, sizeof unknown - ulen, "%s'%s'",
                             nunknown ? ", " : "", show(f, vb, sizeof vb));
            if (w > 0)
                ulen += (size_t)w;
        } else if (!elided) {
            strcat(unknown, ", ...");
            elided = 1;
        }
        nunknown++;
    }
    char missing[200];
    size_t mlen = 0;
    missing[0] = '\0';
    for (int k = 0; k < NREQUIRED; k++)
        if (ld->colidx[k] < 0)
            mlen += (size_t)snprintf(missing + mlen, sizeof missing - mlen,
                                     "%s%s", mlen ? ", " : "", col_name[k]);
    if (mlen)
        return BAD(line, "missing required column%s: %s (the header must "
                   "name job_id, submit_time, num_gpus and duration)",
                   strchr(missing, ',') ? "s" : "", missing);
    if (nunknown)
        dl_warn(ld->diag, "%s:%ld: warning: ignoring %zu unknown column%s: %s",
                ld->path, line, nunknown, nunknown > 1 ? "s" : "", unknown);
    return 0;
}

/* Parses one data record into a new job.  0 or DL_EINPUT. */
static int read_row(struct loader *ld, char *rec, size_t n, long line)
{
    const char *why;
    size_t col;
    char vb[64], tb[32];
    if (split(rec, n, &ld->fs, &why, &col) < 0)
        return BAD(line, "field %zu: %s", col, why);
    if (ld->fs.n != ld->ncols)
        return BAD(line, "row has %zu fields but the header has %zu",
                   ld->fs.n, ld->ncols);
    struct trace *t = ld->t;
    if (t->njobs >= SIM_NONE - 1)
        return BAD(line, "too many jobs (at most %u)", SIM_NONE - 1);
    const struct field *f[NCOLS];
    for (int k = 0; k < NCOLS; k++)
        f[k] = ld->colidx[k] >= 0 ? &ld->fs.f[ld->colidx[k]] : NULL;

    struct trc_job j;
    memset(&j, 0, sizeof j);
    j.deadline = SIM_NEVER;
    j.util = -1.0f;
    j.mem_gb = -1.0f;
    j.line = line > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)line;

    if (!f[C_JOB_ID]->n)
        return BAD(line, "empty job_id");
    if (!f[C_SUBMIT]->n)
        return BAD(line, "empty submit_time");
    if (parse_time(f[C_SUBMIT], &j.submit) < 0)
        return BAD(line, "bad submit_time '%s' (expected seconds, e.g. 12.5)",
                   show(f[C_SUBMIT], vb, sizeof vb));
    if (j.submit < 0)
        return BAD(line, "submit_time must be >= 0, got '%s'",
                   show(f[C_SUBMIT], vb, sizeof vb));
    long v;
    if (!f[C_GPUS]->n)
        return BAD(line, "empty num_gpus");
    if (sim_parse_long(f[C_GPUS]->s, &v) < 0)
        return BAD(line, "bad num_gpus '%s' (expected an integer >= 1)",
                   show(f[C_GPUS], vb, sizeof vb));
    if (v < 1 || v >= (long)SIM_NONE)
        return BAD(line, "num_gpus must be >= 1%s, got '%s'",
                   v < 1 ? "" : " and < 2^32", show(f[C_GPUS], vb, sizeof vb));
    j.num_gpus = (uint32_t)v;
    if (!f[C_DURATION]->n)
        return BAD(line, "empty duration");
    if (parse_time(f[C_DURATION], &j.duration) < 0)
        return BAD(line, "bad duration '%s' (expected seconds, e.g. 3600)",
                   show(f[C_DURATION], vb, sizeof vb));
    if (j.duration <= 0)
        return BAD(line, "duration must be > 0 (at least 1 microsecond), "
                   "got '%s'", show(f[C_DURATION], vb, sizeof vb));
    if (f[C_DEADLINE] && f[C_DEADLINE]->n) {
        if (parse_time(f[C_DEADLINE], &j.deadline) < 0)
            return BAD(line, "bad deadline '%s' (expected absolute seconds)",
                       show(f[C_DEADLINE], vb, sizeof vb));
        if (j.deadline < j.submit) {
            sim_fmt_seconds(tb, sizeof tb, j.submit);
            return BAD(line, "deadline '%s' is before submit_time %s",
                       show(f[C_DEADLINE], vb, sizeof vb), tb);
        }
    }
    double d;
    if (f[C_UTIL] && f[C_UTIL]->n) {
        if (sim_parse_double(f[C_UTIL]->s, &d) < 0 || d < 0 || d > 1)
            return BAD(line, "bad util '%s' (expected a number in 0..1)",
                       show(f[C_UTIL], vb, sizeof vb));
        j.util = (float)d;
    }
    if (f[C_MEM] && f[C_MEM]->n) {
        if (sim_parse_double(f[C_MEM]->s, &d) < 0 || d < 0 ||
            d > DL_MAX_MEM_GB)
            return BAD(line, "bad mem_gb '%s' (expected a number of GB in "
                       "0..%g)", show(f[C_MEM], vb, sizeof vb),
                       DL_MAX_MEM_GB);
        j.mem_gb = (float)d;
    }
    if (f[C_PRIORITY] && f[C_PRIORITY]->n) {
        if (sim_parse_long(f[C_PRIORITY]->s, &v) < 0 || v < INT32_MIN ||
            v > INT32_MAX)
            return BAD(line, "bad priority '%s' (expected an integer)",
                       show(f[C_PRIORITY], vb, sizeof vb));
        j.priority = (int32_t)v;
    }
    if (t->njobs > 0 && j.submit < t->jobs[t->njobs - 1].submit) {
        const struct trc_job *p = &t->jobs[t->njobs - 1];
        sim_fmt_seconds(tb, sizeof tb, p->submit);
        return BAD(line, "unsorted trace: submit_time %s is before %s of "
                   "line %u (rows must be sorted by submit_time)",
                   show(f[C_SUBMIT], vb, sizeof vb), tb, p->line);
    }
    j.id = arena_strndup(t->arena, f[C_JOB_ID]->s, f[C_JOB_ID]->n);
    if (f[C_MODEL] && f[C_MODEL]->n)
        j.model = intern(&ld->strs, t->arena, f[C_MODEL]->s, f[C_MODEL]->n);
    if (f[C_GPU_TYPE] && f[C_GPU_TYPE]->n)
        j.gpu_type = intern(&ld->strs, t->arena, f[C_GPU_TYPE]->s,
                            f[C_GPU_TYPE]->n);
    if (f[C_USER] && f[C_USER]->n)
        j.user = intern(&ld->strs, t->arena, f[C_USER]->s, f[C_USER]->n);
    if (f[C_VC] && f[C_VC]->n)
        j.vc = intern(&ld->strs, t->arena, f[C_VC]->s, f[C_VC]->n);
    xbig_reserve(&t->jobs, ((size_t)t->njobs + 1) * sizeof *t->jobs);
    xbig_reserve(&ld->idkey, ((size_t)t->njobs + 1) * sizeof *ld->idkey);
    ld->idkey[t->njobs] = (uint64_t)(uint32_t)hash_bytes(f[C_JOB_ID]->s,
                                                         f[C_JOB_ID]->n) << 32 |
                          t->njobs;
    t->jobs[t->njobs++] = j;
    return 0;
}

static int load(struct loader *ld)
{
    int r = read_header(ld);
    if (r)
        return r;
    char *rec;
    size_t n;
    long line;
    while ((r = rd_record(&ld->rd, &rec, &n, &line)) > 0) {
        if (rec[0] == '#')
            continue;
        size_t i = 0;
        while (i < n && is_blank(rec[i]))
            i++;
        if (i == n)
            continue;
        int e = read_row(ld, rec, n, line);
        if (e) {
            int d = ids_check(ld);  /* a duplicate on an earlier line wins */
            return d ? d : e;
        }
    }
    int d = ids_check(ld);
    if (d)
        return d;
    if (r < 0)
        return rd_failure(ld, r, line, n);
    if (!ld->t->njobs)
        return BAD(ld->header_line, "no jobs: the header is not followed by "
                   "any row");
    return 0;
}

int trc_load_fd(int fd, const char *name, struct trace *t,
                struct dl_error *err, struct dl_diag *diag)
{
    memset(t, 0, sizeof *t);
    t->arena = arena_new();
    t->path = arena_strndup(t->arena, name, strlen(name));
    struct dl_in *in = dl_in_fdopen(fd, name, DL_MAX_STREAM);

    struct loader ld;
    memset(&ld, 0, sizeof ld);
    ld.path = t->path;
    ld.t = t;
    ld.err = err;
    ld.diag = diag;
    ld.rd.in = in;
    ld.rd.cap = RD_INIT;
    ld.rd.buf = xmalloc(ld.rd.cap);
    hset_init(&ld.strs.h);

    int r = load(&ld);
    uint64_t skipped = dl_in_trailing(in);
    if (!r && skipped)
        dl_warn(diag, "%s: warning: %llu bytes after the last gzip member "
                "are not gzip data and were not read (rows appended to a "
                ".gz file?)", ld.path, (unsigned long long)skipped);

    dl_in_close(in);
    free(ld.rd.buf);
    free(ld.fs.f);
    xbig_free(ld.idkey);
    free(ld.strs.h.slot);
    free(ld.strs.str);
    if (r) {
        trc_free(t);
        return r;
    }
    xbig_trim(&t->jobs, t->njobs * sizeof *t->jobs);   /* the slack */
    return 0;
}

int trc_load(const char *path, struct trace *t, struct dl_error *err,
             struct dl_diag *diag)
{
    int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
                               : dup(STDIN_FILENO);
    if (fd < 0) {
        memset(t, 0, sizeof *t);
        return dl_fail_io(err, path, "cannot open: %s", strerror(errno));
    }
    return trc_load_fd(fd, strcmp(path, "-") ? path : "<stdin>", t, err, diag);
}

void trc_init(struct trace *t, const char *name, uint32_t njobs)
{
    memset(t, 0, sizeof *t);
    t->arena = arena_new();
    t->path = arena_strndup(t->arena, name, strlen(name));
    xbig_reserve(&t->jobs, (njobs ? njobs : 1) * sizeof *t->jobs);
    memset(t->jobs, 0, (njobs ? njobs : 1) * sizeof *t->jobs);
    t->njobs = njobs;
    for (uint32_t i = 0; i < njobs; i++) {
        t->jobs[i].deadline = SIM_NEVER;
        t->jobs[i].util = -1.0f;
        t->jobs[i].mem_gb = -1.0f;
        t->jobs[i].num_gpus = 1;
    }
}

void trc_free(struct trace *t)
{
    xbig_free(t->jobs);
    arena_free(t->arena);
    memset(t, 0, sizeof *t);
}
