/*
 * sim/base/base.c - errors, memory and exact time, shared by every module.
 *
 * The arena hands out 8-byte aligned blocks from 64 KiB chunks (larger
 * requests get a chunk of their own) and frees them all at once.
 *
 * Time parsing is exact: "0.1" becomes 100000 us, not 0.1 * 1e6 rounded
 * through binary floating point, so traces with decimal times schedule
 * identically on every machine.
 */
#include "sim/base/base.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>
#include <yaml.h>
#include <zlib.h>

const char *dl_strerror(int code)
{
    switch (code) {
#define DL_CASE(name, val, msg) case val: return msg;
        DL_ERRORS(DL_CASE)
#undef DL_CASE
    }
    return "unknown error";
}

static void fill(struct dl_error *err, const char *file, long line, long col,
                 const char *fmt, va_list ap)
{
    if (!err)
        return;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

int dl_fail(struct dl_error *err, const char *file, long line, long col,
            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fill(err, file, line, col, fmt, ap);
    va_end(ap);
    return DL_EINPUT;
}

int dl_fail_io(struct dl_error *err, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fill(err, file, 0, 0, fmt, ap);
    va_end(ap);
    return DL_EIO;
}

void dl_error_print(const struct dl_error *err, FILE *to)
{
    if (err->file[0]) {
        fputs(err->file, to);
        if (err->line > 0) {
            fprintf(to, ":%ld", err->line);
            if (err->col > 0)
                fprintf(to, ":%ld", err->col);
        }
        fputs(": ", to);
    }
    fprintf(to, "%s\n", err->msg);
}

int dl_exit_status(int code)
{
    if (code == DL_OK)
        return 0;
    if (code == DL_EINPUT)
        return 2;
    return 1;
}

_Noreturn void dl_assert_fail(const char *what, const char *file, int line)
{
    fflush(stdout);
    fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, what);
    abort();
}

static _Noreturn void oom(size_t n)
{
    fprintf(stderr, "dlsim: out of memory allocating %zu bytes\n", n);
    abort();
}

/* A block of 4 MiB or more is marked for transparent huge pages over its
 * 2 MiB-aligned interior (the pages it has not touched yet come as huge
 * pages): the arrays of a run over millions of jobs (the trace's records,
 * the models' and metrics' per-job arrays) otherwise take a page fault
 * every 4 KiB, which on a virtual machine costs more than the zeroing.
 * Advice only: where the kernel does not give huge pages, nothing
 * changes. */
static void *advise_huge(void *p, size_t n)
{
    size_t huge = (size_t)2 << 20;
    if (n < (size_t)4 << 20)
        return p;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)(huge - 1);
    if (b > a) {
        int e = errno;          /* no trace of a refusal (no THP here) */
        madvise((void *)a, b - a, MADV_HUGEPAGE);
        errno = e;
    }
    return p;
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return advise_huge(p, n);
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return advise_huge(p, n * size);
}

/* Not advised: realloc grows a large block by mremap, which fails on a
 * mapping split in three by advice on its aligned interior, and glibc
 * then copies the block at every growth (2 s of a 10M-job trace's
 * read). */
void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

void *xmalloc_big(size_t n, size_t size)
{
    size_t bytes = n * size;
    if (size && bytes / size != n)
        oom(SIZE_MAX);
    if (bytes < (size_t)4 << 20)
        return xmalloc(bytes);
    /* 2 MiB aligned and marked for transparent huge pages: a run over a
     * million jobs otherwise spends much of its time in page faults */
    size_t huge = (size_t)2 << 20;
    bytes = (bytes + huge - 1) & ~(huge - 1);
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes))
        oom(bytes);
    int e = errno;              /* no trace of a refusal (no THP here) */
    madvise(p, bytes, MADV_HUGEPAGE);
    errno = e;
    return p;
}

void *xcalloc_big(size_t n, size_t size)
{
    void *p = xmalloc_big(n, size);
    memset(p, 0, n * size);
    return p;
}

/* The block's mapping starts BIG_HEAD bytes before it, with the
 * mapping's length there.  Under AddressSanitizer a plain realloc'd block
 * (checked bounds). */
enum { BIG_HEAD = 64 };

#if defined(__SANITIZE_ADDRESS__)
void xbig_reserve(void *p, size_t need)
{
    void **a = p;
    size_t have = *a ? malloc_usable_size(*a) : 0;
    if (*a && need <= have)
        return;
    size_t len = need > 2 * have ? need : 2 * have;     /* geometric */
    *a = xrealloc(*a, len);
    memset((char *)*a + have, 0, len - have);   /* zeroed, as a mapping */
}
#else
static size_t big_len(void *a)
{
    return *(size_t *)((char *)a - BIG_HEAD);
}

void xbig_reserve(void *p, size_t need)
{
    void **a = p;
    size_t page = 4096, old = *a ? big_len(*a) : 0;
    if (need > SIZE_MAX / 2 - BIG_HEAD)
        oom(SIZE_MAX);
    if (*a && need + BIG_HEAD <= old)
        return;
    size_t len = old * 2 > need + BIG_HEAD ? old * 2 : need + BIG_HEAD;
    len = len < ((size_t)64 << 10) ? (size_t)64 << 10 : (len + page - 1) & ~(page - 1);
    char *m;
    if (!*a)
        m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    else
        m = mremap((char *)*a - BIG_HEAD, old, len, MREMAP_MAYMOVE);
    if (m == MAP_FAILED)
        oom(len);
    if (len >= (size_t)4 << 20) {       /* as advise_huge, but the whole */
        int e = errno;                  /* mapping: one VMA for mremap */
        madvise(m, len, MADV_HUGEPAGE);
        errno = e;
    }
    *(size_t *)m = len;
    *a = m + BIG_HEAD;
}
#endif

void xbig_trim(void *p, size_t n)
{
    void **a = p;
    if (!*a)
        return;
#if defined(__SANITIZE_ADDRESS__)
    *a = xrealloc(*a, n);
#else
    size_t page = 4096, old = big_len(*a);
    size_t len = (n + BIG_HEAD + page - 1) & ~(page - 1);
    if (len >= old)
        return;
    char *m = mremap((char *)*a - BIG_HEAD, old, len, 0);
    if (m == MAP_FAILED)
        return;                 /* keeps the slack */
    *(size_t *)m = len;
#endif
}

void xbig_free(void *p)
{
    if (!p)
        return;
#if defined(__SANITIZE_ADDRESS__)
    free(p);
#else
    munmap((char *)p - BIG_HEAD, big_len(p));
#endif
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void xgrow_more(void *arrp, size_t *cap, size_t need, size_t elt)
{
    void **arr = arrp;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    *arr = xrealloc(*arr, c * elt);
    *cap = c;
}

/* ---------------------------------------------------------- name index */

static uint32_t name_hash(const char *s, bool fold)
{
    uint32_t h = 2166136261u;                   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)(fold ? tolower((unsigned char)*s) : *s)) *
            16777619u;
    return h;
}

static bool name_eq(const char *a, const char *b, bool fold)
{
    return fold ? !strcasecmp(a, b) : !strcmp(a, b);
}

uint32_t dl_names_find(const struct dl_names *ix, const char *name,
                       dl_name_fn name_of, const void *ctx)
{
    if (!ix->cap)
        return SIM_NONE;
    uint32_t mask = ix->cap - 1;
    for (uint32_t h = name_hash(name, ix->fold) & mask; ix->slot[h];
         h = (h + 1) & mask)
        if (name_eq(name_of(ctx, ix->slot[h] - 1), name, ix->fold))
            return ix->slot[h] - 1;
    return SIM_NONE;
}

static void names_put(struct dl_names *ix, uint32_t i, const char *name)
{
    uint32_t mask = ix->cap - 1, h = name_hash(name, ix->fold) & mask;
    while (ix->slot[h])
        h = (h + 1) & mask;
    ix->slot[h] = i + 1;
}

void dl_names_add(struct dl_names *ix, uint32_t i, dl_name_fn name_of,
                  const void *ctx)
{
    DL_ASSERT(i < SIM_NONE - 1);
    if (2 * ((size_t)i + 1) > ix->cap) {
        /* in index order, so a repeated name's first entry probes first */
        uint32_t cap = ix->cap ? 2 * ix->cap : 16;
        while (2 * ((size_t)i + 1) > cap)
            cap *= 2;
        free(ix->slot);
        ix->slot = xcalloc(cap, sizeof *ix->slot);
        ix->cap = cap;
        for (uint32_t k = 0; k < i; k++)
            names_put(ix, k, name_of(ctx, k));
    }
    names_put(ix, i, name_of(ctx, i));
}

void dl_names_free(struct dl_names *ix)
{
    free(ix->slot);
    ix->slot = NULL;
    ix->cap = 0;
}

/* --------------------------------------------------------------- input */

enum { IN_RAW = 1 << 16 };
enum { IN_PLAIN = 1, IN_GZIP };
enum { IN_OK, IN_IO, IN_TRUNCATED, IN_CORRUPT, IN_LARGE };

/* A gzip input that goes on past in_thread_after bytes is inflated by a
 * helper thread into IN_NBUF buffers ahead of the reader (inflating is
 * about a third of reading a large trace; parsing overlaps it on a second
 * core).  The helper runs the same code the reader would (in_read_gzip),
 * so the bytes, the errors and where they are seen do not change; small
 * inputs and pipes never start it. */
enum { IN_BUF = 1 << 20, IN_NBUF = 4 };
static uint64_t in_thread_after = 8u << 20;

struct in_pipe {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* a buffer filled, or one freed, or stop */
    char *buf[IN_NBUF];
    size_t len[IN_NBUF];
    long end[IN_NBUF];          /* 1: more follows; else the last buffer,
                                   then what in_read_gzip returned: 0 the
                                   end, -1 a failure (in->fail set) */
    unsigned head, tail;        /* filled: [tail, head), counting up */
    bool stop;                  /* the reader closed early */
    size_t off;                 /* read so far of buf[tail % IN_NBUF] */
};

struct dl_in {
    char *name;                 /* for messages */
    int fd;
    int mode;                   /* 0 until sniffed, IN_PLAIN, IN_GZIP */
    z_stream z;
    bool zinit;
    bool member_done;           /* a gzip member ended at z.next_in */
    bool raw_eof;
    unsigned char *raw;         /* IN_RAW bytes of compressed input */
    size_t plain_pending;       /* plain: sniffed bytes not yet handed out */
    uint64_t total, max;        /* bytes handed out; the limit */
    uint64_t trailing;
    int fail;                   /* IN_* of the error, IN_OK */
    int errnum;
    char zmsg[96];
    bool regular;               /* a regular file: reads never block long */
    struct in_pipe *pipe;       /* the helper, once started; while it
                                   runs, it alone touches the fields
                                   above but total and max */
};

struct dl_in *dl_in_fdopen(int fd, const char *name, uint64_t max)
{
    struct dl_in *in = xcalloc(1, sizeof *in);
    in->name = xstrdup(name);
    in->fd = fd;
    in->max = max;
    in->raw = xmalloc(IN_RAW);
    struct stat st;
    in->regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
    return in;
}

struct dl_in *dl_in_open(const char *path, uint64_t max, struct dl_error *err)
{
    bool std = !strcmp(path, "-");
    int fd = std ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        dl_fail_io(err, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    return dl_in_fdopen(fd, std ? "<stdin>" : path, max);
}

/* Reads more compressed input after the avail_in bytes at next_in (moved
 * to the front).  Sets raw_eof at the end; -1 on a read error. */
static int in_fill(struct dl_in *in)
{
    size_t keep = in->z.avail_in;
    if (keep)
        memmove(in->raw, in->z.next_in, keep);
    in->z.next_in = in->raw;
    for (;;) {
        ssize_t n = read(in->fd, in->raw + keep, IN_RAW - keep);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            in->errnum = errno;
            in->fail = IN_IO;
            return -1;
        }
        if (n == 0)
            in->raw_eof = true;
        in->z.avail_in = (uInt)(keep + (size_t)n);
        return 0;
    }
}

/* Decides plain or gzip from the first two bytes. */
static int in_sniff(struct dl_in *in)
{
    while (in->z.avail_in < 2 && !in->raw_eof)
        if (in_fill(in))
            return -1;
    const unsigned char *b = in->z.next_in;
    if (in->z.avail_in >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        in->mode = IN_GZIP;
        if (inflateInit2(&in->z, 16 + MAX_WBITS) != Z_OK) {
            fprintf(stderr, "dlsim: out of memory in zlib\n");
            abort();
        }
        in->zinit = true;
    } else {
        in->mode = IN_PLAIN;
        in->plain_pending = in->z.avail_in;
    }
    return 0;
}

static long in_read_gzip(struct dl_in *in, void *buf, size_t n)
{
    in->z.next_out = buf;
    in->z.avail_out = (uInt)(n > (1u << 30) ? 1u << 30 : n);
    uInt want = in->z.avail_out;
    while (in->z.avail_out == want) {
        if (in->member_done) {
            /* another member, or the end: zlib's gzread would skip
             * anything else here without a word */
            while (in->z.avail_in < 2 && !in->raw_eof)
                if (in_fill(in))
                    return -1;
            if (!in->z.avail_in)
                return 0;
            if (in->z.avail_in < 2 || in->z.next_in[0] != 0x1f ||
                in->z.next_in[1] != 0x8b) {
                in->trailing += in->z.avail_in;
                in->z.avail_in = 0;
                unsigned char sink[4096];
                ssize_t k;
                while ((k = read(in->fd, sink, sizeof sink)) > 0 ||
                       (k < 0 && errno == EINTR))
                    in->trailing += k > 0 ? (uint64_t)k : 0;
                in->raw_eof = true;
                return 0;
            }
            inflateReset(&in->z);
            in->member_done = false;
        }
        if (!in->z.avail_in && !in->raw_eof && in_fill(in))
            return -1;
        int r = inflate(&in->z, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
            in->member_done = true;
        } else if (r == Z_BUF_ERROR || (r == Z_OK && !in->z.avail_in &&
                                        in->raw_eof &&
                                        in->z.avail_out == want)) {
            if (!in->z.avail_in && in->raw_eof) {
                in->fail = IN_TRUNCATED;
                return -1;
            }
        } else if (r == Z_MEM_ERROR) {
            fprintf(stderr, "dlsim: out of memory in zlib\n");
            abort();
        } else if (r != Z_OK) {
            snprintf(in->zmsg, sizeof in->zmsg, "%s",
                     in->z.msg ? in->z.msg : "bad data");
            in->fail = IN_CORRUPT;
            return -1;
        }
    }
    return (long)(want - in->z.avail_out);
}

void dl_in_thread_after(uint64_t bytes)
{
    in_thread_after = bytes;
}

static void *in_pump(void *arg)
{
    struct dl_in *in = arg;
    struct in_pipe *p = in->pipe;
    for (long more = 1; more == 1;) {
        pthread_mutex_lock(&p->mu);
        while (p->head - p->tail == IN_NBUF && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        bool stop = p->stop;
        unsigned k = p->head % IN_NBUF;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            break;
        /* at least half a buffer at a time, fewer handovers */
        size_t len = 0;
        while (more == 1 && len < IN_BUF / 2) {
            long got = in_read_gzip(in, p->buf[k] + len, IN_BUF - len);
            if (got > 0)
                len += (size_t)got;
            else
                more = got;
        }
        pthread_mutex_lock(&p->mu);
        p->len[k] = len;
        p->end[k] = more;
        p->head++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

bool dl_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    /* signals go to the thread that was there (its handlers remove
     * temporary files): the helper starts with every signal blocked */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0;
}

/* Starts the helper; false (and reading goes on here) if it cannot. */
static bool in_pipe_start(struct dl_in *in)
{
    struct in_pipe *p = xcalloc(1, sizeof *p);
    for (int k = 0; k < IN_NBUF; k++)
        p->buf[k] = xmalloc(IN_BUF);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    in->pipe = p;
    if (dl_thread_start(&p->th, in_pump, in))
        return true;
    in->pipe = NULL;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    for (int k = 0; k < IN_NBUF; k++)
        free(p->buf[k]);
    free(p);
    return false;
}

/* Stops the helper and waits for it; its buffers are dropped. */
static void in_pipe_stop(struct dl_in *in)
{
    struct in_pipe *p = in->pipe;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->th, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    for (int k = 0; k < IN_NBUF; k++)
        free(p->buf[k]);
    free(p);
    in->pipe = NULL;
}

/* dl_in_read from the helper's buffers. */
static long in_pipe_read(struct dl_in *in, void *buf, size_t n)
{
    struct in_pipe *p = in->pipe;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->head == p->tail)
            pthread_cond_wait(&p->cv, &p->mu);
        unsigned k = p->tail % IN_NBUF;
        size_t len = p->len[k];
        long end = p->end[k];
        pthread_mutex_unlock(&p->mu);
        if (p->off < len) {
            size_t c = len - p->off < n ? len - p->off : n;
            memcpy(buf, p->buf[k] + p->off, c);
            p->off += c;
            return (long)c;
        }
        if (end != 1)
            return end;         /* the helper has ended: in->fail is set */
        pthread_mutex_lock(&p->mu);
        p->tail++;
        p->off = 0;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

long dl_in_read(struct dl_in *in, void *buf, size_t n)
{
    if (!in->pipe && in->fail)
        return -1;
    if (!n)
        return 0;
    if (!in->mode && in_sniff(in))
        return -1;
    long got;
    if (in->pipe) {
        got = in_pipe_read(in, buf, n);
    } else if (in->mode == IN_GZIP) {
        got = in_read_gzip(in, buf, n);
        /* not on a pipe: closing early must not wait on its writer */
        if (got > 0 && in->regular &&
            in->total + (uint64_t)got >= in_thread_after &&
            in->total + (uint64_t)got <= in->max)
            in_pipe_start(in);
    } else if (in->plain_pending) {
        size_t k = in->plain_pending < n ? in->plain_pending : n;
        memcpy(buf, in->z.next_in, k);
        in->z.next_in += k;
        in->z.avail_in -= (uInt)k;
        in->plain_pending -= k;
        got = (long)k;
    } else {
        ssize_t r;
        do
            r = read(in->fd, buf, n > (1u << 30) ? 1u << 30 : n);
        while (r < 0 && errno == EINTR);
        if (r < 0) {
            in->errnum = errno;
            in->fail = IN_IO;
        }
        got = r;
    }
    if (got > 0 && (in->total += (uint64_t)got) > in->max) {
        in_pipe_stop(in);       /* what it found beyond is not read */
        in->fail = IN_LARGE;
        return -1;
    }
    return got;
}

int dl_in_fail(const struct dl_in *in, long line, long col,
               struct dl_error *err)
{
    switch (in->fail) {
    case IN_IO:
        return dl_fail_io(err, in->name, "read error%s: %s",
                          line > 0 ? " (at this line)" : "",
                          strerror(in->errnum));
    case IN_TRUNCATED:
        return dl_fail(err, in->name, line, col, "truncated gzip stream "
                       "(unexpected end of file)");
    case IN_CORRUPT:
        return dl_fail(err, in->name, line, col, "corrupt gzip stream (%s)",
                       in->zmsg);
    default:
        return dl_fail(err, in->name, 0, 0, "larger than %llu bytes%s",
                       (unsigned long long)in->max,
                       in->mode == IN_GZIP ? " unpacked" : "");
    }
}

uint64_t dl_in_trailing(const struct dl_in *in)
{
    return in->trailing;
}

/* where readers without a struct dl_diag of their own send warnings */
static struct dl_diag *in_sink;

struct dl_diag *dl_in_set_diag(struct dl_diag *d)
{
    struct dl_diag *prev = in_sink;
    in_sink = d;
    return prev;
}

void dl_in_warn_trailing(const char *path, const struct dl_in *in)
{
    if (!in->trailing)
        return;
    static const char fmt[] = "%s: warning: %llu bytes after the last gzip "
        "member are not gzip data and were not read (rows appended to a "
        ".gz file?)";
    if (in_sink)
        dl_warn(in_sink, fmt, path, (unsigned long long)in->trailing);
    else {
        fprintf(stderr, fmt, path, (unsigned long long)in->trailing);
        fputc('\n', stderr);
    }
}

void dl_in_close(struct dl_in *in)
{
    if (!in)
        return;
    in_pipe_stop(in);
    if (in->zinit)
        inflateEnd(&in->z);
    close(in->fd);
    free(in->raw);
    free(in->name);
    free(in);
}

/* The line and column (from 1) of byte off of buf. */
static void text_place(const char *buf, size_t off, long *line, long *col)
{
    long l = 1;
    size_t bol = 0;
    for (const char *q = buf, *nl; (nl = memchr(q, '\n', off - (size_t)(q - buf)));
         q = nl + 1) {
        l++;
        bol = (size_t)(nl + 1 - buf);
    }
    *line = l;
    *col = (long)(off - bol) + 1;
}

/* Where a text scan stands: bytes scanned, the start of the current
 * line, its number. */
struct textpos {
    size_t scanned, bol;
    long line;
};

/* Scans b[p->scanned..n) for a NUL byte or a line over maxline bytes
 * (the current line may go on past n).  0 or DL_EINPUT. */
static int text_scan(const char *name, const char *b, size_t n,
                     size_t maxline, struct textpos *p, struct dl_error *err)
{
    while (p->scanned < n) {
        const char *s = b + p->scanned;
        size_t left = n - p->scanned;
        const char *nl = memchr(s, '\n', left);
        size_t seg = nl ? (size_t)(nl - s) : left;
        const char *z = memchr(s, '\0', seg);
        if (z)
            return dl_fail(err, name, p->line, (long)((size_t)(z - b) -
                           p->bol) + 1, "NUL byte (not a text file?)");
        if (p->scanned + seg - p->bol > maxline)
            return dl_fail(err, name, p->line, (long)maxline + 1, "line "
                           "longer than %zu "
                           "bytes", maxline);
        if (!nl) {
            p->scanned = n;
            break;
        }
        p->scanned += seg + 1;
        p->bol = p->scanned;
        p->line++;
    }
    return 0;
}

int dl_text_check(const char *name, const char *buf, size_t len,
                  size_t maxline, struct dl_error *err)
{
    struct textpos p = { 0, 0, 1 };
    return text_scan(name, buf, len, maxline, &p, err);
}

int dl_read_file(const char *path, size_t max, size_t maxline, char **buf,
                 size_t *len, struct dl_error *err)
{
    *buf = NULL;
    *len = 0;
    struct dl_in *in = dl_in_open(path, max, err);
    if (!in)
        return DL_EIO;
    size_t cap = 1 << 16, n = 0;
    char *b = xmalloc(cap + 1);
    struct textpos tp = { 0, 0, 1 };
    int rc = 0;
    for (;;) {
        if (n == cap) {
            cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            b = xrealloc(b, cap + 1);
        }
        long r = dl_in_read(in, b + n, cap - n);
        if (r < 0) {
            /* located where the data ended: the next byte was wanted */
            long line, col;
            text_place(b, n, &line, &col);
            rc = dl_in_fail(in, line, col, err);
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        /* text is checked as it arrives, so /dev/zero fails at once */
        if (maxline && (rc = text_scan(path, b, n, maxline, &tp, err)))
            break;
    }
    if (!rc)
        dl_in_warn_trailing(path, in);
    dl_in_close(in);
    if (rc) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int dl_file_crc32(const char *path, uint64_t *bytes, uint32_t *crc,
                  struct dl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return dl_fail_io(err, path, "cannot open: %s", strerror(errno));
    unsigned char buf[1 << 16];
    size_t n;
    uLong c = crc32(0L, Z_NULL, 0);
    *bytes = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        c = crc32(c, buf, (uInt)n);
        *bytes += n;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return dl_fail_io(err, path, "read error");
    *crc = (uint32_t)c;
    return 0;
}

/* ---------------------------------------------------------- warnings */

void dl_diag_init(struct dl_diag *d, FILE *echo, bool strict)
{
    memset(d, 0, sizeof *d);
    d->echo = echo;
    d->strict = strict;
}

void dl_diag_free(struct dl_diag *d)
{
    for (uint32_t i = 0; i < d->nkept; i++)
        free(d->kept[i]);
    memset(d, 0, sizeof *d);
}

void dl_warn(struct dl_diag *d, const char *fmt, ...)
{
    if (!d)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t l = strlen(msg);
    while (l && msg[l - 1] == '\n')
        msg[--l] = 0;
    d->n++;
    if (d->nkept < DL_DIAG_KEEP)
        d->kept[d->nkept++] = xstrdup(msg);
    if (d->echo)
        fprintf(d->echo, "%s\n", msg);
}

bool dl_diag_stop(const struct dl_diag *d, const char *cmd, FILE *to)
{
    if (!d->strict || !d->n)
        return false;
    if (to)
        fprintf(to, "dlsim %s: --strict: %u warning%s above %s an error; "
                "nothing written\n", cmd, d->n, d->n == 1 ? "" : "s",
                d->n == 1 ? "is" : "are");
    return true;
}

int dl_out_check(const char *path, struct dl_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return dl_fail_io(err, path, "not a regular file: outputs are "
                          "written to a temporary file renamed into place, "
                          "which would replace it (give a file name)");
    return 0;
}

/* ------------------------------------------- temporary files, signals
 *
 * The registry is a fixed table so that the signal handler can walk it
 * without locks or allocation: a slot holds a malloc'd path published by
 * one atomic store (NULL = free) and the pid that made it, since a forked
 * child inherits the table but must not remove its parent's files.  The
 * handler only calls getpid, unlink, rmdir, sigaction and raise, which
 * are async-signal-safe. */

static char *volatile tmp_slot[DL_TMP_MAX];
static volatile pid_t tmp_pid[DL_TMP_MAX];
static const int tmp_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void tmp_on_signal(int sig)
{
    int saved = errno;
    pid_t me = getpid();
    bool dirs = false;
    for (int i = 0; i < DL_TMP_MAX; i++) {
        char *p = __atomic_load_n(&tmp_slot[i], __ATOMIC_SEQ_CST);
        if (p && tmp_pid[i] == me && unlink(p) && errno == EISDIR)
            dirs = true;
    }
    /* then the directories, emptied: a pass per level of nesting (rmdir
     * is async-signal-safe too) */
    for (int pass = 0; dirs && pass < 8; pass++)
        for (int i = 0; i < DL_TMP_MAX; i++) {
            char *p = __atomic_load_n(&tmp_slot[i], __ATOMIC_SEQ_CST);
            if (p && tmp_pid[i] == me)
                rmdir(p);
        }
    /* SA_RESETHAND put the default action back: once this handler
     * returns, the signal raised here ends the process as it would have */
    raise(sig);
    errno = saved;
}

/* Installs the handler once, for each signal the program leaves at its
 * default action (a handler of its own, or an ignored signal, stays). */
static void tmp_install(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    for (size_t k = 0; k < sizeof tmp_signals / sizeof *tmp_signals; k++) {
        struct sigaction old, sa;
        if (sigaction(tmp_signals[k], NULL, &old) || old.sa_handler != SIG_DFL
            || (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = tmp_on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof tmp_signals / sizeof *tmp_signals; j++)
            sigaddset(&sa.sa_mask, tmp_signals[j]);
        sa.sa_flags = SA_RESETHAND;
        sigaction(tmp_signals[k], &sa, NULL);
    }
}

void dl_tmp_register(const char *tmp)
{
    tmp_install();
    char *p = xstrdup(tmp);
    pid_t me = getpid();
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < DL_TMP_MAX; i++) {
            if (tmp_slot[i])
                continue;
            tmp_pid[i] = me;
            __atomic_store_n(&tmp_slot[i], p, __ATOMIC_SEQ_CST);
            return;
        }
        /* full: forget files that are gone (renamed by a caller that did
         * not say so) or that belong to another process, then retry */
        for (int i = 0; i < DL_TMP_MAX; i++) {
            char *q = tmp_slot[i];
            if (q && (tmp_pid[i] != me || access(q, F_OK))) {
                __atomic_store_n(&tmp_slot[i], NULL, __ATOMIC_SEQ_CST);
                free(q);
            }
        }
    }
    free(p);                    /* more than DL_TMP_MAX live files */
}

void dl_tmp_forget(const char *tmp)
{
    for (int i = 0; tmp && i < DL_TMP_MAX; i++) {
        char *q = tmp_slot[i];
        if (q && !strcmp(q, tmp)) {
            __atomic_store_n(&tmp_slot[i], NULL, __ATOMIC_SEQ_CST);
            free(q);
            return;
        }
    }
}

FILE *dl_tmp_open(const char *path, char **tmp, struct dl_error *err)
{
    *tmp = NULL;
    if (dl_out_check(path, err))
        return NULL;
    size_t n = strlen(path) + 32;
    *tmp = xmalloc(n);
    snprintf(*tmp, n, "%s.tmp.%ld", path, (long)getpid());
    dl_tmp_register(*tmp);      /* before it exists: no window */
    FILE *f = fopen(*tmp, "w");
    if (!f) {
        dl_tmp_forget(*tmp);
        dl_fail_io(err, path, "cannot create %s: %s", *tmp, strerror(errno));
        free(*tmp);
        *tmp = NULL;
    }
    return f;
}

int dl_tmp_commit(FILE *f, char *tmp, const char *path, bool rename_now,
                    struct dl_error *err)
{
    int bad = ferror(f);
    int e = errno;
    if (fclose(f))
        bad = 1, e = errno;
    if (bad) {
        unlink(tmp);
        dl_tmp_forget(tmp);
        free(tmp);
        return dl_fail_io(err, path, "cannot write: %s", strerror(e));
    }
    if (rename_now && rename(tmp, path)) {
        e = errno;
        unlink(tmp);
        dl_tmp_forget(tmp);
        free(tmp);
        return dl_fail_io(err, path, "cannot rename into place: %s",
                          strerror(e));
    }
    if (rename_now) {
        dl_tmp_forget(tmp);
        free(tmp);
    }
    return 0;
}

/* ---------------------------------------------------------------- arena */

struct chunk {
    struct chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

struct arena {
    struct chunk *head;
    size_t total;               /* bytes of all chunks so far */
};

/* Chunks start at 64 KiB and grow with the arena to 16 MiB: the strings of
 * a 10M-job trace (its ids) fill 100 MB, which in 64 KiB chunks took a
 * 4 KiB page fault each 4 KiB; chunks of 4 MiB and more come as huge
 * pages (xmalloc), and at most one chunk's tail is left unused. */
enum { CHUNK = 64 * 1024, CHUNK_MAX = 16 << 20 };

struct arena *arena_new(void)
{
    return xcalloc(1, sizeof(struct arena));
}

static void *arena_take(struct arena *a, size_t n, size_t align)
{
    struct chunk *c = a->head;
    size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || at > c->size || c->size - at < n) {
        size_t grow = a->total < CHUNK ? CHUNK
                    : a->total < CHUNK_MAX ? a->total : CHUNK_MAX;
        size_t size = n > grow / 4 ? n : grow;
        struct chunk *nc = xmalloc(sizeof *nc + size);
        nc->used = 0;
        nc->size = size;
        a->total += size;
        if (size == n && c) {        /* big block: keep the current chunk */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
        at = 0;
    }
    c->used = at + n;
    return c->data + at;
}

void *arena_alloc(struct arena *a, size_t n)
{
    return arena_take(a, n, 8);
}

/* Strings need no alignment: an 8-character id takes 9 bytes, not 16. */
char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_take(a, n + 1, 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void arena_free(struct arena *a)
{
    if (!a)
        return;
    for (struct chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

/* ----------------------------------------------------------------- time */

/* The common form, [+-]digits[.digits] with at most 18 digits in all and
 * nothing after: in 64 bits, the same value as the general path below.
 * 1 when it does not apply. */
static int parse_seconds_short(const char *p, simtime_t *out)
{
    static const uint64_t pow10[] = {
        1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
        1000000000, 10000000000ull, 100000000000ull, 1000000000000ull,
    };
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    uint64_t mant = 0;
    int digits = 0, frac = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        mant = mant * 10 + (uint64_t)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++, frac++)
            mant = mant * 10 + (uint64_t)(*p - '0');
    if (*p || !digits || digits > 18 || frac > 12)
        return 1;
    uint64_t v;
    if (frac <= 6) {
        if (digits - frac + 6 > 18)     /* could pass 2^63: the general */
            return 1;
        v = mant * pow10[6 - frac];
    } else {
        uint64_t div = pow10[frac - 6];
        v = mant / div + (mant % div * 2 >= div);  /* half away from 0 */
    }
    *out = neg ? -(simtime_t)v : (simtime_t)v;
    return 0;
}

int sim_parse_seconds(const char *s, simtime_t *out)
{
    /* sign, digits, optional fraction, optional exponent; exact in us */
    const char *p = s;
    int neg = 0;
    int r = parse_seconds_short(s, out);
    if (r <= 0)
        return r;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    __int128 mant = 0;
    int scale = 0, digits = 0;
    for (; isdigit((unsigned char)*p); p++, digits++) {
        if (mant < ((__int128)1 << 100))
            mant = mant * 10 + (*p - '0');
        else
            scale++;
    }
    if (*p == '.') {
        p++;
        for (; isdigit((unsigned char)*p); p++, digits++) {
            if (mant < ((__int128)1 << 100)) {
                mant = mant * 10 + (*p - '0');
                scale--;
            }
        }
    }
    if (!digits)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        int eneg = 0;
        long e = 0;
        if (*p == '+' || *p == '-')
            eneg = *p++ == '-';
        if (!isdigit((unsigned char)*p))
            return -1;
        for (; isdigit((unsigned char)*p); p++)
            if (e < 100000)
                e = e * 10 + (*p - '0');
        scale += eneg ? -(int)e : (int)e;
    }
    if (*p)
        return -1;
    scale += 6; /* seconds -> microseconds */
    if (mant == 0) {
        *out = 0;
        return 0;
    }
    for (; scale > 0; scale--) {
        mant *= 10;
        if (mant > INT64_MAX)
            return -1;
    }
    __int128 rem = 0, div = 1;
    for (; scale < 0; scale++) {
        if (div > ((__int128)1 << 110)) {   /* far below 1 us */
            *out = 0;
            return 0;
        }
        div *= 10;
    }
    rem = mant % div;
    mant /= div;
    if (rem * 2 >= div)     /* round half away from zero */
        mant++;
    if (mant > INT64_MAX)
        return -1;
    *out = neg ? -(simtime_t)mant : (simtime_t)mant;
    return 0;
}

/* "00".."99", two digits at a time for the writers below */
static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes the decimal digits of v backwards ending at end; returns start.
 * Below 2^32 (nearly every value written) in 32-bit arithmetic. */
static char *udigits(char *end, uint64_t v)
{
    while (v > UINT32_MAX) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--end = digits2[d + 1];
        *--end = digits2[d];
    }
    uint32_t w = (uint32_t)v;
    while (w >= 100) {
        unsigned d = w % 100 * 2;
        w /= 100;
        *--end = digits2[d + 1];
        *--end = digits2[d];
    }
    if (w >= 10) {
        *--end = digits2[w * 2 + 1];
        *--end = digits2[w * 2];
    } else {
        *--end = (char)('0' + w);
    }
    return end;
}

/* How many decimal digits v has (one for 0). */
static inline size_t ndigits(uint64_t v)
{
    size_t n = 1;
    for (;;) {
        if (v < 10)
            return n;
        if (v < 100)
            return n + 1;
        if (v < 1000)
            return n + 2;
        if (v < 10000)
            return n + 3;
        v /= 10000;
        n += 4;
    }
}

/* Both writers below put the digits straight into buf, counted first (a
 * copy from a scratch buffer is a call to memcpy of a length the compiler
 * cannot know: more than the digits cost). */
size_t dl_fmt_u64(char *buf, uint64_t v)
{
    size_t n = ndigits(v);
    udigits(buf + n, v);
    return n;
}

static inline size_t fmt_micro(char *buf, uint64_t v, bool trim)
{
    uint64_t whole = v / SIM_US_PER_S;
    unsigned f = (unsigned)(v % SIM_US_PER_S);
    char *p = buf + ndigits(whole);
    udigits(p, whole);
    if (trim && !f)
        return (size_t)(p - buf);
    *p++ = '.';
    memcpy(p, digits2 + f / 10000 * 2, 2);
    memcpy(p + 2, digits2 + f / 100 % 100 * 2, 2);
    memcpy(p + 4, digits2 + f % 100 * 2, 2);
    size_t digits = 6;
    while (trim && p[digits - 1] == '0')
        digits--;
    return (size_t)(p + digits - buf);
}

size_t dl_fmt_micro(char *buf, uint64_t v, bool trim)
{
    return fmt_micro(buf, v, trim);
}

size_t sim_fmt_seconds_raw(char *buf, simtime_t t)
{
    /* hand-rolled: this runs a few million times per output file */
    uint64_t a = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
    size_t n = 0;
    if (t < 0)
        buf[n++] = '-';
    n += fmt_micro(buf + n, a, true);
    buf[n] = 0;
    return n;
}

void sim_fmt_seconds(char *buf, size_t n, simtime_t t)
{
    char tmp[32];
    sim_fmt_seconds_raw(tmp, t);
    snprintf(buf, n, "%s", tmp);
}

void sim_fmt_duration(char *buf, size_t n, double seconds)
{
    long v = seconds > 0 ? (long)(seconds + 0.5) : 0;
    if (v >= 3600)
        snprintf(buf, n, "%ldh%02ldm", v / 3600, v / 60 % 60);
    else if (v >= 60)
        snprintf(buf, n, "%ldm%02lds", v / 60, v % 60);
    else
        snprintf(buf, n, "%lds", v);
}

/* Whether s is a decimal number: [+-] then digits with an optional
 * fraction (at least one digit on either side of the point), then an
 * optional exponent.  strtod alone would also take "0x1p3", "inf",
 * "nan(...)" and leading blanks. */
static bool decimal_syntax(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    size_t whole = strspn(p, "0123456789");
    p += whole;
    size_t frac = 0;
    if (*p == '.') {
        frac = strspn(++p, "0123456789");
        p += frac;
    }
    if (!whole && !frac)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        size_t e = strspn(p, "0123456789");
        if (!e)
            return false;
        p += e;
    }
    return !*p;
}

int sim_parse_double(const char *s, double *out)
{
    char *end;
    if (!decimal_syntax(s))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int sim_utf8_char(const char *str, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!n || s[0] > 0xf4)
        return 0;
    uint32_t c = s[0] & (0x7fu >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3fu);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

int sim_parse_long(const char *s, long *out)
{
    char *end;
    if (!*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* ----------------------------------------------------------------- YAML */

/* A libyaml parser error as file:line:col (a reader error, such as bytes
 * that are not UTF-8, has an offset instead of a mark). */
static int yaml_syntax(const char *name, const yaml_parser_t *p,
                       const char *buf, size_t len, struct dl_error *err)
{
    if (p->error == YAML_MEMORY_ERROR) {
        fprintf(stderr, "dlsim: out of memory in the YAML parser\n");
        abort();
    }
    long line, col;
    if (p->error == YAML_READER_ERROR) {
        text_place(buf, p->problem_offset < len ? p->problem_offset : len,
                   &line, &col);
    } else {
        line = (long)p->problem_mark.line + 1;
        col = (long)p->problem_mark.column + 1;
    }
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->context)
        return dl_fail(err, name, line, col, "YAML syntax error: %s: %s",
                       p->context, problem);
    return dl_fail(err, name, line, col, "YAML syntax error: %s", problem);
}

static void yaml_parser_begin(yaml_parser_t *p, const char *buf, size_t len)
{
    if (!yaml_parser_initialize(p)) {
        fprintf(stderr, "dlsim: out of memory in the YAML parser\n");
        abort();
    }
    yaml_parser_set_input_string(p, (const unsigned char *)buf, len);
}

int dl_yaml_load(const char *name, const char *buf, size_t len,
                 yaml_document_t *doc, struct dl_error *err)
{
    /* first the events alone, to refuse deep nesting and a second
     * document before the scanner's cost of depth per token adds up */
    yaml_parser_t p;
    yaml_parser_begin(&p, buf, len);
    int depth = 0, docs = 0, rc = 0;
    for (bool end = false; !end && !rc;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = yaml_syntax(name, &p, buf, len, err);
            break;
        }
        long line = (long)ev.start_mark.line + 1;
        long col = (long)ev.start_mark.column + 1;
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (++depth > DL_YAML_MAX_DEPTH)
                rc = dl_fail(err, name, line, col, "nested deeper than %d "
                             "levels", DL_YAML_MAX_DEPTH);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = dl_fail(err, name, line, col, "a second YAML document; "
                             "this file holds exactly one");
            break;
        case YAML_STREAM_END_EVENT:
            end = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (rc)
        return rc;
    yaml_parser_begin(&p, buf, len);
    if (!yaml_parser_load(&p, doc))
        rc = yaml_syntax(name, &p, buf, len, err);
    yaml_parser_delete(&p);
    return rc;
}

/* Whether s is UTF-8 throughout. */
static bool utf8_valid(const char *s)
{
    uint32_t c;
    for (int n; *s; s += n)
        if (!(n = sim_utf8_char(s, &c)))
            return false;
    return true;
}

/* The escaped form of the character at s (n bytes, code point c) into
 * out (at least 8 bytes); its length. */
static size_t yaml_char(const char *s, int n, uint32_t c, char *out)
{
    if (c == '"' || c == '\\')
        return (size_t)snprintf(out, 8, "\\%c", (char)c);
    if (c < 0x20 || c == 0x7f)
        return (size_t)snprintf(out, 8, "\\x%02x", (unsigned)c);
    /* YAML's non-printable characters, its line breaks (NEL, LS, PS) and
     * the byte order mark, which a quoted scalar would drop or fold */
    if ((c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029 ||
        c == 0xfeff || c == 0xfffe || c == 0xffff)
        return (size_t)snprintf(out, 8, "\\u%04x", (unsigned)c);
    memcpy(out, s, (size_t)n);
    return (size_t)n;
}

/* Bytes of a double-quoted line before it is continued, and of the
 * longest string written as an implicit mapping key. */
enum { YAML_WRAP = 512 };

bool dl_yaml_str_short(const char *s)
{
    if (!utf8_valid(s))
        return false;
    size_t w = 0;
    char tmp[8];
    uint32_t c;
    for (int n; *s && w <= YAML_WRAP; s += n) {
        n = sim_utf8_char(s, &c);
        w += yaml_char(s, n, c, tmp);
    }
    return w <= YAML_WRAP;
}

static void yaml_break(FILE *f, int indent)
{
    fputs("\\\n", f);
    for (int i = 0; i < indent; i++)
        fputc(' ', f);
}

void dl_yaml_put_num(FILE *f, double x)
{
    if (isnan(x))
        fputs("null", f);
    else
        fprintf(f, "%.9g", x);
}

void dl_yaml_put_str(FILE *f, const char *s, int indent)
{
    if (!utf8_valid(s)) {
        static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
                                  "opqrstuvwxyz0123456789+/";
        const unsigned char *p = (const unsigned char *)s;
        size_t n = strlen(s), w = 0;
        fputs("!!binary \"", f);
        for (size_t i = 0; i < n; i += 3, w += 4) {
            if (w >= YAML_WRAP) {
                yaml_break(f, indent);
                w = 0;
            }
            uint32_t v = (uint32_t)p[i] << 16;
            if (i + 1 < n)
                v |= (uint32_t)p[i + 1] << 8;
            if (i + 2 < n)
                v |= p[i + 2];
            fputc(b64[v >> 18], f);
            fputc(b64[(v >> 12) & 63], f);
            fputc(i + 1 < n ? b64[(v >> 6) & 63] : '=', f);
            fputc(i + 2 < n ? b64[v & 63] : '=', f);
        }
        fputc('"', f);
        return;
    }
    fputc('"', f);
    size_t w = 0;
    char tmp[8];
    uint32_t c;
    for (int n; *s; s += n) {
        n = sim_utf8_char(s, &c);
        size_t k = yaml_char(s, n, c, tmp);
        if (w + k > YAML_WRAP) {
            yaml_break(f, indent);
            w = 0;
            /* a continuation line's leading blanks are not content */
            if (c == ' ' || c == '\t')
                k = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", c);
        }
        fwrite(tmp, 1, k, f);
        w += k;
    }
    fputc('"', f);
}

int dl_yaml_bytes(const char *tag, const char *value, char **out)
{
    *out = NULL;
    if (!tag || strcmp(tag, "tag:yaml.org,2002:binary"))
        return 0;
    size_t n = strlen(value), k = 0;
    unsigned char *b = xmalloc(n / 4 * 3 + 4);
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (const char *p = value; *p; p++) {
        int v;
        char ch = *p;
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')
            continue;
        if (ch == '=') {
            pad++;
            continue;
        }
        if (pad)                /* data after padding */
            goto bad;
        if (ch >= 'A' && ch <= 'Z')
            v = ch - 'A';
        else if (ch >= 'a' && ch <= 'z')
            v = ch - 'a' + 26;
        else if (ch >= '0' && ch <= '9')
            v = ch - '0' + 52;
        else if (ch == '+')
            v = 62;
        else if (ch == '/')
            v = 63;
        else
            goto bad;
        acc = acc << 6 | (uint32_t)v;
        if ((bits += 6) >= 8) {
            bits -= 8;
            b[k++] = (unsigned char)(acc >> bits);
        }
    }
    if (pad > 2 || memchr(b, 0, k))
        goto bad;
    b[k] = '\0';
    *out = (char *)b;
    return 0;
bad:
    free(b);
    return -1;
}

/* ------------------------------------------------------ standard output
 *
 * Standard output becomes a stream that forwards to descriptor 1 and
 * records the first failed write's errno, so the message names the real
 * reason even when the failure happened in the middle of a command and
 * errno has moved on since.  A closed descriptor 1 gets /dev/null in its
 * place (so that a file opened later cannot take number 1 and receive
 * the table meant for the terminal) and every write fails with EBADF. */

static int stdout_errno;
static bool stdout_closed;

static ssize_t stdout_write(void *cookie, const char *b, size_t n)
{
    (void)cookie;
    if (stdout_closed) {
        errno = stdout_errno = EBADF;
        return -1;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(STDOUT_FILENO, b + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!stdout_errno)
                stdout_errno = w < 0 ? errno : EIO;
            errno = stdout_errno;
            return -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

void dl_stdout_guard(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
        if (fd == STDOUT_FILENO)
            stdout_closed = true;
    }
    cookie_io_functions_t io = { .write = stdout_write };
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return;
    if (isatty(STDOUT_FILENO))
        setvbuf(f, NULL, _IOLBF, BUFSIZ);
    stdout = f;
}

int dl_stdout_finish(int rc)
{
    int bad = fflush(stdout) != 0 || ferror(stdout);
    if (!bad)
        return rc;
    int e = stdout_errno ? stdout_errno : errno;
    fprintf(stderr, "dlsim: cannot write to standard output: %s\n",
            strerror(e));
    return rc ? rc : 1;
}

int dl_exe_dir(char *buf, size_t n)
{
    if (n < 2)
        return -1;
    ssize_t k = readlink("/proc/self/exe", buf, n - 1);
    if (k <= 0 || (size_t)k >= n - 1)
        return -1;
    buf[k] = 0;
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = 0;
    return 0;
}

int sim_parse_interval(const char *s, simtime_t *out)
{
    double v;
    if (sim_parse_seconds(s, out) || *out < 0 || sim_parse_double(s, &v))
        return -1;
    return v > 0 && v < 1e-6 ? -1 : 0;
}

#ifndef DLSIM_REL_BINDIR
#define DLSIM_REL_BINDIR "bin"
#endif

void dl_dir_to_prefix(char *dir)
{
    for (const char *p = DLSIM_REL_BINDIR; p; p = strchr(p + 1, '/')) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
    }
}

#define DL_KEY(x) (x)
#define DL_PAIR_KEY(x) ((x).key)
/* An LSD radix sort of T by the integer KEY(x) (of type K), from bit
 * `from` up: stable. */
#define DL_RADIX(name, T, K, KEY)                                           \
    static void name(T *a, size_t n, T *tmp, unsigned from)                 \
    {                                                                       \
        if (from >= 8 * sizeof(K))                                          \
            return;                                                         \
        if (n <= 32) {  /* insertion: the counts cost more */              \
            for (size_t i = 1; i < n; i++) {                                \
                T x = a[i];                                                 \
                K k = KEY(x) >> from;                                       \
                size_t p = i;                                               \
                for (; p > 0 && (KEY(a[p - 1]) >> from) > k; p--)           \
                    a[p] = a[p - 1];                                        \
                a[p] = x;                                                   \
            }                                                               \
            return;                                                         \
        }                                                                   \
        K any = 0;      /* the bits set in some key: no pass above them */ \
        for (size_t i = 0; i < n; i++)                                      \
            any |= KEY(a[i]);                                               \
        if (!(any >> from))                                                 \
            return;     /* equal from there up: sorted as they are */       \
        T *own = tmp ? NULL : xmalloc((n ? n : 1) * sizeof *a);             \
        T *src = a, *dst = tmp ? tmp : own;                                 \
        for (unsigned shift = from; shift < 8 * sizeof(K) && n &&          \
                                    any >> shift; shift += 8) {             \
            size_t count[257] = { 0 };                                      \
            for (size_t i = 0; i < n; i++)                                  \
                count[((KEY(src[i]) >> shift) & 0xff) + 1]++;               \
            if (count[((KEY(src[0]) >> shift) & 0xff) + 1] == n)            \
                continue;                                                   \
            for (int b = 0; b < 256; b++)                                   \
                count[b + 1] += count[b];                                   \
            for (size_t i = 0; i < n; i++)                                  \
                dst[count[(KEY(src[i]) >> shift) & 0xff]++] = src[i];       \
            T *t = src;                                                     \
            src = dst;                                                      \
            dst = t;                                                        \
        }                                                                   \
        if (src != a)                                                       \
            memcpy(a, src, n * sizeof *a);                                  \
        free(own);                                                          \
    }
DL_RADIX(radix_u32, uint32_t, uint32_t, DL_KEY)
DL_RADIX(radix_u64, uint64_t, uint64_t, DL_KEY)
DL_RADIX(radix_pair, struct dl_pair, uint64_t, DL_PAIR_KEY)

void dl_sort_u32(uint32_t *a, size_t n, uint32_t *tmp)
{
    radix_u32(a, n, tmp, 0);
}

void dl_sort_u64(uint64_t *a, size_t n, uint64_t *tmp)
{
    radix_u64(a, n, tmp, 0);
}

void dl_sort_u64_high(uint64_t *a, size_t n, uint64_t *tmp, unsigned from)
{
    radix_u64(a, n, tmp, from);
}

void dl_sort_pairs(struct dl_pair *a, size_t n, struct dl_pair *tmp)
{
    radix_pair(a, n, tmp, 0);
}

static uint64_t med3(uint64_t x, uint64_t y, uint64_t z)
{
    if (x > y) {
        uint64_t t = x;
        x = y;
        y = t;
    }
    return z <= x ? x : z >= y ? y : z;
}

uint64_t dl_select_u64(uint64_t *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n;      /* a[k] lies in [lo, hi) */
    /* a pass that keeps less than 3/4 of the range is a good one; after
     * 2 log2(n) + 8 bad ones the rest is sorted */
    unsigned bad = 16;
    for (size_t m = n; m > 1; m >>= 1)
        bad += 2;
    while (hi - lo > 16) {
        size_t len = hi - lo;
        uint64_t p = med3(a[lo], a[lo + len / 2], a[hi - 1]);
        /* three-way partition: [lo, lt) < p, [lt, gt) == p, [gt, hi) > p */
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            uint64_t v = a[i];
            if (v < p) {
                a[i++] = a[lt];
                a[lt++] = v;
            } else if (v > p) {
                a[i] = a[--gt];
                a[gt] = v;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return a[k];
        if ((hi - lo) * 4 > len * 3 && --bad == 0)
            break;
    }
    dl_sort_u64(a + lo, hi - lo, NULL);
    return a[k];
}
