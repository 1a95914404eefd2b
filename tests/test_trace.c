/*
 * tests/test_trace.c - the trace layer: reader, writer, generator, stats.
 *
 * Reader: every malformed input ends in DL_EINPUT with the right line and
 * a message naming the problem; the lenient cases (comments, blanks,
 * CRLF, quotes, reordered and unknown columns) load.  Writer: a round
 * trip gives identical records, plain and gzip.  Generator: seeded
 * determinism, stream independence, and sample means / offered load
 * within k standard errors of the analytic targets (k = 5, so a correct
 * generator fails with probability < 1e-6 per check; the seeds are fixed,
 * so the tests are deterministic anyway).  The Philly defaults are
 * checked against the real trace when ../../shared/data is present.
 *
 * Temporary files live in a mkdtemp directory removed after each test.
 */
#include "traces/trace.h"
#include "sim/cli/cli.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define PHILLY_DATA "../../shared/data/traces/philly-pollux/philly.csv.gz"

static char tmpdir[256];
static pid_t tmpdir_owner;

static int rm_one(const char *p, const struct stat *sb, int flag,
                  struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

static void teardown(void)
{
    if (tmpdir[0] && getpid() == tmpdir_owner) {
        nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        tmpdir[0] = '\0';
    }
}

/* teardown runs at exit too: a test that ends by exit (cr_skip_test)
 * never reaches the suite's .fini. */
static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/dlsim-test-trace-XXXXXX");
    cr_assert(mkdtemp(tmpdir) != NULL);
    tmpdir_owner = getpid();
    cr_assert_eq(atexit(teardown), 0);
}

TestSuite(trace, .init = setup, .fini = teardown);

static const char *tpath(const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ & 3];
    snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
    return p;
}

static const char *write_file(const char *name, const char *data, size_t n)
{
    const char *p = tpath(name);
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    fclose(f);
    return p;
}

static const char *write_gz(const char *name, const char *data, size_t n)
{
    const char *p = tpath(name);
    gzFile g = gzopen(p, "wb");
    cr_assert(g);
    cr_assert_eq(gzwrite(g, data, (unsigned)n), (int)n);
    cr_assert_eq(gzclose(g), Z_OK);
    return p;
}

static int load_text(const char *text, struct trace *t, struct dl_error *e)
{
    const char *p = write_file("t.csv", text, strlen(text));
    memset(e, 0, sizeof *e);
    return trc_load(p, t, e, NULL);
}

/* Asserts that text fails to load with DL_EINPUT on line `line`, with
 * `word` in the message. */
static void expect_fail(const char *text, long line, const char *word)
{
    struct trace t;
    struct dl_error e;
    int r = load_text(text, &t, &e);
    cr_assert_eq(r, DL_EINPUT, "expected DL_EINPUT for:\n%s\ngot %d", text, r);
    cr_assert_eq(e.line, line, "line %ld, expected %ld (%s) for:\n%s",
                 e.line, line, e.msg, text);
    cr_assert(strstr(e.msg, word), "message '%s' lacks '%s'", e.msg, word);
    cr_assert(strstr(e.file, "t.csv"), "file '%s'", e.file);
    cr_assert_eq(t.njobs, 0);
    cr_assert_null(t.jobs);
}

#define H "job_id,submit_time,num_gpus,duration\n"

/* ------------------------------------------------------------ malformed */

Test(trace, empty_file)
{
    expect_fail("", 1, "empty");
}

Test(trace, only_comments)
{
    expect_fail("# a comment\n\n# another\n", 4, "no header");
}

Test(trace, missing_required_column)
{
    expect_fail("job_id,submit_time,num_gpus\nj1,0,1\n", 1, "duration");
    expect_fail("# lead comment\nsubmit_time,num_gpus,duration\nj1,0,1\n", 2,
                "job_id");
}

Test(trace, duplicate_column)
{
    expect_fail("job_id,submit_time,num_gpus,duration,num_gpus\n", 1,
                "duplicate column");
}

Test(trace, no_jobs)
{
    expect_fail(H, 1, "no jobs");
    expect_fail("# c\n" H "# only comments below\n\n", 2, "no jobs");
}

Test(trace, wrong_field_count)
{
    expect_fail(H "j1,0,1,10\nj2,1,1\n", 3, "fields");
    expect_fail(H "j1,0,1,10,extra\n", 2, "fields");
}

Test(trace, bad_numbers)
{
    expect_fail(H "j1,abc,1,10\n", 2, "submit_time");
    expect_fail(H "j1,0,1.5,10\n", 2, "num_gpus");
    expect_fail(H "j1,0,x,10\n", 2, "num_gpus");
    expect_fail(H "j1,0,1,ten\n", 2, "duration");
    expect_fail(H "j1,0,1,nan\n", 2, "duration");
    expect_fail(H "j1,0,1,1e400\n", 2, "duration");
    expect_fail(H "j1,1e13,1,10\n", 2, "submit_time");   /* > TRC_MAX_TIME */
    expect_fail(H "j1,,1,10\n", 2, "submit_time");
}

Test(trace, bad_values)
{
    expect_fail(H "j1,0,0,10\n", 2, "num_gpus");
    expect_fail(H "j1,0,-2,10\n", 2, "num_gpus");
    expect_fail(H "j1,-1,1,10\n", 2, "submit_time");
    expect_fail(H "j1,0,1,0\n", 2, "duration");
    expect_fail(H "j1,0,1,-5\n", 2, "duration");
    expect_fail(H "j1,0,1,0.0000001\n", 2, "duration");  /* rounds to 0 us */
    expect_fail(H ",0,1,5\n", 2, "job_id");
}

Test(trace, bad_optional_values)
{
    const char *h = "job_id,submit_time,num_gpus,duration,deadline,util,"
                    "mem_gb,priority\n";
    char buf[256];
    snprintf(buf, sizeof buf, "%sj1,10,1,5,9,,,\n", h);
    expect_fail(buf, 2, "deadline");
    snprintf(buf, sizeof buf, "%sj1,10,1,5,,1.5,,\n", h);
    expect_fail(buf, 2, "util");
    snprintf(buf, sizeof buf, "%sj1,10,1,5,,,-1,\n", h);
    expect_fail(buf, 2, "mem_gb");
    snprintf(buf, sizeof buf, "%sj1,10,1,5,,,,high\n", h);
    expect_fail(buf, 2, "priority");
    snprintf(buf, sizeof buf, "%sj1,10,1,5,,,,99999999999\n", h);
    expect_fail(buf, 2, "priority");
}

Test(trace, unsorted)
{
    expect_fail(H "a,0,1,10\nb,5,1,10\n# c\nc,4.5,1,10\n", 5, "before");
    struct trace t;
    struct dl_error e;
    load_text(H "a,0,1,10\nb,5,1,10\n# c\nc,4.5,1,10\n", &t, &e);
    cr_assert(strstr(e.msg, "4.5") && strstr(e.msg, "line 3"), "%s", e.msg);
}

Test(trace, duplicate_id)
{
    expect_fail(H "a,0,1,10\nb,1,1,10\na,2,1,10\n", 4, "duplicate job_id");
    struct trace t;
    struct dl_error e;
    load_text(H "a,0,1,10\nb,1,1,10\na,2,1,10\n", &t, &e);
    cr_assert(strstr(e.msg, "first on line 2"), "%s", e.msg);
}

Test(trace, duplicate_id_reported_before_later_errors)
{
    /* ids are checked once the rows are read: an earlier duplicate must
     * still win over a later error */
    expect_fail(H "a,0,1,10\na,1,1,10\nb,2,0,10\n", 3, "duplicate");
}

Test(trace, duplicate_id_far_apart)
{
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    n += (size_t)snprintf(buf + n, cap - n, H);
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(buf + n, cap - n, "id-%d,%d,1,10\n", i, i);
    n += (size_t)snprintf(buf + n, cap - n, "id-17,9999,1,10\n");
    expect_fail(buf, 5002, "first on line 19");
    free(buf);
}

/* Ids whose 32-bit hashes collide (found by a birthday search over
 * "id-N" with the reader's hash) are distinct jobs; among three equal ids
 * the second is the duplicate, named against the first. */
Test(trace, duplicate_ids_under_hash_collisions)
{
    struct trace t;
    struct dl_error e;
    cr_assert_eq(load_text(H "id-35019,0,1,10\nid-82651,1,1,10\n"
                           "id-80722,2,1,10\nid-115166,3,1,10\n", &t, &e), 0,
                 "%s", e.msg);
    cr_assert_eq(t.njobs, 4);
    trc_free(&t);
    expect_fail(H "id-35019,0,1,10\nid-82651,1,1,10\nid-35019,2,1,10\n"
                "id-35019,3,1,10\nid-82651,4,1,10\n", 4, "first on line 2");
    expect_fail(H "id-82651,0,1,10\nid-35019,1,1,10\nid-82651,2,1,10\n",
                4, "first on line 2");
}

Test(trace, quoting_errors)
{
    expect_fail(H "\"j1,0,1,10\n", 2, "unterminated");
    expect_fail(H "j\"1,0,1,10\n", 2, "stray quote");
    expect_fail(H "\"j1\"x,0,1,10\n", 2, "closing quote");
}

Test(trace, nul_byte)
{
    static const char text[] = H "j1,0,1,1\0" "0\n";
    struct trace t;
    struct dl_error e;
    const char *p = write_file("nul.csv", text, sizeof text - 1);
    cr_assert_eq(trc_load(p, &t, &e, NULL), DL_EINPUT);
    cr_assert_eq(e.line, 2);
    cr_assert(strstr(e.msg, "NUL"), "%s", e.msg);
}

Test(trace, missing_file)
{
    struct trace t;
    struct dl_error e;
    cr_assert_eq(trc_load(tpath("nope.csv"), &t, &e, NULL), DL_EIO);
    cr_assert(strstr(e.file, "nope.csv"));
}

/* A gzip of `rows` rows; returns its bytes (malloc'd) and length. */
static unsigned char *gzip_rows(int rows, size_t *len)
{
    size_t cap = (size_t)rows * 40 + 100, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text, cap, H);
    for (int i = 0; i < rows; i++)
        n += (size_t)snprintf(text + n, cap - n, "job%d,%d,1,%d\n", i, i,
                              100 + i % 977);
    const char *p = write_gz("full.csv.gz", text, n);
    free(text);
    FILE *f = fopen(p, "rb");
    unsigned char *gz = malloc(n + 1024);
    *len = fread(gz, 1, n + 1024, f);
    fclose(f);
    return gz;
}

Test(trace, truncated_gzip)
{
    size_t len;
    unsigned char *gz = gzip_rows(20000, &len);
    const char *p = write_file("cut.csv.gz", (char *)gz, len / 2);
    struct trace t;
    struct dl_error e;
    int r = trc_load(p, &t, &e, NULL);
    cr_assert_eq(r, DL_EINPUT, "got %d %s", r, e.msg);
    cr_assert(strstr(e.msg, "truncated gzip"), "%s", e.msg);
    cr_assert(e.line > 2 && e.line <= 20002, "line %ld", e.line);
    /* cut inside the 8-byte trailer: all rows decode, the end is missing */
    p = write_file("cut2.csv.gz", (char *)gz, len - 3);
    r = trc_load(p, &t, &e, NULL);
    cr_assert_eq(r, DL_EINPUT);
    cr_assert(strstr(e.msg, "truncated gzip"), "%s", e.msg);
    cr_assert_eq(e.line, 20002, "line %ld", e.line);
    /* the intact file loads */
    p = write_file("ok.csv.gz", (char *)gz, len);
    cr_assert_eq(trc_load(p, &t, &e, NULL), 0, "%s", e.msg);
    cr_assert_eq(t.njobs, 20000);
    trc_free(&t);
    free(gz);
}

Test(trace, corrupt_gzip_crc)
{
    size_t len;
    unsigned char *gz = gzip_rows(100, &len);
    gz[len - 8] ^= 0x55;            /* CRC32 in the trailer */
    const char *p = write_file("bad.csv.gz", (char *)gz, len);
    struct trace t;
    struct dl_error e;
    cr_assert_eq(trc_load(p, &t, &e, NULL), DL_EINPUT);
    cr_assert(strstr(e.msg, "corrupt gzip"), "%s", e.msg);
    free(gz);
}

/* ------------------------------------------------------------- lenient */

Test(trace, exact_decimal_times)
{
    struct trace t;
    struct dl_error e;
    cr_assert_eq(load_text(H "a,0.1,1,0.000001\n"
                             "b,1e3,2,3.25e-2\n"
                             "c,1000.0000005,1,12.3456789\n"
                             "d,1000.0000015,1,7\n", &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.njobs, 4);
    cr_assert_eq(t.jobs[0].submit, 100000);
    cr_assert_eq(t.jobs[0].duration, 1);
    cr_assert_eq(t.jobs[1].submit, INT64_C(1000000000));
    cr_assert_eq(t.jobs[1].duration, 32500);
    cr_assert_eq(t.jobs[1].num_gpus, 2);
    cr_assert_eq(t.jobs[2].submit, INT64_C(1000000001)); /* half away from 0 */
    cr_assert_eq(t.jobs[2].duration, 12345679);
    cr_assert_eq(t.jobs[3].submit, INT64_C(1000000002));
    cr_assert_eq(t.jobs[0].deadline, SIM_NEVER);
    cr_assert(t.jobs[0].util < 0 && t.jobs[0].mem_gb < 0);
    cr_assert_null(t.jobs[0].model);
    cr_assert_eq(t.jobs[3].line, 5);
    trc_free(&t);
}

Test(trace, comments_blanks_crlf_bom)
{
    struct trace t;
    struct dl_error e;
    cr_assert_eq(load_text("\xef\xbb\xbf# generated by hand\r\n"
                           "\r\n"
                           "job_id, submit_time ,num_gpus,duration\r\n"
                           "# a comment with \"an odd quote\r\n"
                           "a, 1 ,2,\t3\r\n"
                           "   \r\n"
                           "b,2,1,4", &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.njobs, 2);
    cr_assert_str_eq(t.jobs[0].id, "a");
    cr_assert_eq(t.jobs[0].submit, 1000000);
    cr_assert_eq(t.jobs[0].duration, 3000000);
    cr_assert_eq(t.jobs[0].line, 5);
    cr_assert_str_eq(t.jobs[1].id, "b");
    cr_assert_eq(t.jobs[1].line, 7);
    trc_free(&t);
}

Test(trace, quoted_fields)
{
    struct trace t;
    struct dl_error e;
    cr_assert_eq(load_text("job_id,submit_time,num_gpus,duration,model\n"
                           "\"a,1\",0,1,1,\"say \"\"hi\"\"\"\n"
                           "\"multi\nline\",\"1\",\"2\",\"3\",\"\"\n"
                           "c,2,1,1,x\n"
                           "d,1,1,1,x\n", &t, &e), DL_EINPUT);
    /* the record after the two-line one starts on line 5; the unsorted
     * row d is on line 6 */
    cr_assert_eq(e.line, 6, "%ld %s", e.line, e.msg);
    cr_assert(strstr(e.msg, "line 5"), "%s", e.msg);

    cr_assert_eq(load_text("job_id,submit_time,num_gpus,duration,model\n"
                           "\"a,1\",0,1,1,\"say \"\"hi\"\"\"\n"
                           "\"multi\nline\",\"1\",\"2\",\"3\",\"\"\n"
                           "\"#c\",2,1,1, x \n", &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.njobs, 3);
    cr_assert_str_eq(t.jobs[0].id, "a,1");
    cr_assert_str_eq(t.jobs[0].model, "say \"hi\"");
    cr_assert_str_eq(t.jobs[1].id, "multi\nline");
    cr_assert_eq(t.jobs[1].num_gpus, 2);
    cr_assert_null(t.jobs[1].model);         /* "" = unknown */
    cr_assert_str_eq(t.jobs[2].id, "#c");
    cr_assert_str_eq(t.jobs[2].model, "x");
    cr_assert_eq(t.jobs[2].line, 5);
    trc_free(&t);
}

Test(trace, columns_in_any_order_and_optional)
{
    struct trace t;
    struct dl_error e;
    cr_assert_eq(load_text("priority,user,duration,model,num_gpus,util,"
                           "gpu_type,job_id,mem_gb,deadline,submit_time\n"
                           "3,alice,100,resnet50,4,0.75,V100,j1,12.5,300,10\n"
                           ",,50,,1,,,j2,,,20\n"
                           "-1,alice,60,resnet50,8,,,j3,,,20\n", &t, &e), 0,
                 "%s", e.msg);
    cr_assert_eq(t.njobs, 3);
    const struct trc_job *j = &t.jobs[0];
    cr_assert_str_eq(j->id, "j1");
    cr_assert_eq(j->submit, 10 * SIM_US_PER_S);
    cr_assert_eq(j->duration, 100 * SIM_US_PER_S);
    cr_assert_eq(j->deadline, 300 * SIM_US_PER_S);
    cr_assert_eq(j->num_gpus, 4);
    cr_assert_eq(j->priority, 3);
    cr_assert_str_eq(j->model, "resnet50");
    cr_assert_str_eq(j->gpu_type, "V100");
    cr_assert_str_eq(j->user, "alice");
    cr_assert_float_eq(j->util, 0.75f, 1e-7);
    cr_assert_float_eq(j->mem_gb, 12.5f, 1e-7);
    j = &t.jobs[1];
    cr_assert_eq(j->deadline, SIM_NEVER);
    cr_assert_null(j->model);
    cr_assert_null(j->gpu_type);
    cr_assert_null(j->user);
    cr_assert(j->util < 0 && j->mem_gb < 0);
    cr_assert_eq(j->priority, 0);
    /* interned: equal names share one pointer */
    cr_assert_eq(t.jobs[0].model, t.jobs[2].model);
    cr_assert_eq(t.jobs[0].user, t.jobs[2].user);
    cr_assert_eq(t.jobs[2].priority, -1);
    trc_free(&t);
}

Test(trace, unknown_columns_warn_once)
{
    char *out = NULL;
    size_t outlen = 0;
    FILE *w = open_memstream(&out, &outlen);
    static const char text[] =
        "job_id,foo,submit_time,num_gpus,bar,duration\n"
        "a,1,0,1,2,10\nb,1,1,1,2,10\nc,1,2,1,2,10\n";
    const char *p = write_file("u.csv", text, sizeof text - 1);
    struct trace t;
    struct dl_error e;
    struct dl_diag d;
    dl_diag_init(&d, w, false);
    cr_assert_eq(trc_load(p, &t, &e, &d), 0, "%s", e.msg);
    fclose(w);
    cr_assert_eq(d.n, 1);
    cr_assert(strstr(d.kept[0], "foo") && strstr(d.kept[0], "bar"), "%s", d.kept[0]);
    dl_diag_free(&d);
    cr_assert_eq(t.njobs, 3);
    cr_assert(strstr(out, "foo") && strstr(out, "bar"), "%s", out);
    cr_assert(strstr(out, "u.csv:1:"), "%s", out);
    const char *first = strstr(out, "warning");
    cr_assert(first && !strstr(first + 1, "warning"), "%s", out);
    cr_assert_eq(strchr(out, '\n'), out + outlen - 1, "one line: %s", out);
    free(out);
    trc_free(&t);
}

Test(trace, long_line)
{
    /* a 900 KiB job id (> the 256 KiB buffer) fits; a line over
     * DL_MAX_LINE (1 MiB) is refused where it starts, before it takes
     * more memory */
    size_t idlen = 900 << 10;
    char *text = malloc((3 << 20) + 200);
    size_t n = (size_t)sprintf(text, H);
    memset(text + n, 'x', idlen);
    n += idlen;
    n += (size_t)sprintf(text + n, ",0,1,5\ny,1,1,1\n");
    const char *p = write_gz("long.csv.gz", text, n);
    struct trace t;
    struct dl_error e;
    cr_assert_eq(trc_load(p, &t, &e, NULL), 0, "%s", e.msg);
    cr_assert_eq(t.njobs, 2);
    cr_assert_eq(strlen(t.jobs[0].id), idlen);
    cr_assert_eq(t.jobs[1].line, 3);
    trc_free(&t);
    n = (size_t)sprintf(text, H "a,0,1,5\n");
    memset(text + n, 'x', 3 << 20);
    n += 3 << 20;
    n += (size_t)sprintf(text + n, ",0,1,5\n");
    p = write_gz("longer.csv.gz", text, n);
    cr_assert_eq(trc_load(p, &t, &e, NULL), DL_EINPUT);
    cr_assert_eq(e.line, 3);
    cr_assert(strstr(e.msg, "line longer than 1048576 bytes"), "%s", e.msg);
    free(text);
}

Test(trace, gzip_detected_by_content)
{
    const char *text = H "a,0,1,10\n";
    const char *p = write_gz("plain-name.csv", text, strlen(text));
    struct trace t;
    struct dl_error e;
    cr_assert_eq(trc_load(p, &t, &e, NULL), 0, "%s", e.msg);
    cr_assert_eq(t.njobs, 1);
    trc_free(&t);
}

/* ---------------------------------------------------------- round trip */

static void assert_same(const struct trace *a, const struct trace *b)
{
    cr_assert_eq(a->njobs, b->njobs);
    for (uint32_t i = 0; i < a->njobs; i++) {
        const struct trc_job *x = &a->jobs[i], *y = &b->jobs[i];
        cr_assert_str_eq(x->id, y->id);
        cr_assert_eq(x->submit, y->submit, "job %u", i);
        cr_assert_eq(x->duration, y->duration, "job %u", i);
        cr_assert_eq(x->deadline, y->deadline, "job %u", i);
        cr_assert_eq(x->num_gpus, y->num_gpus);
        cr_assert_eq(x->priority, y->priority);
        cr_assert_eq(x->util, y->util, "job %u: %.9g %.9g", i, x->util, y->util);
        cr_assert_eq(x->mem_gb, y->mem_gb);
        cr_assert_eq(!x->model, !y->model);
        if (x->model)
            cr_assert_str_eq(x->model, y->model);
        cr_assert_eq(!x->gpu_type, !y->gpu_type);
        if (x->gpu_type)
            cr_assert_str_eq(x->gpu_type, y->gpu_type);
        cr_assert_eq(!x->user, !y->user);
        if (x->user)
            cr_assert_str_eq(x->user, y->user);
    }
}

static void round_trip(const struct trace *a, const char *name)
{
    struct dl_error e;
    struct trace b;
    const char *p = tpath(name);
    cr_assert_eq(trc_write(a, p, &e), 0, "%s", e.msg);
    cr_assert_eq(trc_load(p, &b, &e, NULL), 0, "%s:%ld: %s", e.file, e.line,
                 e.msg);
    assert_same(a, &b);
    trc_free(&b);
}

Test(trace, round_trip_generated)
{
    struct cluster c;
    clu_builtin_demo(&c);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    o.njobs = 3000;
    o.seed = 7;
    o.deadline_lo = 1.2;
    o.deadline_hi = 3;
    o.deadline_frac = 0.5;
    o.models = "resnet50,bert,gpt-2";
    struct trace a;
    struct dl_error e;
    cr_assert_eq(trc_generate(&o, &c, &a, &e), 0, "%s", e.msg);
    round_trip(&a, "rt.csv");
    round_trip(&a, "rt.csv.gz");
    /* gzip output really is gzip */
    FILE *f = fopen(tpath("rt.csv.gz"), "rb");
    unsigned char mg[2];
    cr_assert_eq(fread(mg, 1, 2, f), 2);
    fclose(f);
    cr_assert(mg[0] == 0x1f && mg[1] == 0x8b);
    /* no temporary files left behind */
    cr_assert_eq(access(tpath("rt.csv.tmp"), F_OK), -1);
    trc_free(&a);
    clu_free(&c);
}

Test(trace, round_trip_every_column)
{
    struct trace a;
    trc_init(&a, "hand", 5);
    static const char *ids[] = {"a,b", "say \"x\"", "#hash", " padded ",
                                "line\nbreak"};
    for (uint32_t i = 0; i < 5; i++) {
        struct trc_job *j = &a.jobs[i];
        j->id = ids[i];
        j->submit = (simtime_t)i * 1234567;
        j->duration = 1 + (simtime_t)i * 999999;
        j->num_gpus = 1u << i;
        j->line = i + 2;
    }
    a.jobs[0].deadline = 5 * SIM_US_PER_S;
    a.jobs[1].util = 0.3f;
    a.jobs[2].util = 1.0f / 3.0f;
    a.jobs[3].mem_gb = 15.9f;
    a.jobs[1].priority = -7;
    a.jobs[4].priority = 2147483647;
    a.jobs[2].model = "m,odel";
    a.jobs[3].gpu_type = "A100";
    a.jobs[4].user = "u\"ser";
    round_trip(&a, "all.csv");
    round_trip(&a, "all.csv.gz");
    trc_free(&a);
}

Test(trace, write_io_error)
{
    struct trace a;
    trc_init(&a, "x", 1);
    a.jobs[0].id = "a";
    a.jobs[0].duration = 1;
    struct dl_error e;
    cr_assert_eq(trc_write(&a, "/nonexistent-dir/x.csv", &e), DL_EIO);
    cr_assert(strstr(e.file, "x.csv"));
    trc_free(&a);
}

/* ----------------------------------------------------------- generator */

static void gen(struct trc_gen_opts *o, const struct cluster *c,
                struct trace *t)
{
    struct dl_error e;
    cr_assert_eq(trc_generate(o, c, t, &e), 0, "%s", e.msg);
}

Test(trace, gen_deterministic)
{
    struct cluster c;
    clu_builtin_demo(&c);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    o.njobs = 2000;
    o.models = "a,b,c";
    o.deadline_lo = 2;
    struct trace a, b, d;
    gen(&o, &c, &a);
    gen(&o, &c, &b);
    assert_same(&a, &b);
    o.seed = 2;
    gen(&o, &c, &d);
    uint32_t same = 0;
    for (uint32_t i = 0; i < a.njobs; i++)
        same += a.jobs[i].submit == d.jobs[i].submit &&
                a.jobs[i].duration == d.jobs[i].duration;
    cr_assert_lt(same, 2, "seed 2 gave %u identical jobs", same);
    trc_free(&a);
    trc_free(&b);
    trc_free(&d);
    clu_free(&c);
}

Test(trace, gen_streams_independent)
{
    /* changing the duration distribution or adding deadlines and models
     * must not move the arrivals or the GPU counts */
    struct cluster c;
    clu_builtin_demo(&c);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    o.njobs = 500;
    o.gpus = "1:0.5,2:0.25,8:0.25";
    o.duration = "exp:100";
    struct trace a, b;
    gen(&o, &c, &a);
    o.duration = "uniform:10,500";
    o.deadline_lo = 1.5;
    o.models = "x,y";
    gen(&o, &c, &b);
    /* the rate differs (it depends on the mean duration), so compare the
     * arrival times scaled by the rates: gaps are proportional */
    double ra = (double)a.jobs[a.njobs - 1].submit, rb =
        (double)b.jobs[b.njobs - 1].submit;
    for (uint32_t i = 0; i < a.njobs; i++) {
        cr_assert_eq(a.jobs[i].num_gpus, b.jobs[i].num_gpus, "job %u", i);
        cr_assert_float_eq((double)a.jobs[i].submit / ra,
                           (double)b.jobs[i].submit / rb, 1e-6, "job %u", i);
    }
    trc_free(&a);
    trc_free(&b);
    clu_free(&c);
}

/* Mean and variance of the discrete GPU-count distribution. */
static void gpu_moments(const uint32_t *g, const double *w, int n, double *m,
                        double *v)
{
    double s = 0, s1 = 0, s2 = 0;
    for (int i = 0; i < n; i++)
        s += w[i];
    for (int i = 0; i < n; i++) {
        s1 += w[i] / s * g[i];
        s2 += w[i] / s * g[i] * g[i];
    }
    *m = s1;
    *v = s2 - s1 * s1;
}

Test(trace, gen_means_and_load)
{
    struct cluster c;
    clu_builtin_demo(&c);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    const uint32_t N = 20000;
    o.njobs = N;
    o.seed = 11;
    o.load = 0.7;
    o.gpus = "1:0.5,2:0.3,4:0.2";
    o.duration = "exp:1000";
    struct trace t;
    gen(&o, &c, &t);
    static const uint32_t g[] = {1, 2, 4};
    static const double w[] = {0.5, 0.3, 0.2};
    double gm, gv;
    gpu_moments(g, w, 3, &gm, &gv);
    /* durations clamped below at 1 s: E = 1 + m e^{-1/m}; the variance of
     * the exponential bounds it */
    double dm = 1 + 1000 * exp(-1.0 / 1000), dv = 1000.0 * 1000;
    double sg = 0, sd = 0;
    for (uint32_t i = 0; i < N; i++) {
        sg += t.jobs[i].num_gpus;
        sd += (double)t.jobs[i].duration / SIM_US_PER_S;
        cr_assert_geq(t.jobs[i].duration, SIM_US_PER_S);
        cr_assert_eq(t.jobs[i].deadline, SIM_NEVER);
    }
    cr_assert_lt(fabs(sg / N - gm), 5 * sqrt(gv / N), "gpus mean %g vs %g",
                 sg / N, gm);
    cr_assert_lt(fabs(sd / N - dm), 5 * sqrt(dv / N), "duration mean %g vs %g",
                 sd / N, dm);
    /* offered load = S / (cap * T): S sums N iid g*d, T sums N-1 iid
     * exponential gaps, so its relative s.e. is about
     * sqrt((CV^2(g d) + 1) / N) with CV^2(g d) = 2 E[g^2] / E[g]^2 - 1 */
    double eg2 = gv + gm * gm;
    double cv2 = 2 * eg2 / (gm * gm) - 1;
    double rel_se = sqrt((cv2 + 1) / N);
    double load = trc_offered_load(&t, &c);
    cr_assert_lt(fabs(load / o.load - 1), 5 * rel_se, "load %g vs %g (se %g)",
                 load, o.load, rel_se);
    trc_free(&t);
    clu_free(&c);
}

Test(trace, gen_lognormal_mean_and_max)
{
    struct cluster c;
    clu_builtin_demo(&c);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    const uint32_t N = 20000;
    o.njobs = N;
    o.seed = 5;
    o.gpus = "2";
    o.duration = "lognormal:7,0.5";
    struct trace t;
    gen(&o, &c, &t);
    double mu = 7, s = 0.5;
    double m = exp(mu + s * s / 2), v = (exp(s * s) - 1) * m * m;
    double sum = 0;
    for (uint32_t i = 0; i < N; i++) {
        cr_assert_eq(t.jobs[i].num_gpus, 2);
        sum += (double)t.jobs[i].duration / SIM_US_PER_S;
    }
    cr_assert_lt(fabs(sum / N - m), 5 * sqrt(v / N), "mean %g vs %g",
                 sum / N, m);
    trc_free(&t);

    o.max_duration_s = 1000;        /* the median is e^7 = 1097 s */
    gen(&o, &c, &t);
    uint32_t at_max = 0;
    for (uint32_t i = 0; i < N; i++) {
        cr_assert_leq(t.jobs[i].duration, 1000 * SIM_US_PER_S);
        at_max += t.jobs[i].duration == 1000 * SIM_US_PER_S;
    }
    /* P(X > 1000) = Q((ln 1000 - 7) / 0.5) = 0.573 */
    double p = 0.5 * erfc((log(1000.0) - 7) / 0.5 / sqrt(2.0));
    cr_assert_lt(fabs((double)at_max / N - p), 5 * sqrt(p * (1 - p) / N),
                 "%u at max", at_max);
    /* the offered load is the target, exactly */
    cr_assert_float_eq(trc_offered_load(&t, &c), o.load, 1e-6);
    trc_free(&t);
    clu_free(&c);
}

Test(trace, gen_load_is_exact_for_every_family)
{
    /* The drawn trace is rescaled to the target, so the offered load is
     * exact whatever the family and its clamps to [1 s, max]. */
    static const struct { const char *gpus, *dur; double max; } cases[] = {
        {"1", "uniform:0,10", 8},       /* both clamps active */
        {"1", "exp:5", 12},
        {"1", "const:0.5", 0},          /* clamped up to 1 s */
        {"2:1,8:1", "lognormal:1,1", 20},
        {"philly", "philly", 36000},
        {"1:0.9,8:0.1", "philly", 0},
    };
    struct cluster c;
    clu_builtin_demo(&c);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct trc_gen_opts o;
        trc_gen_defaults(&o);
        const uint32_t N = 20000;
        o.njobs = N;
        o.seed = 100 + k;
        o.gpus = cases[k].gpus;
        o.duration = cases[k].dur;
        o.max_duration_s = cases[k].max;
        struct trace t;
        gen(&o, &c, &t);
        for (uint32_t i = 0; i < N; i++) {
            cr_assert_geq(t.jobs[i].duration, SIM_US_PER_S);
            if (cases[k].max > 0)
                cr_assert_leq(t.jobs[i].duration,
                              (simtime_t)cases[k].max * SIM_US_PER_S);
        }
        double load = trc_offered_load(&t, &c);
        cr_assert_float_eq(load, o.load, 1e-6, "case %zu: load %.17g", k, load);
        trc_free(&t);
    }
    clu_free(&c);
}

/* Every seed gets the load asked for (it varied 0.91-1.49 over seeds 1-5
 * at 1.2 before the gaps were rescaled), measured as trace stats does. */
Test(trace, gen_load_exact_for_every_seed)
{
    struct cluster c;
    clu_builtin_demo(&c);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct trc_gen_opts o;
        trc_gen_defaults(&o);
        o.njobs = 2000;
        o.seed = seed;
        o.load = 1.2;
        struct trace t;
        gen(&o, &c, &t);
        cr_expect_float_eq(trc_offered_load(&t, &c), 1.2, 1e-6, "seed %llu: %.9g",
                           (unsigned long long)seed, trc_offered_load(&t, &c));
        trc_free(&t);
    }
    clu_free(&c);
}

Test(trace, gen_deadlines_and_models)
{
    struct cluster c;
    clu_builtin_demo(&c);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    const uint32_t N = 10000;
    o.njobs = N;
    o.deadline_lo = 1.5;
    o.deadline_hi = 4;
    o.deadline_frac = 0.3;
    o.models = "resnet50, bert ,vgg16";
    struct trace t;
    gen(&o, &c, &t);
    uint32_t with = 0, per[3] = {0};
    static const char *names[] = {"resnet50", "bert", "vgg16"};
    for (uint32_t i = 0; i < N; i++) {
        const struct trc_job *j = &t.jobs[i];
        char id[16];
        snprintf(id, sizeof id, "j%u", i);
        cr_assert_str_eq(j->id, id);
        if (i)
            cr_assert_geq(j->submit, t.jobs[i - 1].submit);
        if (j->deadline != SIM_NEVER) {
            with++;
            double slack = (double)(j->deadline - j->submit) /
                           (double)j->duration;
            cr_assert(slack >= 1.5 - 1e-6 && slack <= 4 + 1e-6, "slack %g",
                      slack);
        }
        int k;
        for (k = 0; k < 3; k++)
            if (j->model && !strcmp(j->model, names[k]))
                break;
        cr_assert_lt(k, 3, "model %s", j->model ? j->model : "(null)");
        per[k]++;
    }
    cr_assert_lt(fabs((double)with / N - 0.3), 5 * sqrt(0.21 / N), "%u", with);
    for (int k = 0; k < 3; k++)
        cr_assert_lt(fabs(per[k] / (double)N - 1.0 / 3),
                     5 * sqrt(2.0 / 9 / N), "model %d: %u", k, per[k]);
    trc_free(&t);
    clu_free(&c);
}

Test(trace, gen_drops_gpu_counts_beyond_cluster)
{
    struct cluster c;
    clu_init(&c, "tiny");
    uint32_t ty = clu_add_type(&c, "T4", 16, 1.0);
    clu_add_nodes(&c, 1, 4, ty, NULL);
    clu_finish(&c);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    o.njobs = 5000;
    struct trace t;
    gen(&o, &c, &t);
    uint32_t n4 = 0;
    for (uint32_t i = 0; i < t.njobs; i++) {
        cr_assert_leq(t.jobs[i].num_gpus, 4);
        n4 += t.jobs[i].num_gpus == 4;
    }
    cr_assert_gt(n4, 0);
    trc_free(&t);
    struct dl_error e;
    o.gpus = "8:1,16:1";
    cr_assert_eq(trc_generate(&o, &c, &t, &e), DL_EINPUT);
    cr_assert(strstr(e.msg, "fits"), "%s", e.msg);
    clu_free(&c);
}

Test(trace, gen_bad_options)
{
    struct cluster c;
    clu_builtin_demo(&c);
    static const struct { const char *gpus, *dur, *models, *word; } bad[] = {
        {"1:abc", NULL, NULL, "GPU-count"},
        {"0:1", NULL, NULL, "GPU-count"},
        {"1:0.5,1:0.5", NULL, NULL, "GPU-count"},
        {"", NULL, NULL, "GPU-count"},
        {"1:0", NULL, NULL, "positive"},
        {NULL, "weird:3", NULL, "duration"},
        {NULL, "exp:-1", NULL, "duration"},
        {NULL, "uniform:5,2", NULL, "duration"},
        {NULL, "lognormal:1", NULL, "duration"},
        {NULL, "const:", NULL, "duration"},
        {NULL, NULL, "a,,b", "model"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct trc_gen_opts o;
        trc_gen_defaults(&o);
        o.njobs = 10;
        if (bad[i].gpus)
            o.gpus = bad[i].gpus;
        if (bad[i].dur)
            o.duration = bad[i].dur;
        o.models = bad[i].models;
        struct trace t;
        struct dl_error e;
        cr_assert_eq(trc_generate(&o, &c, &t, &e), DL_EINPUT, "case %zu", i);
        cr_assert(strstr(e.msg, bad[i].word), "case %zu: %s", i, e.msg);
        cr_assert_eq(t.njobs, 0);
    }
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    struct trace t;
    struct dl_error e;
    o.load = 0;
    cr_assert_eq(trc_generate(&o, &c, &t, &e), DL_EINPUT);
    trc_gen_defaults(&o);
    o.deadline_lo = 3;
    o.deadline_hi = 2;
    cr_assert_eq(trc_generate(&o, &c, &t, &e), DL_EINPUT);
    trc_gen_defaults(&o);
    o.max_duration_s = 0.5;
    cr_assert_eq(trc_generate(&o, &c, &t, &e), DL_EINPUT);
    clu_free(&c);
}

/* ------------------------------------------- Philly defaults vs the data */

struct philly {
    uint32_t n;
    uint32_t *gpus;
    double *dur;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int read_philly(struct philly *p)
{
    gzFile g = gzopen(PHILLY_DATA, "rb");
    if (!g)
        return -1;
    char line[256];
    size_t cap = 0;
    memset(p, 0, sizeof *p);
    cr_assert(gzgets(g, line, sizeof line));      /* header */
    while (gzgets(g, line, sizeof line)) {
        double d;
        unsigned k;
        const char *c = strchr(line, ',');
        if (!c || sscanf(c + 1, "%lf,%u", &d, &k) != 2)
            continue;
        size_t old = cap;
        xgrow(&p->gpus, &cap, p->n + 1, sizeof *p->gpus);
        if (cap != old)
            p->dur = xrealloc(p->dur, cap * sizeof *p->dur);
        p->gpus[p->n] = k;
        p->dur[p->n++] = d;
    }
    gzclose(g);
    return 0;
}

/* Fraction of durations (s) of jobs with g GPUs (0 = all) below x. */
static double frac_below_trace(const struct trace *t, uint32_t g, double x,
                               uint32_t *n)
{
    uint32_t k = 0, below = 0;
    for (uint32_t i = 0; i < t->njobs; i++) {
        if (g && t->jobs[i].num_gpus != g)
            continue;
        k++;
        below += (double)t->jobs[i].duration / SIM_US_PER_S < x;
    }
    *n = k;
    return (double)below / k;
}

Test(trace, philly_defaults_match_the_data)
{
    if (access(PHILLY_DATA, R_OK) != 0)
        cr_skip_test("%s not found", PHILLY_DATA);
    struct philly p;
    cr_assert_eq(read_philly(&p), 0);
    cr_assert_eq(p.n, 82247);

    struct cluster c;
    clu_builtin_demo(&c);          /* 256 GPUs: every Philly count fits */
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    o.njobs = 200000;
    o.seed = 3;
    struct trace t;
    gen(&o, &c, &t);

    /* GPU-count frequencies: two-sample test per count */
    static const uint32_t counts[] = {1, 2, 4, 8, 16, 32};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        uint32_t a = 0, b = 0;
        for (uint32_t i = 0; i < p.n; i++)
            a += p.gpus[i] == counts[k];
        for (uint32_t i = 0; i < t.njobs; i++)
            b += t.jobs[i].num_gpus == counts[k];
        double pa = (double)a / p.n, pb = (double)b / t.njobs;
        double se = sqrt(pa * (1 - pa) * (1.0 / p.n + 1.0 / t.njobs));
        cr_assert_lt(fabs(pa - pb), 5 * se + 1e-9, "P(gpus=%u): data %g gen %g",
                     counts[k], pa, pb);
    }
    /* duration quantiles of the data, per class: the generated CDF at the
     * data's p10, p50, p90 and p99 is those probabilities +- 5 s.e. */
    static const uint32_t cls[] = {1, 2, 4, 8};
    static const double qs[] = {0.1, 0.5, 0.9, 0.99};
    for (size_t k = 0; k < 4; k++) {
        uint32_t m = 0;
        double *d = malloc(p.n * sizeof *d);
        for (uint32_t i = 0; i < p.n; i++)
            if (p.gpus[i] == cls[k])
                d[m++] = p.dur[i];
        qsort(d, m, sizeof *d, cmp_double);
        for (size_t q = 0; q < 4; q++) {
            double x = d[(size_t)(qs[q] * (m - 1))];
            uint32_t ng;
            double f = frac_below_trace(&t, cls[k], x + 0.5, &ng);
            double fd = 0;          /* the data's own fraction below x+0.5 */
            for (uint32_t i = 0; i < m; i++)
                fd += d[i] < x + 0.5;
            fd /= m;
            double se = sqrt(fd * (1 - fd) * (1.0 / m + 1.0 / ng));
            /* +0.01: the table rounds quantiles to whole seconds and
             * interpolates between tabulated probabilities */
            cr_assert_lt(fabs(f - fd), 5 * se + 0.01,
                         "%u GPUs, q%.2f = %g s: data %g gen %g", cls[k],
                         qs[q], x, fd, f);
        }
        free(d);
    }
    free(p.gpus);
    free(p.dur);
    trc_free(&t);
    clu_free(&c);
}

/* ---------------------------------------------------------------- stats */

Test(trace, stats_and_offered_load)
{
    struct trace t;
    struct dl_error e;
    cr_assert_eq(load_text("job_id,submit_time,num_gpus,duration,deadline,"
                           "model\n"
                           "a,0,1,100,,m1\n"
                           "b,50,4,200,500,m2\n"
                           "c,100,8,10,,m1\n", &t, &e), 0, "%s", e.msg);
    struct cluster c;
    clu_init(&c, "two-types");
    uint32_t v = clu_add_type(&c, "V100", 32, 1.0);
    uint32_t k = clu_add_type(&c, "K80", 12, 0.5);
    clu_add_nodes(&c, 1, 8, v, NULL);
    clu_add_nodes(&c, 1, 4, k, NULL);
    clu_finish(&c);
    /* work = 100 + 800 + 80 = 980 GPU-s; capacity 8 + 2 = 10; span 100 */
    cr_assert_float_eq(trc_offered_load(&t, &c), 0.98, 1e-12);

    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    trc_print_stats(&t, &c, NULL, f);
    fclose(f);
    cr_assert(strstr(out, "jobs           3"), "%s", out);
    cr_assert(strstr(out, "0.9800"), "%s", out);
    cr_assert(strstr(out, "with deadline  1"), "%s", out);
    cr_assert(strstr(out, "2 distinct"), "%s", out);
    cr_assert(strstr(out, "p50  100 s"), "%s", out);
    cr_assert(strstr(out, "max  200 s"), "%s", out);
    free(out);
    trc_free(&t);
    clu_free(&c);
}

Test(trace, offered_load_zero_span)
{
    struct trace t;
    struct dl_error e;
    cr_assert_eq(load_text(H "a,5,1,100\n", &t, &e), 0);
    struct cluster c;
    clu_builtin_demo(&c);
    cr_assert(isnan(trc_offered_load(&t, &c)));
    trc_free(&t);
    clu_free(&c);
}

/* ------------------------------------------------------------------ CLI */

static int run_cmd(int (*fn)(int, char **), const char *const *args)
{
    char *argv[32];
    int argc = 0;
    for (; args[argc]; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    return fn(argc, argv);
}

Test(trace, cli_gen_and_stats)
{
    const char *out = tpath("cli.csv.gz");
    const char *gen_args[] = {"gen", "--jobs", "300", "--seed", "9",
                              "--load", "0.5", "--gpus", "1:0.8,4:0.2",
                              "--duration", "uniform:60,600",
                              "--deadline-slack", "2:3", "--models", "a,b",
                              "-o", out, NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, gen_args), 0);
    struct trace t;
    struct dl_error e;
    cr_assert_eq(trc_load(out, &t, &e, NULL), 0, "%s", e.msg);
    cr_assert_eq(t.njobs, 300);
    cr_assert_neq(t.jobs[5].deadline, SIM_NEVER);
    trc_free(&t);
    const char *stats_args[] = {"stats", out, NULL};
    cr_assert_eq(run_cmd(cli_trace_stats, stats_args), 0);
    const char *help[] = {"gen", "--help", NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, help), 0);
    const char *help2[] = {"stats", "-h", NULL};
    cr_assert_eq(run_cmd(cli_trace_stats, help2), 0);
}

Test(trace, cli_errors)
{
    const char *a1[] = {"gen", "--load", "-1", "-o", tpath("x.csv"), NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, a1), 2);
    const char *a2[] = {"gen", "--jobs", "10", NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, a2), 2);
    const char *a3[] = {"gen", "--bogus", "-o", tpath("x.csv"), NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, a3), 2);
    const char *a4[] = {"gen", "--gpus", "1:x", "-o", tpath("x.csv"), NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, a4), 2);
    const char *a5[] = {"gen", "-o", "/nonexistent-dir/x.csv", NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, a5), 1);
    const char *a6[] = {"gen", "-o", NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, a6), 2);
    const char *s1[] = {"stats", NULL};
    cr_assert_eq(run_cmd(cli_trace_stats, s1), 2);
    static const char bad[] = H "a,x,1,1\n";
    const char *s2[] = {"stats", write_file("bad.csv", bad, sizeof bad - 1),
                        NULL};
    cr_assert_eq(run_cmd(cli_trace_stats, s2), 2);
    const char *s3[] = {"stats", tpath("missing.csv"), NULL};
    cr_assert_eq(run_cmd(cli_trace_stats, s3), 1);
}

/* ------------------------------------------------- hostile input (#13) */

Test(trace, numbers_strict_and_bounded)
{
    /* hex floats were taken by mem_gb and util alone */
    expect_fail("job_id,submit_time,num_gpus,duration,mem_gb\na,0,1,5,0x1p3\n",
                2, "bad mem_gb '0x1p3'");
    expect_fail("job_id,submit_time,num_gpus,duration,util\na,0,1,5,0x0.8p0\n",
                2, "bad util '0x0.8p0'");
    expect_fail("job_id,submit_time,num_gpus,duration,util\na,0,1,5,nan\n",
                2, "bad util");
    expect_fail("job_id,submit_time,num_gpus,duration,mem_gb\na,0,1,5,1e23\n",
                2, "0..1e+06");
    expect_fail(H "a,0x10,1,5\n", 2, "bad submit_time");
    expect_fail(H "a,0,0x1,5\n", 2, "bad num_gpus");
    struct trace t;
    struct dl_error e;
    cr_assert_eq(load_text("job_id,submit_time,num_gpus,duration,mem_gb\n"
                           "a,0,1,5,1e6\n", &t, &e), 0, "%s", e.msg);
    trc_free(&t);
}

Test(trace, devices_and_endless_lines)
{
    struct trace t;
    struct dl_error e;
    cr_expect_eq(trc_load("/dev/zero", &t, &e, NULL), DL_EINPUT);
    cr_expect_eq(e.line, 1);
    cr_expect(strstr(e.msg, "line longer than 1048576 bytes"), "%s", e.msg);
    cr_expect_eq(trc_load("/dev/urandom", &t, &e, NULL), DL_EINPUT);
    cr_expect(e.line >= 1, "%s", e.msg);
    /* a quote that never closes makes one record of every later line */
    size_t n = 3 << 20;
    char *text = malloc(n + 100);
    size_t k = (size_t)sprintf(text, H "\"a");
    for (; k < n; k += 10)
        memcpy(text + k, "123456789\n", 10);
    cr_expect_eq(trc_load(write_file("q.csv", text, k), &t, &e, NULL),
                 DL_EINPUT);
    cr_expect_eq(e.line, 2);
    cr_expect(strstr(e.msg, "record longer than"), "%s", e.msg);
    /* a comment line of any size is refused at the limit too */
    memset(text, '#', n);
    cr_expect_eq(trc_load(write_gz("c.csv.gz", text, n), &t, &e, NULL),
                 DL_EINPUT);
    cr_expect_eq(e.line, 1);
    free(text);
}

Test(trace, rows_after_the_last_gzip_member_warn)
{
    size_t n1, n2;
    const char *a = H "a,0,1,5\n", *b = "b,1,1,5\n";
    unsigned char *g1 = NULL, *g2 = NULL;
    /* two members: both are read */
    const char *p1 = write_gz("m1.gz", a, strlen(a));
    const char *p2 = write_gz("m2.gz", b, strlen(b));
    FILE *f = fopen(p1, "rb");
    g1 = malloc(4096);
    n1 = fread(g1, 1, 4096, f);
    fclose(f);
    f = fopen(p2, "rb");
    g2 = malloc(4096);
    n2 = fread(g2, 1, 4096, f);
    fclose(f);
    unsigned char *both = malloc(n1 + n2 + 16);
    memcpy(both, g1, n1);
    memcpy(both + n1, g2, n2);
    struct trace t;
    struct dl_error e;
    struct dl_diag d;
    dl_diag_init(&d, NULL, false);
    cr_assert_eq(trc_load(write_file("two.gz", (char *)both, n1 + n2), &t, &e,
                          &d), 0, "%s", e.msg);
    cr_expect_eq(t.njobs, 2);
    cr_expect_eq(d.n, 0);
    trc_free(&t);
    /* a plain row appended: read as before, and a warning (so --strict
     * refuses the run) */
    memcpy(both + n1, "c,2,1,5\n", 8);
    cr_assert_eq(trc_load(write_file("app.gz", (char *)both, n1 + 8), &t, &e,
                          &d), 0, "%s", e.msg);
    cr_expect_eq(t.njobs, 1);
    cr_assert_eq(d.n, 1);
    cr_expect(strstr(d.kept[0], "8 bytes after the last gzip member"), "%s",
              d.kept[0]);
    dl_diag_free(&d);
    trc_free(&t);
    free(g1);
    free(g2);
    free(both);
}

Test(trace, gen_refuses_more_jobs_than_it_can_hold)
{
    /* 10^8 jobs would be 10 GB in memory: a clear limit, not an abort */
    const char *a[] = {"gen", "--jobs", "100000000", "-o", tpath("x.csv"),
                       NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, a), 2);
    cr_expect(access(tpath("x.csv"), F_OK) != 0);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    o.njobs = TRC_GEN_MAX_JOBS + 1;
    struct cluster c;
    clu_builtin_demo(&c);
    struct trace t;
    struct dl_error e;
    cr_expect_eq(trc_generate(&o, &c, &t, &e), DL_EINPUT);
    cr_expect(strstr(e.msg, "1..16777216"), "%s", e.msg);
    clu_free(&c);
    /* octal-looking seeds are decimal */
    const char *s1[] = {"gen", "--jobs", "20", "--seed", "010", "-o",
                        tpath("s1.csv"), NULL};
    const char *s2[] = {"gen", "--jobs", "20", "--seed", "10", "-o",
                        tpath("s2.csv"), NULL};
    const char *s3[] = {"gen", "--jobs", "20", "--seed", "0x10", "-o",
                        tpath("s3.csv"), NULL};
    cr_assert_eq(run_cmd(cli_trace_gen, s1), 0);
    cr_assert_eq(run_cmd(cli_trace_gen, s2), 0);
    cr_expect_eq(run_cmd(cli_trace_gen, s3), 2);
    struct trace a1, a2;
    cr_assert_eq(trc_load(tpath("s1.csv"), &a1, &e, NULL), 0);
    cr_assert_eq(trc_load(tpath("s2.csv"), &a2, &e, NULL), 0);
    cr_expect_eq(a1.jobs[7].duration, a2.jobs[7].duration);
    trc_free(&a1);
    trc_free(&a2);
}
