/*
 * models/model.h - the public interface of performance models (mdl_).
 *
 * The engine asks the model how fast a job runs where it was placed; the
 * answer is a rate in work units (reference-GPU microseconds) per
 * microsecond.  Today the model is the cluster file's per-type speed: a job
 * of duration d on the reference type takes d / speed on another type.
 * Per-model throughput tables, co-location slowdown and utilization
 * prediction plug in here (a later issue) without touching the engine.
 */
#ifndef DLSIM_MODEL_H
#define DLSIM_MODEL_H

#include "sim/sim.h"
#include "traces/trace.h"

/* Rate of job j running alone on ngpus GPUs of type t. */
double mdl_rate(const struct cluster *c, const struct trc_job *j, uint32_t t);
/* Solo GPU utilization of j (0..1); jobs without one count as 1. */
double mdl_util(const struct trc_job *j);

/* ------------------------------------------------------------ model zoo
 *
 * The zoo is data, read at run time from a directory (models/ in the
 * source tree) holding three CSV files; models/ZOO.md documents every
 * column and cites where each figure comes from.
 *
 *   zoo.csv         one row per (model, batch_size): task, memory, the
 *                   graph features Horus predicts from, measured util
 *   gpus.csv        one row per GPU type: datasheet peaks
 *   throughput.csv  measured iterations/s per (gpu_type, model,
 *                   batch_size, num_gpus, placement) (SPEC 7 format)
 *
 * Units: batch_size is the job's global batch (samples per iteration over
 * all its GPUs); flops are forward FLOPs per iteration (the whole batch),
 * a multiply-add counted as 2 FLOPs, as datasheet peaks count them;
 * throughput is iterations of the whole job per second.  Unknown numbers
 * are -1.
 *
 * Names match case-insensitively with everything but letters and digits
 * ignored ("ResNet-50" = "resnet50"), plus a few aliases used by public
 * traces ("LM" = lstm, "imagenet" = resnet50, "cifar10" = resnet18,
 * "Inception-v3" = inception3, "NeuMF" = ncf).
 */

struct mdl_model {
    const char *name;           /* as written in zoo.csv */
    uint32_t family;            /* index of the model name (all batches) */
    uint32_t batch_size;        /* samples per iteration, >= 1 */
    const char *task;           /* "" when empty */
    double mem_gb;              /* training memory per GPU, or -1 */
    double flops;               /* forward FLOPs per iteration, or -1 */
    double params;              /* parameter count, or -1 */
    int32_t conv_layers;        /* layer counts, each -1 when unknown */
    int32_t linear_layers;
    int32_t activation_layers;
    int32_t other_layers;
    double util_a100;           /* measured solo utilization 0..1, or -1 */
    const char *source;         /* citation keys, see ZOO.md */
    long line;                  /* line in zoo.csv */
};

struct mdl_gpu {
    const char *name;
    double memory_gb;
    double fp32_tflops;
    double fp16_tflops;         /* dense tensor-core peak where there is one */
    double mem_bw_gbs;
    const char *source;
};

struct mdl_thr {
    uint32_t family;            /* model name, as in struct mdl_model */
    uint32_t gpu;               /* index into zoo.gpus */
    uint32_t batch_size;        /* global batch */
    uint32_t num_gpus;
    bool spread;                /* false = consolidated */
    double throughput;          /* iterations/s, > 0 */
    long line;                  /* line in throughput.csv */
};

struct mdl_zoo {
    const char *dir;
    struct mdl_model *models;   /* file order */
    uint32_t nmodels;
    const char **families;      /* [nfamilies] first spelling of each name */
    const char **family_keys;   /* [nfamilies] their normal forms */
    uint32_t nfamilies;
    struct mdl_gpu *gpus;       /* file order */
    uint32_t ngpus;
    struct mdl_thr *thr;        /* sorted by (family, batch, gpu, n, spread) */
    uint32_t nthr;
    struct arena *arena;        /* owns every string; arrays are malloc'd */
};

/* Reads dir/zoo.csv, dir/gpus.csv and dir/throughput.csv.  Returns 0, or
 * DL_EINPUT (a malformed file: err holds its path, line and column) or
 * DL_EIO (a file that cannot be read).  On failure *z is left empty, and
 * mdl_zoo_free on it is harmless. */
int mdl_zoo_load(const char *dir, struct mdl_zoo *z, struct dl_error *err);
void mdl_zoo_free(struct mdl_zoo *z);

/* Where the zoo lives when no directory is given: $DLSIM_MODELS if set,
 * else the first of ./models, <exe>/../models, <exe>/models and
 * <exe>/../share/dlsim/models that holds a zoo.csv.  Writes it to buf and
 * returns 0, or returns -1 when none is found (or $DLSIM_MODELS is too
 * long for buf). */
int mdl_zoo_default_dir(char *buf, size_t n);

/* A model by name ("resnet50"), or by name and batch ("resnet50@64").
 * Without a batch: the model's first row in zoo.csv.  NULL when absent.
 * The pointer lives as long as the zoo. */
const struct mdl_model *mdl_zoo_find(const struct mdl_zoo *z,
                                     const char *model);
/* A GPU type by name (case-insensitive), or NULL. */
const struct mdl_gpu *mdl_zoo_gpu(const struct mdl_zoo *z, const char *name);
/* Measured iterations/s of model at global batch on num_gpus GPUs of
 * gpu_type, consolidated or spread over nodes; -1 when not measured.
 * With num_gpus == 1, spread is ignored.  model may carry "@batch" only
 * if it equals batch.  O(names + GPU types + log rows). */
double mdl_zoo_throughput(const struct mdl_zoo *z, const char *model,
                          uint32_t batch, const char *gpu_type,
                          uint32_t num_gpus, bool spread);

#endif
