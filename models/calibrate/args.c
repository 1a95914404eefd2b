/*
 * models/calibrate/args.c - the command line of dlsim-calibrate.
 *
 * dlsim-calibrate COMMAND [options]; every option also after the command.
 * Parsed by hand (no getopt state) so the tests can call cal_parse_args
 * any number of times.  Bad usage: a one-line message and exit status 2.
 */
#include "calib.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char cal_usage_text[] =
    "usage: dlsim-calibrate COMMAND [options]\n"
    "\n"
    "Measures DL-like kernels on an NVIDIA GPU, alone and sharing it, and\n"
    "writes the measurement files of SPEC 7 that `dlsim fit` reads\n"
    "(models/calibrate/README.md).  Never changes clocks, compute mode, MIG\n"
    "or MPS settings.\n"
    "\n"
    "commands:\n"
    "  probe     device name, memory, SMs, clocks; measured device-to-device\n"
    "            copy bandwidth and GEMM throughput (FP32, TF32, FP16, BF16)\n"
    "            -> DIR/probe.json\n"
    "  suite     cuBLAS GEMMs of transformer and CNN shapes, cuDNN\n"
    "            convolutions of ResNet-50 layers (implicit-GEMM fallback\n"
    "            through cuBLAS without cuDNN), elementwise kernels,\n"
    "            reductions, softmax -> DIR/suite.csv\n"
    "  proxies   each job proxy alone -> DIR/runtime.csv (SPEC 7 runtime),\n"
    "            DIR/util.csv (SPEC 7 utilization; needs NVML)\n"
    "  pairs     each pair of proxies sharing the GPU over a fixed window,\n"
    "            by two CUDA streams in one process and by two processes\n"
    "            (time-slicing) -> DIR/pairs.csv (SPEC 7 co-location)\n"
    "  all       probe, suite, proxies, pairs\n"
    "  list      the proxies and their kernel plans (no GPU needed)\n"
    "\n"
    "options:\n"
    "  --out DIR            output directory, created if missing (default .)\n"
    "  --device N           CUDA device index (default 0)\n"
    "  --gpu-type NAME      GPU type written into the CSVs (default: the\n"
    "                       device's name in models/gpus.csv, e.g. H200)\n"
    "  --warmup N           timed runs discarded before the kept ones\n"
    "                       (default 3)\n"
    "  --repeats N          timed runs kept, at least (default 10)\n"
    "  --min-time S         a proxy is timed for at least S seconds, so NVML\n"
    "                       sees it (default 1)\n"
    "  --window S           the shared window of a pair, seconds (default 2)\n"
    "  --mechanism M        streams, timeslice or both (default both)\n"
    "  --proxies LIST       proxies to measure, MODEL@BATCH,... (default: all;\n"
    "                       `list` shows them)\n"
    "  --pair-proxies LIST  proxies to pair (default: 8 of them, 36 pairs)\n"
    "  --budget S           start no new measurement after S seconds\n"
    "                       (default 0: no limit); what was skipped is named\n"
    "  --quick              small sizes, few repeats, 3 paired proxies: a\n"
    "                       smoke test, not a calibration\n"
    "  -h, --help           this text\n"
    "\n"
    "internal: `worker --proxy P --window S --ready-fd N --go-fd N` is one\n"
    "side of a time-sliced pair, started by `pairs`.\n"
    "\n"
    "Exit status: 0 success; 1 a measurement or write failed; 2 bad usage;\n"
    "3 no usable GPU (no driver or device; one line names the CUDA error).\n";

static int fail(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return CAL_EXIT_USAGE;
}

static int get_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int get_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int cal_parse_proxy_list(const char *s, int *sel, int *n, char *msg,
                         size_t msglen)
{
    *n = 0;
    char name[128];
    const char *p = s;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0 || len >= sizeof name) {
            snprintf(msg, msglen, "empty or too long proxy name in '%s'", s);
            return -1;
        }
        memcpy(name, p, len);
        name[len] = 0;
        int i = cal_proxy_find(name);
        if (i < 0) {
            snprintf(msg, msglen, "unknown proxy '%s' (`dlsim-calibrate list` "
                     "names them)", name);
            return -1;
        }
        for (int j = 0; j < *n; j++)
            if (sel[j] == i) {
                snprintf(msg, msglen, "proxy '%s' named twice", name);
                return -1;
            }
        if (*n >= CAL_MAX_SEL) {
            snprintf(msg, msglen, "more than %d proxies", CAL_MAX_SEL);
            return -1;
        }
        sel[(*n)++] = i;
        if (!c)
            return 0;
        p = c + 1;
    }
}

static const struct { const char *name; enum cal_cmd cmd; } cmds[] = {
    { "probe", CAL_CMD_PROBE }, { "suite", CAL_CMD_SUITE },
    { "proxies", CAL_CMD_PROXIES }, { "pairs", CAL_CMD_PAIRS },
    { "all", CAL_CMD_ALL }, { "list", CAL_CMD_LIST },
    { "worker", CAL_CMD_WORKER },
};

int cal_parse_args(int argc, char **argv, struct cal_opts *o, char *msg,
                   size_t msglen)
{
    memset(o, 0, sizeof *o);
    o->out_dir = ".";
    o->warmup = 3;
    o->repeats = 10;
    o->min_time_s = 1;
    o->window_s = 2;
    o->mechanisms = CAL_MECH_STREAMS | CAL_MECH_TIMESLICE;
    o->worker_proxy = o->ready_fd = o->go_fd = -1;
    msg[0] = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->cmd = CAL_CMD_HELP;
            return 0;
        }
        if (a[0] != '-') {
            if (o->cmd != CAL_CMD_NONE)
                return fail(msg, msglen, "unexpected argument '%s'", a);
            size_t k;
            for (k = 0; k < sizeof cmds / sizeof cmds[0]; k++)
                if (!strcmp(a, cmds[k].name))
                    break;
            if (k == sizeof cmds / sizeof cmds[0])
                return fail(msg, msglen, "unknown command '%s' (probe, suite, "
                            "proxies, pairs, all, list)", a);
            o->cmd = cmds[k].cmd;
            continue;
        }
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
            continue;
        }
        static const char *const valued[] = {
            "--out", "--device", "--gpu-type", "--warmup", "--repeats",
            "--min-time", "--window", "--mechanism", "--proxies",
            "--pair-proxies", "--budget", "--proxy", "--ready-fd", "--go-fd",
        };
        size_t k;
        for (k = 0; k < sizeof valued / sizeof valued[0]; k++)
            if (!strcmp(a, valued[k]))
                break;
        if (k == sizeof valued / sizeof valued[0])
            return fail(msg, msglen, "unknown option '%s'", a);
        if (i + 1 >= argc)
            return fail(msg, msglen, "%s needs a value", a);
        const char *v = argv[++i];
        int bad = 0;
        if (!strcmp(a, "--out")) {
            if (!*v)
                return fail(msg, msglen, "--out: empty directory name");
            o->out_dir = v;
        } else if (!strcmp(a, "--gpu-type")) {
            if (!*v || strlen(v) >= 64 || strpbrk(v, ",\"\n\r"))
                return fail(msg, msglen, "--gpu-type: empty, longer than 63 "
                            "bytes, or with a comma, quote or newline");
            o->gpu_type = v;
        } else if (!strcmp(a, "--device")) {
            bad = get_int(v, 0, 1023, &o->device);
        } else if (!strcmp(a, "--warmup")) {
            bad = get_int(v, 0, 10000, &o->warmup);
        } else if (!strcmp(a, "--repeats")) {
            bad = get_int(v, 1, 100000, &o->repeats);
        } else if (!strcmp(a, "--min-time")) {
            bad = get_num(v, 0, 3600, &o->min_time_s);
        } else if (!strcmp(a, "--window")) {
            bad = get_num(v, 0.05, 3600, &o->window_s);
        } else if (!strcmp(a, "--budget")) {
            bad = get_num(v, 0, 1e7, &o->budget_s);
        } else if (!strcmp(a, "--mechanism")) {
            if (!strcmp(v, "streams"))
                o->mechanisms = CAL_MECH_STREAMS;
            else if (!strcmp(v, "timeslice"))
                o->mechanisms = CAL_MECH_TIMESLICE;
            else if (!strcmp(v, "both"))
                o->mechanisms = CAL_MECH_STREAMS | CAL_MECH_TIMESLICE;
            else
                return fail(msg, msglen, "--mechanism: '%s' is not streams, "
                            "timeslice or both", v);
        } else if (!strcmp(a, "--proxies") || !strcmp(a, "--pair-proxies")) {
            char m2[200];
            int pairs = !strcmp(a, "--pair-proxies");
            if (cal_parse_proxy_list(v, pairs ? o->psel : o->sel,
                                     pairs ? &o->npsel : &o->nsel, m2,
                                     sizeof m2))
                return fail(msg, msglen, "%s: %s", a, m2);
        } else if (!strcmp(a, "--proxy")) {
            if ((o->worker_proxy = cal_proxy_find(v)) < 0)
                return fail(msg, msglen, "--proxy: unknown proxy '%s'", v);
        } else if (!strcmp(a, "--ready-fd")) {
            bad = get_int(v, 0, 65535, &o->ready_fd);
        } else if (!strcmp(a, "--go-fd")) {
            bad = get_int(v, 0, 65535, &o->go_fd);
        }
        if (bad)
            return fail(msg, msglen, "%s: bad value '%s'", a, v);
    }
    if (o->cmd == CAL_CMD_NONE)
        return fail(msg, msglen, "a command is required (probe, suite, "
                    "proxies, pairs, all, list)");
    if (o->cmd == CAL_CMD_WORKER &&
        (o->worker_proxy < 0 || o->ready_fd < 0 || o->go_fd < 0))
        return fail(msg, msglen, "worker needs --proxy, --ready-fd and "
                    "--go-fd");
    if (o->quick) {
        if (o->repeats > 3)
            o->repeats = 3;
        if (o->warmup > 1)
            o->warmup = 1;
        if (o->min_time_s > 0.1)
            o->min_time_s = 0.1;
        if (o->window_s > 0.3)
            o->window_s = 0.3;
    }
    return 0;
}
