/*
 * models/calibrate/calibrate.cu - dlsim-calibrate: the device side and
 * main().  Measures an NVIDIA GPU and writes the SPEC 7 measurement files
 * that `dlsim fit` turns into model files (models/calibrate/README.md).
 *
 * What runs on the device, and how it is timed:
 *
 *   - Every CUDA runtime and cuBLAS call is checked (CK, CB): a failure
 *     prints file:line, the call and the library's error string, and exits
 *     1.  The first call (cudaGetDeviceCount) is the exception: when it
 *     fails, or finds no device, the tool prints one line
 *     "dlsim-calibrate: no usable GPU: <cudaGetErrorString>" and exits 3.
 *   - Inputs are filled on the device with a hash of the index (values in
 *     [-0.5, 0.5), never all zeros: tensor cores and memory compression
 *     are not flattered by zeros).
 *   - measure(): one untimed run, then samples timed with CUDA events on
 *     the op's stream; a sample runs the op `inner` times so that it lasts
 *     about a millisecond (event resolution), and records the time per op.
 *     The first `--warmup` samples are discarded, at least `--repeats` are
 *     kept, and sampling goes on until the kept ones span `min_time`
 *     seconds.  The median is the result (stats.c); NVML is sampled on a
 *     thread over the kept samples.
 *   - Job proxies (proxies.c) run their plan as one training step per
 *     sample.
 *   - Pairs: each side runs its proxy's steps back to back (synchronizing
 *     its own stream after each step) for a fixed shared window that both
 *     start together; its rate is steps / seconds, divided by its solo rate
 *     measured the same way.  "streams": two host threads, each with its own
 *     stream and cuBLAS handle, in this process (kernels may overlap).
 *     "timeslice": two worker processes (this executable re-executed), each
 *     with its own CUDA context, so the GPU time-slices between them; they
 *     report "ready" through a pipe and start when the parent writes "go"
 *     to both.  The tool never changes clocks, compute mode, MIG or MPS.
 *   - cuDNN is optional: it is loaded with dlopen ($DLSIM_CUDNN_LIB, else
 *     libcudnn.so.9, .8, .so) and only the suite's convolutions use it;
 *     without it they run as implicit GEMMs of the same shapes through
 *     cuBLAS (no im2col traffic), and suite.csv's `path` column says which.
 */
#include "calib.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct cal_opts O;
static struct cal_nvml *NV;
static char GPU_TYPE[64];
static double T0;               /* process start, for --budget */
static int SMS = 80;            /* SM count, for grid sizes */
static int CC = 0;              /* compute capability, major * 10 + minor */

/* ------------------------------------------------------------ checks */

#define CK(x) ck_cuda((x), #x, __FILE__, __LINE__)
#define CB(x) ck_blas((x), #x, __FILE__, __LINE__)

static void ck_cuda(cudaError_t e, const char *what, const char *file,
                    int line)
{
    if (e == cudaSuccess)
        return;
    fprintf(stderr, "dlsim-calibrate: %s:%d: %s: %s\n", file, line, what,
            cudaGetErrorString(e));
    exit(CAL_EXIT_FAIL);
}

static void ck_blas(cublasStatus_t e, const char *what, const char *file,
                    int line)
{
    if (e == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "dlsim-calibrate: %s:%d: %s: %s\n", file, line, what,
            cublasGetStatusString(e));
    exit(CAL_EXIT_FAIL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool over_budget(void)
{
    return O.budget_s > 0 && now_s() - T0 > O.budget_s;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("dlsim-calibrate: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ------------------------------------------------------------ kernels */

__device__ __forceinline__ float hashval(size_t i, uint32_t seed)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 32) ^ seed;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return (float)(x & 0xffffff) / 16777216.0f - 0.5f;
}

__device__ __forceinline__ void put(float *p, size_t i, float v) { p[i] = v; }
__device__ __forceinline__ void put(__half *p, size_t i, float v)
{
    p[i] = __float2half(v);
}
__device__ __forceinline__ void put(__nv_bfloat16 *p, size_t i, float v)
{
    p[i] = __float2bfloat16(v);
}

template <typename T>
__global__ void k_fill(T *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        put(p, i, hashval(i, seed));
}

/* y = relu(x0 [+ x1]) * 0.5, eight halves per thread step */
__global__ void k_eltwise(const __half *x0, const __half *x1, __half *y,
                          size_t n, int two)
{
    size_t n8 = n / 8, stride = (size_t)gridDim.x * blockDim.x;
    const __half2 z = __float2half2_rn(0.f), h = __float2half2_rn(0.5f);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n8;
         i += stride) {
        uint4 a = ((const uint4 *)x0)[i], r;
        __half2 *pa = (__half2 *)&a, *pr = (__half2 *)&r;
        if (two) {
            uint4 b = ((const uint4 *)x1)[i];
            __half2 *pb = (__half2 *)&b;
            for (int j = 0; j < 4; j++)
                pr[j] = __hmul2(__hmax2(__hadd2(pa[j], pb[j]), z), h);
        } else {
            for (int j = 0; j < 4; j++)
                pr[j] = __hmul2(__hmax2(pa[j], z), h);
        }
        ((uint4 *)y)[i] = r;
    }
    for (size_t i = n8 * 8 + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
         i < n; i += stride) {
        float v = __half2float(x0[i]) + (two ? __half2float(x1[i]) : 0.f);
        y[i] = __float2half(fmaxf(v, 0.f) * 0.5f);
    }
}

/* y = a x + y, fp32, four per step */
__global__ void k_axpy(const float *x, float *y, size_t n, float a)
{
    size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += stride) {
        float4 u = ((const float4 *)x)[i], v = ((float4 *)y)[i];
        v.x += a * u.x, v.y += a * u.y, v.z += a * u.z, v.w += a * u.w;
        ((float4 *)y)[i] = v;
    }
    for (size_t i = n4 * 4 + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
         i < n; i += stride)
        y[i] += a * x[i];
}

/* SGD with momentum: m = 0.9 m + g; w -= 1e-3 m */
__global__ void k_optim(float *w, const float *g, float *m, size_t n)
{
    size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += stride) {
        float4 a = ((float4 *)w)[i], b = ((const float4 *)g)[i],
               c = ((float4 *)m)[i];
        c.x = 0.9f * c.x + b.x, c.y = 0.9f * c.y + b.y;
        c.z = 0.9f * c.z + b.z, c.w = 0.9f * c.w + b.w;
        a.x -= 1e-3f * c.x, a.y -= 1e-3f * c.y;
        a.z -= 1e-3f * c.z, a.w -= 1e-3f * c.w;
        ((float4 *)w)[i] = a;
        ((float4 *)m)[i] = c;
    }
    for (size_t i = n4 * 4 + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
         i < n; i += stride) {
        m[i] = 0.9f * m[i] + g[i];
        w[i] -= 1e-3f * m[i];
    }
}

/* sum of x into *out (which the caller zeroes) */
__global__ void k_reduce(const float *x, size_t n, float *out)
{
    __shared__ float sh[32];
    float s = 0;
    size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (size_t i = t; i < n4; i += stride) {
        float4 v = ((const float4 *)x)[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (size_t i = n4 * 4 + t; i < n; i += stride)
        s += x[i];
    for (int o = 16; o > 0; o /= 2)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0)
        sh[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < blockDim.x / 32 ? sh[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o /= 2)
            s += __shfl_down_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0)
            atomicAdd(out, s);
    }
}

__device__ float block_reduce(float v, bool is_max, float *sh)
{
    for (int o = 16; o > 0; o /= 2) {
        float u = __shfl_down_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, u) : v + u;
    }
    if ((threadIdx.x & 31) == 0)
        sh[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? sh[threadIdx.x]
                                          : (is_max ? -INFINITY : 0.f);
        for (int o = 16; o > 0; o /= 2) {
            float u = __shfl_down_sync(0xffffffffu, v, o);
            v = is_max ? fmaxf(v, u) : v + u;
        }
        if (threadIdx.x == 0)
            sh[0] = v;
    }
    __syncthreads();
    v = sh[0];
    __syncthreads();
    return v;
}

/* row-wise softmax, fp32, one block per row (grid-stride over rows) */
__global__ void k_softmax(const float *x, float *y, long rows, int cols)
{
    __shared__ float sh[32];
    for (long r = blockIdx.x; r < rows; r += gridDim.x) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float m = -INFINITY;
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            m = fmaxf(m, xr[c]);
        m = block_reduce(m, true, sh);
        float s = 0;
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            s += __expf(xr[c] - m);
        s = block_reduce(s, false, sh);
        float inv = 1.f / s;
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            yr[c] = __expf(xr[c] - m) * inv;
    }
}

static int grid_for(size_t n, int per_thread)
{
    size_t b = (n / per_thread + 255) / 256;
    size_t cap = (size_t)SMS * 16;
    return (int)(b < 1 ? 1 : b > cap ? cap : b);
}

template <typename T>
static void fill(T *p, size_t n, uint32_t seed, cudaStream_t s)
{
    k_fill<<<grid_for(n, 4), 256, 0, s>>>(p, n, seed);
    CK(cudaGetLastError());
}

static void *dalloc(size_t bytes)
{
    void *p = NULL;
    CK(cudaMalloc(&p, bytes ? bytes : 16));
    return p;
}

/* ------------------------------------------------------------ timing */

/* Times op (which enqueues on s) as the file comment says. */
template <typename F>
static void measure(F op, cudaStream_t s, double min_time, struct cal_stats *st,
                    double *util)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    op();                                   /* first touch, lazy loading */
    CK(cudaStreamSynchronize(s));
    CK(cudaEventRecord(e0, s));
    op();
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms1;
    CK(cudaEventElapsedTime(&ms1, e0, e1));
    int inner = ms1 >= 1.0f ? 1 : (int)ceilf(1.0f / fmaxf(ms1, 1e-3f));
    if (inner > 1000)
        inner = 1000;
    int cap = 1 << 16, n = 0;
    double *x = (double *)malloc(cap * sizeof *x), kept = 0;
    if (!x)
        abort();
    while (n < cap) {
        if (n == O.warmup)
            cal_nvml_start(NV, 20);
        CK(cudaEventRecord(e0, s));
        for (int i = 0; i < inner; i++)
            op();
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        x[n++] = (double)ms / inner;
        if (n > O.warmup)
            kept += ms * 1e-3;
        if (n >= O.warmup + O.repeats && kept >= min_time)
            break;
    }
    double u = cal_nvml_stop(NV);
    if (util)
        *util = u;
    cal_summarize(x, n, O.warmup, st);
    free(x);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

static void gemm(cublasHandle_t h, cudaDataType t, cublasComputeType_t ct,
                 int64_t m, int64_t n, int64_t k, const void *A, const void *B,
                 void *C)
{
    const float one = 1, zero = 0;
    CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one,
                    A, t, (int)m, B, t, (int)k, &zero, C, t, (int)m, ct,
                    CUBLAS_GEMM_DEFAULT));
}

/* ------------------------------------------------------------ device */

static int dev_init(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        fprintf(stderr, "dlsim-calibrate: no usable GPU: %s\n",
                cudaGetErrorString(e));
        return CAL_EXIT_NODEV;
    }
    if (n == 0) {
        fprintf(stderr, "dlsim-calibrate: no usable GPU: no CUDA device "
                "found\n");
        return CAL_EXIT_NODEV;
    }
    if (O.device >= n) {
        fprintf(stderr, "dlsim-calibrate: --device %d: the machine has %d "
                "CUDA device%s\n", O.device, n, n == 1 ? "" : "s");
        return CAL_EXIT_USAGE;
    }
    if ((e = cudaSetDevice(O.device)) != cudaSuccess ||
        (e = cudaFree(0)) != cudaSuccess) {
        fprintf(stderr, "dlsim-calibrate: no usable GPU: %s\n",
                cudaGetErrorString(e));
        return CAL_EXIT_NODEV;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, O.device));
    SMS = p.multiProcessorCount;
    CC = p.major * 10 + p.minor;
    if (O.gpu_type)
        snprintf(GPU_TYPE, sizeof GPU_TYPE, "%s", O.gpu_type);
    else
        cal_gpu_type_name(p.name, p.totalGlobalMem / 1e9, GPU_TYPE,
                          sizeof GPU_TYPE);
    return 0;
}

static const char *nvml_state = "not opened";
static char nvml_why[256];

static void nvml_init(bool quiet)
{
    char bus[32];
    CK(cudaDeviceGetPCIBusId(bus, sizeof bus, O.device));
    NV = cal_nvml_open(NULL, bus, nvml_why, sizeof nvml_why);
    nvml_state = NV ? "ok" : nvml_why;
    if (!NV && !quiet)
        note("note: utilization unknown (%s)", nvml_why);
}

/* ------------------------------------------------------------ cuDNN */

/* The legacy convolution API of cuDNN 8 and 9 (cudnn_ops.h, cudnn_cnn.h,
 * cudnn_graph.h), declared here so that no cuDNN header is needed. */
struct dnn_perf {
    int algo, status;
    float time;
    size_t memory;
    int determinism, math, reserved[3];
};
typedef void *dnn_t;
static struct {
    void *lib;
    size_t (*version)(void);
    const char *(*errstr)(int);
    int (*create)(dnn_t *);
    int (*set_stream)(dnn_t, cudaStream_t);
    int (*tensor_create)(dnn_t *);
    int (*tensor_set)(dnn_t, int, int, int, int, int, int);
    int (*tensor_destroy)(dnn_t);
    int (*filter_create)(dnn_t *);
    int (*filter_set)(dnn_t, int, int, int, int, int, int);
    int (*filter_destroy)(dnn_t);
    int (*conv_create)(dnn_t *);
    int (*conv_set)(dnn_t, int, int, int, int, int, int, int, int);
    int (*conv_math)(dnn_t, int);
    int (*conv_destroy)(dnn_t);
    int (*algo)(dnn_t, dnn_t, dnn_t, dnn_t, dnn_t, int, int *,
                struct dnn_perf *);
    int (*ws)(dnn_t, dnn_t, dnn_t, dnn_t, dnn_t, int, size_t *);
    int (*fwd)(dnn_t, const void *, dnn_t, const void *, dnn_t, const void *,
               dnn_t, int, void *, size_t, const void *, dnn_t, void *);
    dnn_t h;
} D;
static char dnn_state[128] = "not loaded";

enum { DNN_FLOAT = 0, DNN_HALF = 2, DNN_BF16 = 9, DNN_NHWC = 1,
       DNN_XCORR = 1, DNN_TENSOR_OP = 1 };

static bool dnn_open(void)
{
    const char *env = getenv("DLSIM_CUDNN_LIB");
    const char *names[] = { env && *env ? env : "libcudnn.so.9",
                            "libcudnn.so.8", "libcudnn.so" };
    for (int i = 0; i < 3 && !D.lib; i++)
        D.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!D.lib) {
        snprintf(dnn_state, sizeof dnn_state, "not found (%s)", names[0]);
        return false;
    }
#define SYM(f, name)                                                        \
    do {                                                                    \
        void *s_ = dlsym(D.lib, name);                                      \
        if (!s_) {                                                          \
            snprintf(dnn_state, sizeof dnn_state, "lacks %s", name);        \
            return false;                                                   \
        }                                                                   \
        memcpy(&D.f, &s_, sizeof s_);                                       \
    } while (0)
    SYM(version, "cudnnGetVersion");
    SYM(errstr, "cudnnGetErrorString");
    SYM(create, "cudnnCreate");
    SYM(set_stream, "cudnnSetStream");
    SYM(tensor_create, "cudnnCreateTensorDescriptor");
    SYM(tensor_set, "cudnnSetTensor4dDescriptor");
    SYM(tensor_destroy, "cudnnDestroyTensorDescriptor");
    SYM(filter_create, "cudnnCreateFilterDescriptor");
    SYM(filter_set, "cudnnSetFilter4dDescriptor");
    SYM(filter_destroy, "cudnnDestroyFilterDescriptor");
    SYM(conv_create, "cudnnCreateConvolutionDescriptor");
    SYM(conv_set, "cudnnSetConvolution2dDescriptor");
    SYM(conv_math, "cudnnSetConvolutionMathType");
    SYM(conv_destroy, "cudnnDestroyConvolutionDescriptor");
    SYM(algo, "cudnnGetConvolutionForwardAlgorithm_v7");
    SYM(ws, "cudnnGetConvolutionForwardWorkspaceSize");
    SYM(fwd, "cudnnConvolutionForward");
#undef SYM
    int r = D.create(&D.h);
    if (r) {
        snprintf(dnn_state, sizeof dnn_state, "cudnnCreate: %s",
                 D.errstr(r));
        return false;
    }
    snprintf(dnn_state, sizeof dnn_state, "%zu", D.version());
    return true;
}

/* ------------------------------------------------------------ probe */

static int cmd_probe(void)
{
    struct cal_probe p;
    memset(&p, 0, sizeof p);
    cudaDeviceProp dp;
    CK(cudaGetDeviceProperties(&dp, O.device));
    snprintf(p.name, sizeof p.name, "%s", dp.name);
    snprintf(p.gpu_type, sizeof p.gpu_type, "%s", GPU_TYPE);
    CK(cudaDeviceGetPCIBusId(p.pci_bus_id, sizeof p.pci_bus_id, O.device));
    p.cc_major = dp.major;
    p.cc_minor = dp.minor;
    p.sm_count = dp.multiProcessorCount;
    p.mem_gb = dp.totalGlobalMem / 1e9;
    int v;
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, O.device));
    p.sm_clock_mhz = v / 1e3;
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, O.device));
    p.mem_clock_mhz = v / 1e3;
    CK(cudaDeviceGetAttribute(&p.bus_width_bits,
                              cudaDevAttrGlobalMemoryBusWidth, O.device));
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, O.device));
    p.l2_mb = v / 1048576.0;
    CK(cudaDriverGetVersion(&p.driver_version));
    CK(cudaRuntimeGetVersion(&p.runtime_version));
    p.nvml = nvml_state;
    dnn_open();
    p.cudnn = dnn_state;

    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    /* D2D copy: a buffer far larger than L2 (50 MB on H100/H200) */
    size_t fr, tot;
    CK(cudaMemGetInfo(&fr, &tot));
    size_t bytes = O.quick ? (64u << 20) : (1u << 30);
    while (bytes > (64u << 20) && 2 * bytes > fr / 2)
        bytes /= 2;
    char *a = (char *)dalloc(bytes), *b = (char *)dalloc(bytes);
    fill((float *)a, bytes / 4, 1, s);
    struct cal_stats st;
    measure([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice,
                                     s)); }, s, O.quick ? 0.05 : 0.5, &st,
            NULL);
    p.d2d_buffer_mb = bytes / 1048576.0;
    p.d2d_gbs = 2.0 * bytes / (st.median * 1e-3) / 1e9;
    CK(cudaFree(a));
    CK(cudaFree(b));
    printf("%-28s %s (%s), %d SMs, %.1f GB, cc %d.%d\n", "device", p.name,
           p.gpu_type, p.sm_count, p.mem_gb, p.cc_major, p.cc_minor);
    printf("%-28s %.0f GB/s (read + write, %.0f MB buffers)\n",
           "d2d copy", p.d2d_gbs, p.d2d_buffer_mb);

    /* GEMM ceilings: square n x n x n */
    int n = O.quick ? 2048 : 8192;
    p.gemm_n = n;
    p.util_gemm = -1;
    size_t el = (size_t)n * n;
    void *A = dalloc(el * 4), *B = dalloc(el * 4), *C = dalloc(el * 4);
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    const cudaDataType dt[4] = { CUDA_R_32F, CUDA_R_32F, CUDA_R_16F,
                                 CUDA_R_16BF };
    const cublasComputeType_t ct[4] = { CUBLAS_COMPUTE_32F,
                                        CUBLAS_COMPUTE_32F_FAST_TF32,
                                        CUBLAS_COMPUTE_32F,
                                        CUBLAS_COMPUTE_32F };
    const int min_cc[4] = { 0, 80, 53, 80 };
    for (int i = 0; i < 4; i++) {
        p.gemm_tflops[i] = -1;
        if (CC < min_cc[i]) {
            note("note: %s GEMM needs compute capability %d.%d; skipped",
                 cal_gemm_prec[i], min_cc[i] / 10, min_cc[i] % 10);
            continue;
        }
        if (dt[i] == CUDA_R_16F) {
            fill((__half *)A, el, 2, s);
            fill((__half *)B, el, 3, s);
        } else if (dt[i] == CUDA_R_16BF) {
            fill((__nv_bfloat16 *)A, el, 2, s);
            fill((__nv_bfloat16 *)B, el, 3, s);
        } else {
            fill((float *)A, el, 2, s);
            fill((float *)B, el, 3, s);
        }
        double u;
        measure([&] { gemm(h, dt[i], ct[i], n, n, n, A, B, C); }, s,
                O.quick ? 0.05 : 0.5, &st, &u);
        p.gemm_tflops[i] = 2.0 * n * (double)n * n / (st.median * 1e-3) / 1e12;
        if (i >= 2 && u >= 0)
            p.util_gemm = u;
        printf("%-28s %.1f TFLOP/s\n",
               i == 0 ? "gemm fp32" : i == 1 ? "gemm tf32"
                                    : i == 2 ? "gemm fp16" : "gemm bf16",
               p.gemm_tflops[i]);
    }
    CB(cublasDestroy(h));
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    CK(cudaStreamDestroy(s));
    char msg[512];
    if (cal_write_file(O.out_dir, "probe.json", cal_fn_probe, &p, 1, msg,
                       sizeof msg)) {
        note("%s", msg);
        return CAL_EXIT_FAIL;
    }
    printf("-> %s/probe.json\n", O.out_dir);
    return 0;
}

/* ------------------------------------------------------------ suite */

#define SUITE_MAX 64

struct suite {
    struct cal_suite_row r[SUITE_MAX];
    char shape[SUITE_MAX][64];
    int n;
};

static struct cal_suite_row *suite_add(struct suite *S, const char *name,
                                       const char *cat, const char *prec,
                                       const char *path)
{
    struct cal_suite_row *r = &S->r[S->n];
    r->name = name;
    r->category = cat;
    r->precision = prec;
    r->path = path;
    r->shape = S->shape[S->n];
    S->n++;
    return r;
}

static int cmd_suite(void)
{
    struct suite *S = (struct suite *)calloc(1, sizeof *S);
    if (!S)
        abort();
    const bool bf = CC >= 80;
    const cudaDataType t16 = bf ? CUDA_R_16BF : CUDA_R_16F;
    const char *p16 = bf ? "bf16" : "fp16";
    const double mt = O.quick ? 0.02 : 0.2;
    const int q = O.quick ? 8 : 1;      /* --quick divides sizes */
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    if (!D.lib)
        dnn_open();
    bool dnn = D.h && !D.set_stream(D.h, s);
    if (!dnn)
        note("note: cuDNN %s: convolutions run as implicit GEMMs through "
             "cuBLAS (path gemm-fallback)", dnn_state);

    /* one pool of buffers for everything: 3 x 1 GiB (quick: 3 x 64 MiB) */
    size_t cap = O.quick ? (64u << 20) : (1u << 30);
    void *X = dalloc(cap), *Y = dalloc(cap), *Z = dalloc(cap);
    if (bf) {
        fill((__nv_bfloat16 *)X, cap / 2, 11, s);
        fill((__nv_bfloat16 *)Y, cap / 2, 12, s);
    } else {
        fill((__half *)X, cap / 2, 11, s);
        fill((__half *)Y, cap / 2, 12, s);
    }
    fill((__half *)Z, cap / 2, 13, s);

    /* GEMMs: transformer and CNN (implicit-GEMM) shapes */
    static const struct { const char *name, *cat; int64_t m, n, k; int prec; }
    gm[] = {
        { "bert_qkv", "gemm_transformer", 8192, 2304, 768, 0 },
        { "bert_ffn_up", "gemm_transformer", 8192, 3072, 768, 0 },
        { "bert_ffn_down", "gemm_transformer", 8192, 768, 3072, 0 },
        { "llm_attn_out", "gemm_transformer", 8192, 4096, 4096, 0 },
        { "llm_ffn_up", "gemm_transformer", 8192, 11008, 4096, 0 },
        { "resnet50_3x3_s56", "gemm_cnn", 64 * 56 * 56, 64, 576, 0 },
        { "resnet50_1x1_s14", "gemm_cnn", 64 * 14 * 14, 1024, 256, 0 },
        { "resnet50_3x3_s7", "gemm_cnn", 64 * 7 * 7, 512, 4608, 0 },
        { "lstm_step", "gemm_rnn", 64, 4096, 1024, 0 },
        { "bert_ffn_up", "gemm_transformer", 8192, 3072, 768, 1 },
        { "bert_ffn_up", "gemm_transformer", 8192, 3072, 768, 2 },
    };
    for (size_t i = 0; i < sizeof gm / sizeof gm[0]; i++) {
        int prec = gm[i].prec;          /* 0: 16-bit, 1: tf32, 2: fp32 */
        if (prec == 1 && CC < 80)
            continue;
        int64_t m = gm[i].m / q, n = gm[i].n, k = gm[i].k;
        m = m < 8 ? 8 : m;
        size_t es = prec ? 4 : 2;
        if ((size_t)(m * k) * es > cap || (size_t)(k * n) * es > cap ||
            (size_t)(m * n) * es > cap)
            continue;
        if (prec) {
            fill((float *)X, (size_t)(m * k), 21, s);
            fill((float *)Y, (size_t)(k * n), 22, s);
        }
        struct cal_suite_row *r = suite_add(S, gm[i].name, gm[i].cat,
                                            prec == 0 ? p16
                                            : prec == 1 ? "tf32" : "fp32",
                                            "cublas");
        snprintf(S->shape[S->n - 1], 64, "m%ld_n%ld_k%ld", (long)m, (long)n,
                 (long)k);
        r->flops = 2.0 * m * n * k;
        r->bytes = (double)es * (m * k + k * n + m * n);
        cudaDataType t = prec ? CUDA_R_32F : t16;
        cublasComputeType_t c = prec == 1 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                          : CUBLAS_COMPUTE_32F;
        measure([&] { gemm(h, t, c, m, n, k, X, Y, Z); }, s, mt, &r->st,
                &r->util);
    }
    if (bf) {       /* refill the 16-bit inputs the fp32 GEMMs overwrote */
        fill((__nv_bfloat16 *)X, cap / 2, 11, s);
        fill((__nv_bfloat16 *)Y, cap / 2, 12, s);
    } else {
        fill((__half *)X, cap / 2, 11, s);
        fill((__half *)Y, cap / 2, 12, s);
    }

    /* convolutions of ResNet-50 (batch 64, NHWC), cuDNN or implicit GEMM */
    static const struct { const char *name; int c, hw, k, r, stride, pad; }
    cv[] = {
        { "resnet50_conv1_7x7", 3, 224, 64, 7, 2, 3 },
        { "resnet50_res2_1x1a", 64, 56, 64, 1, 1, 0 },
        { "resnet50_res2_3x3", 64, 56, 64, 3, 1, 1 },
        { "resnet50_res2_1x1b", 64, 56, 256, 1, 1, 0 },
        { "resnet50_res3_3x3", 128, 28, 128, 3, 1, 1 },
        { "resnet50_res4_3x3", 256, 14, 256, 3, 1, 1 },
        { "resnet50_res4_1x1", 1024, 14, 256, 1, 1, 0 },
        { "resnet50_res5_3x3", 512, 7, 512, 3, 1, 1 },
        { "resnet50_res5_1x1", 2048, 7, 512, 1, 1, 0 },
    };
    const int N = 64 / q;
    void *ws = NULL;
    size_t ws_size = 0;
    for (size_t i = 0; i < sizeof cv / sizeof cv[0]; i++) {
        int ho = (cv[i].hw + 2 * cv[i].pad - cv[i].r) / cv[i].stride + 1;
        double in = (double)N * cv[i].c * cv[i].hw * cv[i].hw,
               w = (double)cv[i].k * cv[i].c * cv[i].r * cv[i].r,
               out = (double)N * cv[i].k * ho * ho;
        if (in * 2 > cap || w * 2 > cap || out * 2 > cap)
            continue;
        double flops = 2.0 * out * cv[i].c * cv[i].r * cv[i].r;
        bool done = false;
        if (dnn) {
            dnn_t xd = 0, wd = 0, yd = 0, cd = 0;
            int dt = bf ? DNN_BF16 : DNN_HALF, rc, got = 0;
            struct dnn_perf perf[8];
            size_t need = 0;
            if (!(rc = D.tensor_create(&xd)) && !(rc = D.tensor_create(&yd)) &&
                !(rc = D.filter_create(&wd)) && !(rc = D.conv_create(&cd)) &&
                !(rc = D.tensor_set(xd, DNN_NHWC, dt, N, cv[i].c, cv[i].hw,
                                    cv[i].hw)) &&
                !(rc = D.tensor_set(yd, DNN_NHWC, dt, N, cv[i].k, ho, ho)) &&
                !(rc = D.filter_set(wd, dt, DNN_NHWC, cv[i].k, cv[i].c,
                                    cv[i].r, cv[i].r)) &&
                !(rc = D.conv_set(cd, cv[i].pad, cv[i].pad, cv[i].stride,
                                  cv[i].stride, 1, 1, DNN_XCORR, DNN_FLOAT)) &&
                !(rc = D.conv_math(cd, DNN_TENSOR_OP)) &&
                !(rc = D.algo(D.h, xd, wd, cd, yd, 8, &got, perf)) &&
                got > 0 && !(rc = perf[0].status) &&
                !(rc = D.ws(D.h, xd, wd, cd, yd, perf[0].algo, &need))) {
                if (need > ws_size) {
                    if (ws)
                        CK(cudaFree(ws));
                    ws = dalloc(need);
                    ws_size = need;
                }
                const float one = 1, zero = 0;
                int algo = perf[0].algo;
                /* one trial run: a refusal falls back to the GEMM */
                rc = D.fwd(D.h, &one, xd, X, wd, Y, cd, algo, ws, ws_size,
                           &zero, yd, Z);
                CK(cudaStreamSynchronize(s));
                if (rc) {
                    note("note: cudnnConvolutionForward refused %s (%s); "
                         "implicit GEMM instead", cv[i].name, D.errstr(rc));
                } else {
                    struct cal_suite_row *r = suite_add(S, cv[i].name,
                                                        "conv", p16, "cudnn");
                    snprintf(S->shape[S->n - 1], 64,
                             "n%d_c%d_hw%d_k%d_r%d_s%d", N, cv[i].c,
                             cv[i].hw, cv[i].k, cv[i].r, cv[i].stride);
                    r->flops = flops;
                    r->bytes = 2 * (in + w + out);
                    measure([&] {
                        int e = D.fwd(D.h, &one, xd, X, wd, Y, cd, algo, ws,
                                      ws_size, &zero, yd, Z);
                        if (e) {
                            note("%s: cudnnConvolutionForward: %s",
                                 cv[i].name, D.errstr(e));
                            exit(CAL_EXIT_FAIL);
                        }
                    }, s, mt, &r->st, &r->util);
                    done = true;
                }
            } else {
                note("note: cuDNN refused %s (%s); implicit GEMM instead",
                     cv[i].name, rc ? D.errstr(rc) : "no algorithm");
            }
            if (xd) D.tensor_destroy(xd);
            if (yd) D.tensor_destroy(yd);
            if (wd) D.filter_destroy(wd);
            if (cd) D.conv_destroy(cd);
        }
        if (!done) {
            int64_t m = (int64_t)N * ho * ho, n = cv[i].k,
                    k = (int64_t)cv[i].c * cv[i].r * cv[i].r;
            if ((size_t)(m * k) * 2 > cap)
                continue;
            struct cal_suite_row *r = suite_add(S, cv[i].name, "conv", p16,
                                                "gemm-fallback");
            snprintf(S->shape[S->n - 1], 64, "n%d_c%d_hw%d_k%d_r%d_s%d", N,
                     cv[i].c, cv[i].hw, cv[i].k, cv[i].r, cv[i].stride);
            r->flops = flops;
            r->bytes = 2 * (in + w + out);
            measure([&] { gemm(h, t16, CUBLAS_COMPUTE_32F, m, n, k, X, Y, Z); },
                    s, mt, &r->st, &r->util);
        }
    }
    if (ws)
        CK(cudaFree(ws));

    /* memory-bound kernels */
    fill((float *)X, cap / 4, 31, s);
    fill((float *)Y, cap / 4, 32, s);
    size_t nh = cap / 2, nf = cap / 4;
    struct cal_suite_row *r;
    r = suite_add(S, "relu", "elementwise", "fp16", "kernel");
    snprintf(S->shape[S->n - 1], 64, "n%zu", nh);
    r->bytes = 4.0 * nh;
    measure([&] {
        k_eltwise<<<grid_for(nh, 8), 256, 0, s>>>((__half *)X, NULL,
                                                  (__half *)Z, nh, 0);
        CK(cudaGetLastError());
    }, s, mt, &r->st, &r->util);
    r = suite_add(S, "add_relu", "elementwise", "fp16", "kernel");
    snprintf(S->shape[S->n - 1], 64, "n%zu", nh);
    r->bytes = 6.0 * nh;
    measure([&] {
        k_eltwise<<<grid_for(nh, 8), 256, 0, s>>>((__half *)X, (__half *)Y,
                                                  (__half *)Z, nh, 1);
        CK(cudaGetLastError());
    }, s, mt, &r->st, &r->util);
    r = suite_add(S, "axpy", "elementwise", "fp32", "kernel");
    snprintf(S->shape[S->n - 1], 64, "n%zu", nf);
    r->flops = 2.0 * nf;
    r->bytes = 12.0 * nf;
    measure([&] {
        k_axpy<<<grid_for(nf, 4), 256, 0, s>>>((float *)X, (float *)Z, nf,
                                               1e-3f);
        CK(cudaGetLastError());
    }, s, mt, &r->st, &r->util);
    float *acc = (float *)dalloc(4);
    r = suite_add(S, "sum", "reduction", "fp32", "kernel");
    snprintf(S->shape[S->n - 1], 64, "n%zu", nf);
    r->flops = (double)nf;
    r->bytes = 4.0 * nf;
    measure([&] {
        CK(cudaMemsetAsync(acc, 0, 4, s));
        k_reduce<<<grid_for(nf, 16), 256, 0, s>>>((float *)X, nf, acc);
        CK(cudaGetLastError());
    }, s, mt, &r->st, &r->util);
    static const struct { const char *name; int cols; } sm[] = {
        { "softmax_attention", 64 }, { "softmax_attention", 512 },
        { "softmax_classes", 1000 }, { "softmax_vocab", 32768 },
    };
    for (size_t i = 0; i < sizeof sm / sizeof sm[0]; i++) {
        long rows = (long)(nf / 4 / sm[i].cols);
        r = suite_add(S, sm[i].name, "softmax", "fp32", "kernel");
        snprintf(S->shape[S->n - 1], 64, "rows%ld_cols%d", rows, sm[i].cols);
        r->flops = 5.0 * rows * sm[i].cols;
        r->bytes = 8.0 * rows * sm[i].cols;
        int cols = sm[i].cols;
        int threads = cols >= 1024 ? 512 : cols >= 256 ? 256 : 64;
        int grid = (int)(rows < SMS * 32L ? rows : SMS * 32L);
        measure([&] {
            k_softmax<<<grid, threads, 0, s>>>((float *)X, (float *)Z, rows,
                                               cols);
            CK(cudaGetLastError());
        }, s, mt, &r->st, &r->util);
    }
    CK(cudaFree(acc));
    CK(cudaFree(X));
    CK(cudaFree(Y));
    CK(cudaFree(Z));
    CB(cublasDestroy(h));
    CK(cudaStreamDestroy(s));

    printf("%-20s %-17s %-5s %-13s %10s %9s %9s\n", "kernel", "category",
           "prec", "path", "median_ms", "TFLOP/s", "GB/s");
    for (int i = 0; i < S->n; i++) {
        const struct cal_suite_row *x = &S->r[i];
        double sec = x->st.median * 1e-3;
        printf("%-20s %-17s %-5s %-13s %10.4f %9.1f %9.0f\n", x->name,
               x->category, x->precision, x->path, x->st.median,
               x->flops / sec * 1e-12, x->bytes / sec * 1e-9);
    }
    char msg[512];
    int rc = 0;
    if (cal_write_file(O.out_dir, "suite.csv", cal_fn_suite, S->r, S->n, msg,
                       sizeof msg)) {
        note("%s", msg);
        rc = CAL_EXIT_FAIL;
    } else {
        printf("-> %s/suite.csv\n", O.out_dir);
    }
    free(S);
    return rc;
}

/* ------------------------------------------------------------ proxies */

/* A proxy's device state: buffers, a stream and a cuBLAS handle. */
struct prt {
    const struct cal_proxy *p;
    struct cal_plan pl;
    cudaStream_t s;
    cublasHandle_t h;
    __half *A, *B, *C, *E0, *E1;
    float *w, *g, *mom, *acc;
};

static bool prt_fits(const struct cal_plan *pl, int sides)
{
    size_t fr, tot;
    CK(cudaMemGetInfo(&fr, &tot));
    return cal_plan_mem_bytes(pl) * sides + (256u << 20) < 0.9 * fr;
}

static void prt_init(struct prt *r, int idx)
{
    memset(r, 0, sizeof *r);
    r->p = &cal_proxies[idx];
    cal_proxy_plan(r->p, &r->pl);
    CK(cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking));
    CB(cublasCreate(&r->h));
    CB(cublasSetStream(r->h, r->s));
    const struct cal_plan *pl = &r->pl;
    r->A = (__half *)dalloc(2 * (size_t)pl->max_a);
    r->B = (__half *)dalloc(2 * (size_t)pl->max_b);
    r->C = (__half *)dalloc(2 * (size_t)pl->max_c);
    r->E0 = (__half *)dalloc(2 * (size_t)pl->max_elt);
    r->E1 = (__half *)dalloc(2 * (size_t)pl->max_elt);
    r->w = (float *)dalloc(4 * (size_t)pl->params);
    r->g = (float *)dalloc(4 * (size_t)pl->params);
    r->mom = (float *)dalloc(4 * (size_t)pl->params);
    r->acc = (float *)dalloc(4);
    uint32_t seed = 100 + 7 * idx;
    fill(r->A, pl->max_a, seed, r->s);
    fill(r->B, pl->max_b, seed + 1, r->s);
    fill(r->C, pl->max_c, seed + 2, r->s);
    fill(r->E0, pl->max_elt, seed + 3, r->s);
    fill(r->E1, pl->max_elt, seed + 4, r->s);
    fill(r->w, pl->params, seed + 5, r->s);
    fill(r->g, pl->params, seed + 6, r->s);
    fill(r->mom, pl->params, seed + 7, r->s);
    CK(cudaStreamSynchronize(r->s));
}

static void prt_free(struct prt *r)
{
    CK(cudaStreamSynchronize(r->s));
    void *bufs[] = { r->A, r->B, r->C, r->E0, r->E1, r->w, r->g, r->mom,
                     r->acc };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        CK(cudaFree(bufs[i]));
    CB(cublasDestroy(r->h));
    CK(cudaStreamDestroy(r->s));
}

static void run_op(struct prt *r, const struct cal_op *o)
{
    cudaStream_t s = r->s;
    switch (o->kind) {
    case CAL_OP_GEMM:
        gemm(r->h, CUDA_R_16F, CUBLAS_COMPUTE_32F, o->m, o->n, o->k, r->A,
             r->B, r->C);
        break;
    case CAL_OP_ELTWISE:
        k_eltwise<<<grid_for(o->m, 8), 256, 0, s>>>(r->C, r->E1, r->E0, o->m,
                                                   o->n == 2);
        CK(cudaGetLastError());
        break;
    case CAL_OP_SOFTMAX: {
        int threads = o->n >= 1024 ? 512 : o->n >= 256 ? 256 : 64;
        int grid = (int)(o->m < SMS * 32L ? o->m : SMS * 32L);
        k_softmax<<<grid, threads, 0, s>>>((const float *)r->E1,
                                           (float *)r->E0, (long)o->m,
                                           (int)o->n);
        CK(cudaGetLastError());
        break;
    }
    case CAL_OP_REDUCE:
        CK(cudaMemsetAsync(r->acc, 0, 4, s));
        k_reduce<<<grid_for(o->m, 16), 256, 0, s>>>((const float *)r->E1,
                                                    o->m, r->acc);
        CK(cudaGetLastError());
        break;
    case CAL_OP_OPTIM:
        k_optim<<<grid_for(o->m, 4), 256, 0, s>>>(r->w, r->g, r->mom, o->m);
        CK(cudaGetLastError());
        break;
    }
}

/* One training step of the proxy, enqueued on r->s. */
static void prt_step(struct prt *r)
{
    const struct cal_plan *pl = &r->pl;
    for (int i = 0; i < pl->block0; i++)
        for (int c = 0; c < pl->op[i].count; c++)
            run_op(r, &pl->op[i]);
    for (int k = 0; k < pl->reps; k++)
        for (int i = pl->block0; i < pl->block1; i++)
            run_op(r, &pl->op[i]);
    for (int i = pl->block1; i < pl->nops; i++)
        for (int c = 0; c < pl->op[i].count; c++)
            run_op(r, &pl->op[i]);
}

static int sel_or_all(const int *sel, int n, int *out)
{
    if (n) {
        memcpy(out, sel, n * sizeof *out);
        return n;
    }
    for (int i = 0; i < cal_nproxies; i++)
        out[i] = i;
    return cal_nproxies;
}

static char names[CAL_MAX_SEL][80];

static const char *pname(int i)
{
    snprintf(names[i], sizeof names[i], "%s@%d", cal_proxies[i].model,
             cal_proxies[i].batch);
    return names[i];
}

static int cmd_proxies(void)
{
    int sel[CAL_MAX_SEL];
    int n = sel_or_all(O.sel, O.nsel, sel), nr = 0, nu = 0;
    struct cal_rt_row *rt = (struct cal_rt_row *)calloc(n, sizeof *rt);
    struct cal_util_row *ut = (struct cal_util_row *)calloc(n, sizeof *ut);
    if (!rt || !ut)
        abort();
    printf("%-22s %8s %10s %9s %8s %6s\n", "proxy", "it/s", "median_ms",
           "TFLOP/s", "util", "reps");
    for (int k = 0; k < n; k++) {
        int i = sel[k];
        const char *name = pname(i);
        if (over_budget()) {
            note("budget of %g s spent: proxy %s not measured", O.budget_s,
                 name);
            continue;
        }
        struct cal_plan pl;
        cal_proxy_plan(&cal_proxies[i], &pl);
        if (!prt_fits(&pl, 1)) {
            note("proxy %s needs %.1f GB: more than is free; skipped", name,
                 cal_plan_mem_bytes(&pl) / 1e9);
            continue;
        }
        struct prt r;
        prt_init(&r, i);
        struct cal_rt_row *x = &rt[nr++];
        measure([&] { prt_step(&r); }, r.s, O.min_time_s, &x->st, &x->util);
        prt_free(&r);
        x->gpu_type = GPU_TYPE;
        x->model = cal_proxies[i].model;
        x->batch = cal_proxies[i].batch;
        x->throughput = 1e3 / x->st.median;
        x->proxy_tflop = pl.flops / 1e12;
        x->target_tflop = 3 * cal_proxies[i].flops / 1e12;
        x->proxy_gb = pl.bytes / 1e9;
        x->mem_gb = cal_plan_mem_bytes(&pl) / 1e9;
        printf("%-22s %8.2f %10.3f %9.1f %8.2f %6d\n", name, x->throughput,
               x->st.median, pl.flops / (x->st.median * 1e-3) / 1e12, x->util,
               pl.reps);
        if (x->util >= 0) {
            const struct cal_proxy *p = &cal_proxies[i];
            ut[nu++] = (struct cal_util_row){
                p->model, GPU_TYPE, p->batch, x->util, p->flops, p->params,
                p->conv, p->linear, p->act, p->other,
            };
        }
        fflush(stdout);
    }
    char msg[512];
    int rc = 0;
    if (cal_write_file(O.out_dir, "runtime.csv", cal_fn_runtime, rt, nr, msg,
                       sizeof msg)) {
        note("%s", msg);
        rc = CAL_EXIT_FAIL;
    } else {
        printf("-> %s/runtime.csv (%d rows)\n", O.out_dir, nr);
    }
    if (nu) {
        if (cal_write_file(O.out_dir, "util.csv", cal_fn_util, ut, nu, msg,
                           sizeof msg)) {
            note("%s", msg);
            rc = CAL_EXIT_FAIL;
        } else {
            printf("-> %s/util.csv (%d rows)\n", O.out_dir, nu);
        }
    } else {
        note("no utilization measured (NVML: %s): util.csv not written",
             nvml_state);
    }
    free(rt);
    free(ut);
    return rc;
}

/* ------------------------------------------------------------ windows */

/* Runs steps of r for window_s after the barrier; the rate is steps per
 * second between the barrier and the end of the last step. */
struct side {
    int idx;
    pthread_barrier_t *bar, *done;
    double window_s;
    long steps;
    double secs;
};

static void run_window(struct prt *r, double window_s, long *steps,
                       double *secs)
{
    double t0 = now_s(), t;
    long k = 0;
    do {
        prt_step(r);
        CK(cudaStreamSynchronize(r->s));
        k++;
        t = now_s();
    } while (t - t0 < window_s);
    *steps = k;
    *secs = t - t0;
}

static void *side_thread(void *arg)
{
    struct side *sd = (struct side *)arg;
    CK(cudaSetDevice(O.device));
    struct prt r;
    prt_init(&r, sd->idx);
    for (int i = 0; i < 2; i++)                 /* warm-up steps */
        prt_step(&r);
    CK(cudaStreamSynchronize(r.s));
    pthread_barrier_wait(sd->bar);
    run_window(&r, sd->window_s, &sd->steps, &sd->secs);
    /* cudaFree synchronizes the device: no side frees while the other
     * still runs its window */
    pthread_barrier_wait(sd->done);
    prt_free(&r);
    return NULL;
}

/* k = 1 or 2 sides in this process (streams); rates in steps/s. */
static double streams_window(const int *idx, int k, double *rate)
{
    pthread_barrier_t bar, done;
    pthread_barrier_init(&bar, NULL, (unsigned)k + 1);
    pthread_barrier_init(&done, NULL, (unsigned)k);
    struct side sd[2];
    pthread_t th[2];
    for (int i = 0; i < k; i++) {
        sd[i] = (struct side){ idx[i], &bar, &done, O.window_s, 0, 0 };
        if (pthread_create(&th[i], NULL, side_thread, &sd[i])) {
            note("pthread_create failed");
            exit(CAL_EXIT_FAIL);
        }
    }
    pthread_barrier_wait(&bar);
    cal_nvml_start(NV, 20);
    for (int i = 0; i < k; i++)
        pthread_join(th[i], NULL);
    double u = cal_nvml_stop(NV);
    pthread_barrier_destroy(&bar);
    pthread_barrier_destroy(&done);
    for (int i = 0; i < k; i++)
        rate[i] = sd[i].steps / sd[i].secs;
    return u;
}

/* The worker command: one side of a time-sliced pair, in its own process.
 * Protocol on the pipes: worker writes "R\n" when warmed up, reads one
 * byte (the go), runs the window, writes "STEPS SECONDS\n" and exits 0. */
static int cmd_worker(void)
{
    struct prt r;
    prt_init(&r, O.worker_proxy);
    for (int i = 0; i < 2; i++)
        prt_step(&r);
    CK(cudaStreamSynchronize(r.s));
    if (write(O.ready_fd, "R\n", 2) != 2)
        return CAL_EXIT_FAIL;
    char c;
    if (read(O.go_fd, &c, 1) != 1)
        return CAL_EXIT_FAIL;
    long steps;
    double secs;
    run_window(&r, O.window_s, &steps, &secs);
    char buf[64];
    int len = snprintf(buf, sizeof buf, "%ld %.9f\n", steps, secs);
    if (write(O.ready_fd, buf, len) != len)
        return CAL_EXIT_FAIL;
    prt_free(&r);
    return 0;
}

/* Reads one line (up to n-1 bytes) from fd; 0 or -1 on EOF/error. */
static int read_line(int fd, char *buf, size_t n)
{
    size_t k = 0;
    while (k + 1 < n) {
        ssize_t g = read(fd, buf + k, 1);
        if (g < 0 && errno == EINTR)
            continue;
        if (g != 1)
            return -1;
        if (buf[k++] == '\n')
            break;
    }
    buf[k] = 0;
    return 0;
}

/* Two worker processes, time-sliced by the driver.  0, or -1 when a
 * worker failed (the pair is then skipped). */
static int timeslice_window(const int *idx, double *rate, double *util)
{
    int ready[2][2], go[2][2];
    pid_t pid[2] = { -1, -1 };
    char args[2][6][32];
    for (int i = 0; i < 2; i++) {
        /* close-on-exec: each worker keeps only its own two ends, so
         * that EOF reaches whoever waits when a process dies */
        if (pipe2(ready[i], O_CLOEXEC) || pipe2(go[i], O_CLOEXEC)) {
            note("pipe: %s", strerror(errno));
            exit(CAL_EXIT_FAIL);
        }
    }
    fflush(NULL);
    for (int i = 0; i < 2; i++) {
        snprintf(args[i][0], 32, "%d", O.device);
        snprintf(args[i][1], 32, "%.6f", O.window_s);
        snprintf(args[i][2], 32, "%d", ready[i][1]);
        snprintf(args[i][3], 32, "%d", go[i][0]);
        char name[80];
        snprintf(name, sizeof name, "%s@%d", cal_proxies[idx[i]].model,
                 cal_proxies[idx[i]].batch);
        char *argv[] = { (char *)"dlsim-calibrate", (char *)"worker",
                         (char *)"--device", args[i][0], (char *)"--window",
                         args[i][1], (char *)"--ready-fd", args[i][2],
                         (char *)"--go-fd", args[i][3], (char *)"--proxy",
                         name, NULL };
        pid[i] = fork();
        if (pid[i] < 0) {
            note("fork: %s", strerror(errno));
            exit(CAL_EXIT_FAIL);
        }
        if (pid[i] == 0) {
            fcntl(ready[i][1], F_SETFD, 0);
            fcntl(go[i][0], F_SETFD, 0);
            execv("/proc/self/exe", argv);
            _exit(127);
        }
    }
    for (int i = 0; i < 2; i++) {
        close(ready[i][1]);
        close(go[i][0]);
    }
    int rc = 0;
    char line[64];
    for (int i = 0; i < 2 && !rc; i++)
        if (read_line(ready[i][0], line, sizeof line) || strcmp(line, "R\n"))
            rc = -1;
    if (!rc) {
        cal_nvml_start(NV, 20);
        for (int i = 0; i < 2; i++)
            if (write(go[i][1], "G", 1) != 1)
                rc = -1;
    }
    for (int i = 0; i < 2; i++) {
        long steps = 0;
        double secs = 0;
        if (!rc && (read_line(ready[i][0], line, sizeof line) ||
                    sscanf(line, "%ld %lf", &steps, &secs) != 2 ||
                    !(secs > 0)))
            rc = -1;
        rate[i] = secs > 0 ? steps / secs : 0;
    }
    double u = cal_nvml_stop(NV);
    *util = u;
    for (int i = 0; i < 2; i++) {
        close(ready[i][0]);
        close(go[i][1]);            /* a waiting worker reads EOF, exits */
        int st;
        while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(st) || WEXITSTATUS(st))
            rc = -1;
    }
    return rc;
}

static int cmd_pairs(void)
{
    int sel[CAL_MAX_SEL], n;
    if (O.npsel) {
        n = O.npsel;
        memcpy(sel, O.psel, n * sizeof *sel);
    } else {            /* --quick: a smoke test of 3 proxies, 6 pairs */
        n = O.quick ? 3 : cal_ndefault_pairs;
        memcpy(sel, cal_default_pairs, n * sizeof *sel);
    }
    /* solo rates, measured the way the pairs are */
    double solo[CAL_MAX_SEL], usolo[CAL_MAX_SEL];
    int ok[CAL_MAX_SEL];
    printf("%-22s %10s %8s\n", "solo (window)", "it/s", "util");
    for (int k = 0; k < n; k++) {
        struct cal_plan pl;
        cal_proxy_plan(&cal_proxies[sel[k]], &pl);
        ok[k] = prt_fits(&pl, 2) && !over_budget();
        if (!ok[k]) {
            note("proxy %s not paired (memory or budget)", pname(sel[k]));
            continue;
        }
        usolo[k] = streams_window(&sel[k], 1, &solo[k]);
        printf("%-22s %10.2f %8.2f\n", pname(sel[k]), solo[k], usolo[k]);
        fflush(stdout);
    }
    /* two processes cannot share a GPU in an exclusive compute mode (which
     * the tool never changes): time-slicing is then not measured */
    int mechs = O.mechanisms, mode;
    CK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, O.device));
    if ((mechs & CAL_MECH_TIMESLICE) && mode != cudaComputeModeDefault) {
        note("note: compute mode %d is not the default (shared): two "
             "processes cannot share the GPU; timeslice pairs skipped",
             mode);
        mechs &= ~CAL_MECH_TIMESLICE;
    }
    int maxrows = n * (n + 1) / 2;
    struct cal_pair_row *rows[2];
    int nrows[2] = { 0, 0 }, failed = 0, skipped = 0;
    for (int m = 0; m < 2; m++) {
        rows[m] = (struct cal_pair_row *)calloc(maxrows, sizeof *rows[m]);
        if (!rows[m])
            abort();
    }
    static const char *const mech[2] = { "streams", "timeslice" };
    printf("%-9s %-22s %-22s %7s %7s %8s\n", "mechanism", "job_a", "job_b",
           "rate_a", "rate_b", "util");
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++) {
            if (!ok[a] || !ok[b])
                continue;
            for (int m = 0; m < 2; m++) {
                if (!(mechs & (1 << m)))
                    continue;
                if (over_budget()) {
                    skipped++;
                    continue;
                }
                int idx[2] = { sel[a], sel[b] };
                double rate[2], u;
                if (m == 0) {
                    u = streams_window(idx, 2, rate);
                } else if (timeslice_window(idx, rate, &u)) {
                    note("time-sliced pair %s + %s failed; skipped",
                         pname(sel[a]), pname(sel[b]));
                    if (++failed >= 2 && !nrows[1]) {
                        note("time-slicing fails every time: no more "
                             "timeslice pairs");
                        mechs &= ~CAL_MECH_TIMESLICE;
                    }
                    continue;
                }
                struct cal_pair_row *x = &rows[m][nrows[m]++];
                x->gpu_type = GPU_TYPE;
                x->job_a = strdup(pname(sel[a]));
                x->job_b = strdup(pname(sel[b]));
                x->mechanism = mech[m];
                x->solo_a = solo[a];
                x->solo_b = solo[b];
                x->pair_a = rate[0];
                x->pair_b = rate[1];
                x->raw_a = rate[0] / solo[a];
                x->raw_b = rate[1] / solo[b];
                /* SPEC 7 rates are in (0, 1]: noise can push a ratio a
                 * little over 1, and a starved side can finish no step */
                x->rate_a = fmin(1.0, fmax(x->raw_a, 1e-3));
                x->rate_b = fmin(1.0, fmax(x->raw_b, 1e-3));
                x->util_a = usolo[a];
                x->util_b = usolo[b];
                x->window_s = O.window_s;
                printf("%-9s %-22s %-22s %7.3f %7.3f %8.2f\n", mech[m],
                       x->job_a, x->job_b, x->raw_a, x->raw_b, u);
                fflush(stdout);
            }
        }
    if (skipped)
        note("budget of %g s spent: %d pair measurements skipped",
             O.budget_s, skipped);
    int rc = failed ? CAL_EXIT_FAIL : 0;
    for (int m = 0; m < 2; m++) {
        if (!(O.mechanisms & (1 << m)))
            continue;       /* a skipped mechanism writes its header only */
        char name[64], msg[512];
        snprintf(name, sizeof name, "pairs-%s.csv", mech[m]);
        if (cal_write_file(O.out_dir, name, cal_fn_pairs, rows[m], nrows[m],
                           msg, sizeof msg)) {
            note("%s", msg);
            rc = CAL_EXIT_FAIL;
        } else {
            printf("-> %s/%s (%d pairs)\n", O.out_dir, name, nrows[m]);
        }
        for (int i = 0; i < nrows[m]; i++) {
            free((void *)rows[m][i].job_a);
            free((void *)rows[m][i].job_b);
        }
        free(rows[m]);
    }
    return rc;
}

/* ------------------------------------------------------------ list */

static int cmd_list(void)
{
    static const char *const kinds[] = { "cnn", "transformer", "rnn", "mlp" };
    printf("%-22s %-11s %6s %11s %11s %9s %9s %s\n", "proxy", "kind", "reps",
           "TFLOP/step", "target", "GB/step", "mem_GB", "paired");
    for (int i = 0; i < cal_nproxies; i++) {
        struct cal_plan pl;
        cal_proxy_plan(&cal_proxies[i], &pl);
        int paired = 0;
        for (int k = 0; k < cal_ndefault_pairs; k++)
            paired |= cal_default_pairs[k] == i;
        printf("%-22s %-11s %6d %11.4f %11.4f %9.3f %9.3f %s\n", pname(i),
               kinds[cal_proxies[i].kind], pl.reps, pl.flops / 1e12,
               3 * cal_proxies[i].flops / 1e12, pl.bytes / 1e9,
               cal_plan_mem_bytes(&pl) / 1e9, paired ? "yes" : "");
    }
    return 0;
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    char msg[512];
    T0 = now_s();
    if (cal_parse_args(argc, argv, &O, msg, sizeof msg)) {
        fprintf(stderr, "dlsim-calibrate: %s (see dlsim-calibrate --help)\n",
                msg);
        return CAL_EXIT_USAGE;
    }
    if (O.cmd == CAL_CMD_HELP) {
        fputs(cal_usage_text, stdout);
        return 0;
    }
    if (O.cmd == CAL_CMD_LIST)
        return cmd_list();
    signal(SIGPIPE, SIG_IGN);
    int rc = dev_init();
    if (rc)
        return rc;
    if (O.cmd == CAL_CMD_WORKER)
        return cmd_worker();
    if (cal_mkdir(O.out_dir)) {
        fprintf(stderr, "dlsim-calibrate: %s: %s\n", O.out_dir,
                strerror(errno));
        return CAL_EXIT_FAIL;
    }
    nvml_init(false);
    printf("dlsim-calibrate: device %d, GPU type %s\n", O.device, GPU_TYPE);
    switch (O.cmd) {
    case CAL_CMD_PROBE: rc = cmd_probe(); break;
    case CAL_CMD_SUITE: rc = cmd_suite(); break;
    case CAL_CMD_PROXIES: rc = cmd_proxies(); break;
    case CAL_CMD_PAIRS: rc = cmd_pairs(); break;
    case CAL_CMD_ALL: {
        int (*steps[])(void) = { cmd_probe, cmd_suite, cmd_proxies,
                                 cmd_pairs };
        for (int i = 0; i < 4; i++) {
            int r = steps[i]();
            rc = rc ? rc : r;
        }
        break;
    }
    default: break;
    }
    cal_nvml_close(NV);
    return rc;
}
