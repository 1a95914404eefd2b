/*
 * tests/fuzz/fuzz_import.c - libFuzzer entry for `dlsim trace import`
 * (cli_trace_import: sim/cli/import.c, traces/import/ and the 11 importers of
 * traces/import/imp_csv.c, imp_ali.c, imp_philly.c, imp_gavel.c).
 *
 * Input layout:
 *   byte 0      the format, modulo 11, in the order of import.c's table:
 *               itp elasticflow philly philly-json pai openb helios
 *               tiresias gavel chronus muri
 *   byte 1      option bits: 1 --keep-failed, 2 --epoch trace,
 *               4 --deadline last and --multi-type first, 8 the file
 *               given twice (two inputs a.csv and b.csv: merged, ids
 *               prefixed), 16 --time-unit ms, 32 --filter start=5,
 *               end=100000, 64 --filter vc=a,b, 128 a gzip output
 *   the rest    the input file; for pai and gavel, the part after the
 *               first line "%%" is the second file (--tasks, resp.
 *               --throughputs), empty when there is none.
 *
 * The command runs through its real argv path on files in a private
 * directory (mkdtemp, made once, emptied after every input and removed at
 * exit), with stdout and stderr sent to /dev/null while it runs (the
 * sanitizers keep reporting on the real stderr).  Beyond "no crash, no
 * leak, no UB", it checks the command's contract: exit status 0, 1 or 2;
 * on 0 the output is a native trace that trc_load accepts, with >= 1 job,
 * unique ids, num_gpus >= 1, duration > 0 and submit >= 0 never
 * decreasing; on failure no output exists; in every case no temporary
 * file is left behind.  A broken promise aborts (a libFuzzer crash).
 *
 * Built by scripts/fuzz.sh (fuzzing) and by tests/meson.build
 * (replay_import: the seeds and past crashes under the test build).
 */
#include "sim/cli/cli.h"
#include "traces/trace.h"
#include "fuzzcmd.h"
#include "traces/import/import.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const formats[] = {
    "itp", "elasticflow", "philly", "philly-json", "pai", "openb", "helios",
    "tiresias", "gavel", "chronus", "muri",
};
enum { NFMT = sizeof formats / sizeof formats[0] };

static char dir[64];

static void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

/* Removes every file of dir; returns how many there were. */
static int empty_dir(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[sizeof dir + 256];
        path_of(p, sizeof p, e->d_name);
        unlink(p);
        n++;
    }
    closedir(d);
    return n;
}

static void cleanup(void)
{
    if (dir[0]) {
        empty_dir();
        rmdir(dir);
        dir[0] = '\0';
    }
}

static void setup(void)
{
    if (dir[0])
        return;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/fuzz-import-XXXXXX",
             tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    fz_check(mkdtemp(dir) != NULL, "mkdtemp");
    atexit(cleanup);
    fz_init("fuzz_import");
}

static void put_file(const char *name, const uint8_t *p, size_t n)
{
    char path[128];
    path_of(path, sizeof path, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    fz_check(fd >= 0, "create input");
    fz_write_all(fd, p, n);
    close(fd);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_output(const char *out)
{
    struct trace t;
    struct dl_error err;
    memset(&err, 0, sizeof err);
    int rc = trc_load(out, &t, &err, NULL);
    if (rc)
        dl_error_print(&err, fdopen(dup(fz_real_err), "w"));
    fz_check(rc == 0, "the output is a trace trc_load reads");
    fz_check(t.njobs >= 1, "at least one job written");
    const char **ids = malloc(t.njobs * sizeof *ids);
    fz_check(ids != NULL, "malloc");
    for (uint32_t i = 0; i < t.njobs; i++) {
        const struct trc_job *j = &t.jobs[i];
        fz_check(j->id && j->id[0], "job id");
        fz_check(j->num_gpus >= 1, "num_gpus >= 1");
        fz_check(j->duration > 0 && j->duration <= TRC_MAX_TIME,
              "duration in (0, TRC_MAX_TIME]");
        fz_check(j->submit >= 0 && j->submit <= TRC_MAX_TIME, "submit range");
        fz_check(i == 0 || j->submit >= t.jobs[i - 1].submit, "submit order");
        fz_check(j->deadline == SIM_NEVER || j->deadline >= j->submit,
              "deadline after submit");
        ids[i] = j->id;
    }
    qsort(ids, t.njobs, sizeof *ids, cmp_str);
    for (uint32_t i = 1; i < t.njobs; i++)
        fz_check(strcmp(ids[i - 1], ids[i]) != 0, "unique ids");
    free(ids);
    trc_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    setup();
    const char *fmt = formats[data[0] % NFMT];
    unsigned bits = data[1];
    const uint8_t *body = data + 2;
    size_t n = size - 2, n2 = 0;
    const uint8_t *aux = NULL;
    bool two_files = !strcmp(fmt, "pai") || !strcmp(fmt, "gavel");
    if (two_files) {
        static const char sep[] = "\n%%\n";
        const uint8_t *s = n >= 4 ? memmem(body, n, sep, 4) : NULL;
        if (s) {
            aux = s + 4;
            n2 = (size_t)(body + n - aux);
            n = (size_t)(s - body) + 1;         /* keep the newline */
        } else {
            aux = body + n;
        }
        put_file("aux.json", aux, n2);
    }
    put_file("a.csv", body, n);
    int nin = 1;
    if (bits & 8) {
        put_file("b.csv", body, n);
        nin = 2;
    }

    char in_a[128], in_b[128], auxp[128], out[128];
    path_of(in_a, sizeof in_a, "a.csv");
    path_of(in_b, sizeof in_b, "b.csv");
    path_of(auxp, sizeof auxp, "aux.json");
    path_of(out, sizeof out, bits & 128 ? "out.csv.gz" : "out.csv");
    char *argv[32];
    int argc = 0;
    argv[argc++] = "import";
    argv[argc++] = "--format";
    argv[argc++] = (char *)fmt;
    if (!strcmp(fmt, "pai")) {
        argv[argc++] = "--tasks";
        argv[argc++] = auxp;
    }
    if (!strcmp(fmt, "gavel")) {
        argv[argc++] = "--throughputs";
        argv[argc++] = auxp;
    }
    if (bits & 1)
        argv[argc++] = "--keep-failed";
    if (bits & 2) {
        argv[argc++] = "--epoch";
        argv[argc++] = "trace";
    }
    if (bits & 4) {
        argv[argc++] = "--deadline";
        argv[argc++] = "last";
        argv[argc++] = "--multi-type";
        argv[argc++] = "first";
    }
    if (bits & 16) {
        argv[argc++] = "--time-unit";
        argv[argc++] = "ms";
    }
    if (bits & 32) {
        argv[argc++] = "--filter";
        argv[argc++] = "start=5,end=100000";
    }
    if (bits & 64) {
        argv[argc++] = "--filter";
        argv[argc++] = "vc=a,b";
    }
    argv[argc++] = "-o";
    argv[argc++] = out;
    argv[argc++] = in_a;
    if (nin == 2)
        argv[argc++] = in_b;
    argv[argc] = NULL;

    /* the command's report and errors go to /dev/null */
    int rc = fz_run(cli_trace_import, argc, argv, -1);

    fz_check(rc == 0 || rc == 1 || rc == 2, "exit status 0, 1 or 2");
    struct stat st;
    bool have_out = stat(out, &st) == 0;
    fz_check(rc == 0 ? have_out : !have_out, "output exactly on success");
    if (rc == 0)
        check_output(out);
    int files = empty_dir();
    fz_check(files == nin + two_files + have_out, "no temporary file left");
    return 0;
}
