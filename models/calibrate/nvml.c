/*
 * models/calibrate/nvml.c - GPU utilization from NVML, loaded at run time.
 *
 * No NVML header or import library is needed: the library is opened with
 * dlopen ($DLSIM_NVML_LIB, else "libnvidia-ml.so.1", which the driver
 * installs) and the few functions used are declared here with their
 * documented C signatures (nvml.h: nvmlReturn_t is an int enum, 0 =
 * NVML_SUCCESS; nvmlDevice_t an opaque pointer; nvmlUtilization_t two
 * unsigned ints, gpu and memory percent; nvmlMemory_t three unsigned long
 * longs, total, free, used bytes).  Any failure leaves utilization unknown:
 * the caller gets NULL and the reason, never an abort.
 *
 * The sampler is one thread polling nvmlDeviceGetUtilizationRates every
 * period_ms while a measurement runs; utilization.gpu is the percent of the
 * driver's last sample period (1/6 s to 1 s) in which a kernel ran, so a
 * measurement should last a second or more for the mean to mean much.
 */
#include "calib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvret;
typedef void *nvdev;
struct nv_util { unsigned int gpu, memory; };
struct nv_mem { unsigned long long total, free, used; };

struct cal_nvml {
    void *lib;
    nvret (*init)(void);
    nvret (*shutdown)(void);
    nvret (*by_index)(unsigned int, nvdev *);
    nvret (*by_pci)(const char *, nvdev *);
    nvret (*util)(nvdev, struct nv_util *);
    nvret (*mem)(nvdev, struct nv_mem *);
    const char *(*errstr)(nvret);
    nvdev dev;
    /* sampler */
    pthread_t th;
    pthread_mutex_t mu;
    int running, period_ms;
    double sum;
    long count;
};

const char *cal_nvml_default_lib(void)
{
    const char *e = getenv("DLSIM_NVML_LIB");
    return e && *e ? e : "libnvidia-ml.so.1";
}

struct cal_nvml *cal_nvml_open(const char *lib, const char *pci_bus_id,
                               char *why, size_t whylen)
{
    if (!lib)
        lib = cal_nvml_default_lib();
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, whylen, "cannot load %s: %s", lib, e ? e : "?");
        return NULL;
    }
    struct cal_nvml *n = (struct cal_nvml *)calloc(1, sizeof *n);
    if (!n)
        abort();
    n->lib = h;
    /* object -> function pointer through memcpy: ISO C has no cast */
#define SYM(field, name)                                                    \
    do {                                                                    \
        void *s_ = dlsym(h, name);                                          \
        if (!s_) {                                                          \
            snprintf(why, whylen, "%s lacks %s", lib, name);                \
            goto bad;                                                       \
        }                                                                   \
        memcpy(&n->field, &s_, sizeof s_);                                  \
    } while (0)
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(by_index, "nvmlDeviceGetHandleByIndex_v2");
    SYM(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    SYM(util, "nvmlDeviceGetUtilizationRates");
    SYM(mem, "nvmlDeviceGetMemoryInfo");
    SYM(errstr, "nvmlErrorString");
#undef SYM
    nvret r = n->init();
    if (r) {
        snprintf(why, whylen, "nvmlInit: %s", n->errstr(r));
        goto bad;
    }
    r = pci_bus_id ? n->by_pci(pci_bus_id, &n->dev) : n->by_index(0, &n->dev);
    if (r) {
        snprintf(why, whylen, "NVML device %s: %s",
                 pci_bus_id ? pci_bus_id : "0", n->errstr(r));
        n->shutdown();
        goto bad;
    }
    struct nv_util u;
    if ((r = n->util(n->dev, &u))) {
        snprintf(why, whylen, "nvmlDeviceGetUtilizationRates: %s",
                 n->errstr(r));
        n->shutdown();
        goto bad;
    }
    pthread_mutex_init(&n->mu, NULL);
    return n;
bad:
    dlclose(h);
    free(n);
    return NULL;
}

void cal_nvml_close(struct cal_nvml *n)
{
    if (!n)
        return;
    if (n->running)
        cal_nvml_stop(n);
    n->shutdown();
    pthread_mutex_destroy(&n->mu);
    dlclose(n->lib);
    free(n);
}

static void *sampler(void *arg)
{
    struct cal_nvml *n = (struct cal_nvml *)arg;
    struct timespec ts = { n->period_ms / 1000,
                           (long)(n->period_ms % 1000) * 1000000L };
    for (;;) {
        struct nv_util u;
        int ok = n->util(n->dev, &u) == 0;
        pthread_mutex_lock(&n->mu);
        int run = n->running;
        if (ok && run) {
            n->sum += u.gpu;
            n->count++;
        }
        pthread_mutex_unlock(&n->mu);
        if (!run)
            return NULL;
        nanosleep(&ts, NULL);
    }
}

void cal_nvml_start(struct cal_nvml *n, int period_ms)
{
    if (!n)
        return;
    n->sum = 0;
    n->count = 0;
    n->period_ms = period_ms > 0 ? period_ms : 20;
    n->running = 1;
    if (pthread_create(&n->th, NULL, sampler, n))
        n->running = 0;
}

double cal_nvml_stop(struct cal_nvml *n)
{
    if (!n || !n->running)
        return -1;
    pthread_mutex_lock(&n->mu);
    n->running = 0;
    pthread_mutex_unlock(&n->mu);
    pthread_join(n->th, NULL);
    return n->count ? n->sum / n->count / 100.0 : -1;
}

double cal_nvml_mem_used_gb(struct cal_nvml *n)
{
    struct nv_mem m;
    if (!n || n->mem(n->dev, &m))
        return -1;
    return (double)m.used / 1e9;
}
