/*
 * models/calibrate/calib.h - the host side of dlsim-calibrate (prefix cal_):
 * everything that can be built and tested without CUDA.
 *
 *   args.c     the command line (cal_parse_args) and the usage text
 *   stats.c    median and spread of timings after dropping warm-up runs
 *   out.c      the SPEC 7 CSVs (runtime, pairs, utilization), the suite CSV,
 *              the probe JSON, each written to PATH.tmp.PID and renamed;
 *              the device name -> gpus.csv type mapping
 *   nvml.c     NVML loaded at run time with dlopen, and the utilization
 *              sampler thread
 *   proxies.c  the job proxies: zoo models (their graph features copied from
 *              models/zoo.csv) and the kernel plan that stands in for one
 *              training step of each
 *
 * calibrate.cu is the device side (CUDA runtime, cuBLAS, optional cuDNN) and
 * main().  These files compile as C with the project's compiler (the
 * criterion tests link them) and as C++ under nvcc's host compiler (the
 * bare-toolkit one-line build: nvcc compiles .c files as C), so they use
 * only libc, pthreads and libdl: no GSL, libyaml or libdlsim_core, which a
 * bare CUDA machine lacks.  That is why they do not reuse sim/sim.h.
 *
 * Exit status of the tool (CAL_EXIT_*): 0 success; 1 a run failed (CUDA,
 * cuBLAS or I/O error during measurement); 2 bad usage; 3 no usable GPU
 * (no driver, no device, or a driver too old for the runtime).
 */
#ifndef DLSIM_CALIB_H
#define DLSIM_CALIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CAL_EXIT_OK = 0, CAL_EXIT_FAIL = 1, CAL_EXIT_USAGE = 2,
       CAL_EXIT_NODEV = 3 };

/* ------------------------------------------------------------ args.c */

enum cal_cmd {
    CAL_CMD_NONE, CAL_CMD_HELP, CAL_CMD_PROBE, CAL_CMD_SUITE,
    CAL_CMD_PROXIES, CAL_CMD_PAIRS, CAL_CMD_ALL, CAL_CMD_LIST,
    CAL_CMD_WORKER,
};

/* Co-location mechanisms (bit set). */
enum { CAL_MECH_STREAMS = 1, CAL_MECH_TIMESLICE = 2 };

#define CAL_MAX_SEL 64

struct cal_opts {
    enum cal_cmd cmd;
    const char *out_dir;        /* --out (default ".") */
    const char *gpu_type;       /* --gpu-type: overrides the name mapping */
    int device;                 /* --device: CUDA device index */
    int warmup;                 /* --warmup: timed runs discarded first */
    int repeats;                /* --repeats: timed runs kept (at least) */
    double min_time_s;          /* --min-time: a measurement lasts at least */
    double window_s;            /* --window: shared window of a pair */
    double budget_s;            /* --budget: 0 = no limit */
    int mechanisms;             /* --mechanism streams|timeslice|both */
    int quick;                  /* --quick: small sizes (smoke test) */
    /* --proxies a,b,... (indices into the proxy table) */
    int nsel;
    int sel[CAL_MAX_SEL];
    /* --pair-proxies: the subset paired (default: cal_default_pairs) */
    int npsel;
    int psel[CAL_MAX_SEL];
    /* worker (internal: one side of a time-sliced pair) */
    int worker_proxy;
    int ready_fd, go_fd;
};

/* Parses argv (argv[0] is the program).  Returns 0, or CAL_EXIT_USAGE
 * with a one-line message in msg (no trailing newline). */
int cal_parse_args(int argc, char **argv, struct cal_opts *o, char *msg,
                   size_t msglen);
/* Parses "a,b,c" proxy names (MODEL@BATCH, as --proxies takes them) into
 * table indices; 0, or -1 with msg naming the unknown one. */
int cal_parse_proxy_list(const char *s, int *sel, int *n, char *msg,
                         size_t msglen);
extern const char cal_usage_text[];

/* ------------------------------------------------------------ stats.c */

struct cal_stats {
    int n;                      /* runs kept (after warm-up) */
    double median, p25, p75, min, max, mean;
};

/* Summarizes x[warmup..n-1] (the first warmup values are discarded);
 * quartiles by linear interpolation between order statistics (the
 * "type 7" definition).  Returns 0, or -1 if no value is left (s zeroed).
 * x is not modified. */
int cal_summarize(const double *x, int n, int warmup, struct cal_stats *s);

/* ------------------------------------------------------------ out.c */

/* The probe of one device. */
struct cal_probe {
    char name[256];             /* cudaDeviceProp.name */
    char gpu_type[64];          /* gpus.csv name, or a sanitized name */
    char pci_bus_id[32];
    int cc_major, cc_minor;
    int sm_count;
    double mem_gb;              /* total, 1e9 bytes */
    double sm_clock_mhz, mem_clock_mhz;
    int bus_width_bits;
    double l2_mb;
    int driver_version, runtime_version;
    const char *nvml;           /* "ok" or why not */
    const char *cudnn;          /* version or why not */
    double d2d_gbs;             /* copy bandwidth, read + write */
    double d2d_buffer_mb;
    /* GEMM throughput, TFLOP/s; < 0 = not supported / not run */
    int gemm_n;
    double gemm_tflops[4];      /* FP32, TF32, FP16, BF16 */
    double util_gemm;           /* NVML utilization during the BF16/FP16 GEMM */
};
extern const char *const cal_gemm_prec[4];

/* Runtime row (SPEC 7 runtime + extras). */
struct cal_rt_row {
    const char *gpu_type, *model;
    int batch;
    double throughput;          /* iterations per second = 1 / median */
    double util;                /* < 0 = unknown */
    struct cal_stats st;        /* iteration time, milliseconds */
    double proxy_tflop, target_tflop;   /* per iteration */
    double proxy_gb;            /* bytes moved per iteration by the plan */
    double mem_gb;              /* device memory the proxy allocated */
};

/* Pair row (SPEC 7 pairs + extras). */
struct cal_pair_row {
    const char *gpu_type, *job_a, *job_b, *mechanism;
    double rate_a, rate_b;      /* clamped to (0, 1] */
    double raw_a, raw_b;        /* unclamped measured ratios */
    double util_a, util_b;      /* solo utilization, < 0 unknown */
    double solo_a, solo_b;      /* solo iterations per second */
    double pair_a, pair_b;      /* shared iterations per second */
    double window_s;
};

/* Utilization row (SPEC 7 utilization; features copied from the zoo). */
struct cal_util_row {
    const char *model, *gpu_type;
    int batch;
    double util;
    double flops, params;
    int conv, linear, act, other;
};

/* One kernel of the suite. */
struct cal_suite_row {
    const char *name, *category, *precision, *path, *shape;
    double flops, bytes;        /* per run */
    struct cal_stats st;        /* milliseconds */
    double util;                /* < 0 unknown */
};

/* Writers to an open stream (byte-exact; the tests compare them). */
void cal_write_runtime(FILE *f, const struct cal_rt_row *r, int n);
void cal_write_pairs(FILE *f, const struct cal_pair_row *r, int n);
void cal_write_util(FILE *f, const struct cal_util_row *r, int n);
void cal_write_suite(FILE *f, const struct cal_suite_row *r, int n);
void cal_write_probe_json(FILE *f, const struct cal_probe *p);

/* Writes DIR/NAME through fn to DIR/NAME.tmp.PID, then renames it into
 * place.  0, or -1 with a message (errno text) in msg. */
int cal_write_file(const char *dir, const char *name,
                   void (*fn)(FILE *, const void *, int), const void *rows,
                   int n, char *msg, size_t msglen);
/* Adapters of the writers above to cal_write_file's signature. */
void cal_fn_runtime(FILE *f, const void *r, int n);
void cal_fn_pairs(FILE *f, const void *r, int n);
void cal_fn_util(FILE *f, const void *r, int n);
void cal_fn_suite(FILE *f, const void *r, int n);
void cal_fn_probe(FILE *f, const void *p, int n);

/* The gpus.csv name of a device ("NVIDIA H200" -> "H200", "Tesla
 * V100-SXM2-16GB" -> "V100", "NVIDIA A100-SXM4-80GB" -> "A100-80GB");
 * an unknown device keeps its name without an "NVIDIA "/"Tesla " prefix,
 * runs of characters other than [A-Za-z0-9] turned into one '-'. */
void cal_gpu_type_name(const char *device, double mem_gb, char *out,
                       size_t outlen);

/* mkdir -p of one level; 0 or -1 (errno). */
int cal_mkdir(const char *dir);

/* ------------------------------------------------------------ nvml.c */

/* NVML, loaded with dlopen: no header or import library is needed to
 * build.  The library name is $DLSIM_NVML_LIB if set, else
 * "libnvidia-ml.so.1". */
struct cal_nvml;
/* Opens the library, initializes NVML and finds the device with this PCI
 * bus id (cudaDeviceGetPCIBusId's form; NULL: device 0).  Returns a
 * handle, or NULL with the reason in why (never fatal: utilization is
 * then unknown). */
struct cal_nvml *cal_nvml_open(const char *lib, const char *pci_bus_id,
                               char *why, size_t whylen);
void cal_nvml_close(struct cal_nvml *n);
/* Starts a thread that samples utilization.gpu every period_ms; stop
 * returns the mean of the samples as a fraction 0..1 (-1 if none, or if
 * n is NULL). */
void cal_nvml_start(struct cal_nvml *n, int period_ms);
double cal_nvml_stop(struct cal_nvml *n);
/* Memory in use on the device, GB (-1 unknown). */
double cal_nvml_mem_used_gb(struct cal_nvml *n);
/* Name of the library cal_nvml_open would load with lib == NULL. */
const char *cal_nvml_default_lib(void);

/* ------------------------------------------------------------ proxies.c */

enum cal_kind { CAL_CNN, CAL_TRANSFORMER, CAL_RNN, CAL_MLP };

/* A zoo model at one batch size; features exactly as in models/zoo.csv
 * (tests/test_calibrate.c checks them against it). */
struct cal_proxy {
    const char *model;
    int batch;
    enum cal_kind kind;
    int a, b, c;                /* CNN: input resolution, base width,
                                 *   ImageNet stem (7x7/2 + pool) if 1
                                 * TRANSFORMER: tokens, d_model, d_ffn
                                 * RNN: hidden, steps, input width
                                 * MLP: input width, hidden, layers */
    double flops;               /* forward FLOPs per iteration (zoo) */
    double params;
    int conv, linear, act, other;
};

extern const struct cal_proxy cal_proxies[];
extern const int cal_nproxies;
/* The proxies measured by default (all) and paired by default. */
extern const int cal_default_pairs[];
extern const int cal_ndefault_pairs;
int cal_proxy_find(const char *name);   /* "model@batch"; -1 if none */

enum cal_op_kind { CAL_OP_GEMM, CAL_OP_ELTWISE, CAL_OP_SOFTMAX,
                   CAL_OP_REDUCE, CAL_OP_OPTIM };

/* One step of a plan, run `count` times in a row each time the plan
 * reaches it (the block's ops: once per repetition of the block). */
struct cal_op {
    enum cal_op_kind kind;
    int64_t m, n, k;            /* GEMM: C(m x n) = A(m x k) B(k x n);
                                 * ELTWISE/REDUCE/OPTIM: m elements;
                                 * SOFTMAX: m rows of n columns */
    int count;
};

#define CAL_PLAN_MAX 64

/* The kernels of one training step: each forward GEMM with its two
 * backward GEMMs (data and weight gradient, same FLOPs), an activation
 * pass after each forward GEMM and one in backward, a softmax and a
 * reduction for the loss, an optimizer pass over the parameters; the
 * model's block is repeated to reach 3x the zoo's forward FLOPs. */
struct cal_plan {
    int nops;
    struct cal_op op[CAL_PLAN_MAX];
    int block0, block1;         /* op[block0..block1) is the block */
    int reps;                   /* times the block runs */
    double flops;               /* per step, GEMMs only */
    double bytes;               /* per step, memory-bound kernels */
    int64_t max_a, max_b, max_c;   /* elements of the GEMM buffers (fp16) */
    int64_t max_elt;            /* elements of the elementwise buffers */
    int64_t params;             /* optimizer elements (fp32) */
};

void cal_proxy_plan(const struct cal_proxy *p, struct cal_plan *pl);
/* Bytes of device memory the plan allocates. */
double cal_plan_mem_bytes(const struct cal_plan *pl);

#ifdef __cplusplus
}
#endif

#endif
