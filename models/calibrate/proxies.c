/*
 * models/calibrate/proxies.c - job proxies: kernel sequences that stand in
 * for one training step of a zoo model.
 *
 * A proxy is not the model: it is a plan of cuBLAS FP16 GEMMs (tensor
 * cores, FP32 accumulation, as mixed-precision training runs) and
 * memory-bound kernels whose FLOPs match the zoo's training step (3x the
 * forward FLOPs of models/zoo.csv: forward, data gradient, weight
 * gradient) and whose shapes follow the model's kind:
 *
 *   CNN          a ResNet-like bottleneck per stage (1x1, 3x3, 1x1 lowered
 *                to their implicit-GEMM shapes, M = batch x H x W) at the
 *                model's input resolution, after a stem convolution
 *   TRANSFORMER  one encoder layer: QKV, scores, scores x V, projection,
 *                two FFN GEMMs over batch x tokens rows; softmax per head
 *   RNN          one LSTM step: input and recurrent GEMMs with M = batch
 *                (many small launches, as recurrent models run)
 *   MLP          an encoder and a decoder GEMM with M = batch
 *
 * The block is repeated to reach the target FLOPs (at least once), each
 * forward GEMM followed by an activation pass over its output, each
 * backward pair by a gradient pass; the step ends with a softmax and a
 * reduction (the loss) and an SGD-with-momentum pass over the parameters
 * (FP32 weight, gradient, momentum: 20 bytes per parameter).  Convolutions
 * are GEMMs here, not cuDNN, so that the same proxy runs the same kernels
 * on every machine (cuDNN is optional); the suite measures cuDNN itself.
 * GEMM dimensions are rounded up to multiples of 8 (tensor-core
 * alignment); the plan's own FLOPs, not the target, are reported.
 *
 * The names, batch sizes and graph features are those of models/zoo.csv
 * (tests/test_calibrate.c checks every field against it), so `dlsim fit
 * runtime` and `dlsim fit util` join the measurements with the zoo.
 */
#include "calib.h"

#include <string.h>
#include <stdlib.h>

#define P(m, b, k, x, y, z, fl, pa, c, l, a, o) \
    { m, b, k, x, y, z, fl, pa, c, l, a, o }

const struct cal_proxy cal_proxies[] = {
    P("resnet18", 64, CAL_CNN, 32, 64, 0, 71094108160.0, 11173962, 20, 1, 17, 21),
    P("resnet18", 128, CAL_CNN, 32, 64, 0, 142188216320.0, 11173962, 20, 1, 17, 21),
    P("resnet18", 256, CAL_CNN, 32, 64, 0, 284376432640.0, 11173962, 20, 1, 17, 21),
    P("resnet50", 32, CAL_CNN, 224, 64, 1, 261707792384.0, 25557032, 53, 1, 49, 55),
    P("resnet50", 64, CAL_CNN, 224, 64, 1, 523415584768.0, 25557032, 53, 1, 49, 55),
    P("resnet50", 128, CAL_CNN, 224, 64, 1, 1046831169536.0, 25557032, 53, 1, 49, 55),
    P("resnet50_cifar10", 128, CAL_CNN, 32, 64, 1, 21358444544.0, 23528522, 53, 1, 49, 55),
    P("vgg16", 64, CAL_CNN, 224, 64, 1, 1980193832960.0, 138357544, 13, 3, 15, 8),
    P("inception3", 64, CAL_CNN, 299, 64, 1, 731264000000.0, 27161264, 96, 2, 96, 113),
    P("yolov3", 64, CAL_CNN, 416, 32, 1, 4188345528320.0, 61626049, 75, 0, 72, 74),
    P("cyclegan", 1, CAL_CNN, 256, 64, 1, 701547675648.0, 28285832, 58, 0, 38, 98),
    P("bert", 64, CAL_TRANSFORMER, 64, 768, 3072, 705524072448.0, 109483778, 0, 101, 25, 63),
    P("bert", 128, CAL_TRANSFORMER, 64, 768, 3072, 1411048144896.0, 109483778, 0, 101, 25, 63),
    P("gpt2", 128, CAL_TRANSFORMER, 60, 768, 3072, 1321606840320.0, 124441344, 0, 75, 24, 62),
    P("transformer", 64, CAL_TRANSFORMER, 30, 512, 2048, 181068103680.0, 49223680, 0, 135, 30, 82),
    P("transformer", 128, CAL_TRANSFORMER, 30, 512, 2048, 362136207360.0, 49223680, 0, 135, 30, 82),
    P("lstm", 20, CAL_RNN, 200, 35, 200, 10213840000.0, 13987678, 0, 4, 0, 2),
    P("lstm", 80, CAL_RNN, 200, 35, 200, 40855360000.0, 13987678, 0, 4, 0, 2),
    P("deepspeech2", 32, CAL_RNN, 1024, 250, 2048, 1554277888000.0, 86618400, 2, 6, 2, 7),
    P("recommendation", 2048, CAL_MLP, 20108, 200, 1, 32944947200.0, 8063508, 0, 2, 1, 1),
    P("recommendation", 8192, CAL_MLP, 20108, 200, 1, 131779788800.0, 8063508, 0, 2, 1, 1),
    P("ncf", 32768, CAL_MLP, 64, 128, 3, 2822766592.0, 1602657, 0, 8, 3, 3),
    P("a3c", 1, CAL_MLP, 256, 256, 2, 117677056.0, 3249639, 4, 3, 4, 4),
};
const int cal_nproxies = (int)(sizeof cal_proxies / sizeof cal_proxies[0]);

/* Paired by default: CNNs, transformers, a recurrent and a recommender
 * model of different sizes (8 proxies: 36 pairs with the self-pairs). */
const int cal_default_pairs[] = { 1, 4, 7, 11, 14, 16, 18, 19 };
const int cal_ndefault_pairs =
    (int)(sizeof cal_default_pairs / sizeof cal_default_pairs[0]);

int cal_proxy_find(const char *name)
{
    const char *at = strrchr(name, '@');
    if (!at || !at[1])
        return -1;
    char *end;
    long b = strtol(at + 1, &end, 10);
    if (*end)
        return -1;
    for (int i = 0; i < cal_nproxies; i++)
        if (cal_proxies[i].batch == b &&
            strlen(cal_proxies[i].model) == (size_t)(at - name) &&
            !strncmp(cal_proxies[i].model, name, (size_t)(at - name)))
            return i;
    return -1;
}

static int64_t up8(int64_t x)
{
    if (x < 8)
        return 8;
    return (x + 7) / 8 * 8;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static void add(struct cal_plan *pl, enum cal_op_kind k, int64_t m, int64_t n,
                int64_t kk)
{
    if (pl->nops >= CAL_PLAN_MAX)
        abort();                /* the plans below are far smaller */
    struct cal_op *o = &pl->op[pl->nops++];
    o->kind = k;
    o->count = 1;
    if (k == CAL_OP_GEMM) {
        o->m = up8(m), o->n = up8(n), o->k = up8(kk);
    } else {
        o->m = m, o->n = n, o->k = kk;
    }
}

/* A forward GEMM, its activation, and the two backward GEMMs and the
 * gradient pass (same FLOPs each); `count` times in a row. */
static void layer_n(struct cal_plan *pl, int64_t m, int64_t n, int64_t k,
                    int count)
{
    int first = pl->nops;
    add(pl, CAL_OP_GEMM, m, n, k);
    add(pl, CAL_OP_ELTWISE, up8(m) * up8(n), 1, 0);
    add(pl, CAL_OP_GEMM, m, k, n);      /* dX = dY W^T */
    add(pl, CAL_OP_GEMM, k, n, m);      /* dW = X^T dY */
    add(pl, CAL_OP_ELTWISE, up8(m) * up8(n), 2, 0);
    for (int i = first; i < pl->nops; i++)
        pl->op[i].count = count;
}

static void layer(struct cal_plan *pl, int64_t m, int64_t n, int64_t k)
{
    layer_n(pl, m, n, k, 1);
}

static double op_flops(const struct cal_op *o)
{
    return o->kind == CAL_OP_GEMM ? 2.0 * (double)o->m * o->n * o->k * o->count
                                  : 0;
}

static double op_bytes(const struct cal_op *o)
{
    double e = (double)o->m * o->count;
    switch (o->kind) {
    case CAL_OP_ELTWISE: return e * 2 * (double)(o->n + 1);  /* fp16 */
    case CAL_OP_SOFTMAX: return e * (double)o->n * 4 * 2;    /* fp32 */
    case CAL_OP_REDUCE: return e * 4;
    case CAL_OP_OPTIM: return e * 20;
    default: return 0;
    }
}

void cal_proxy_plan(const struct cal_proxy *p, struct cal_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    int64_t B = p->batch;
    int head = 0, block0;
    switch (p->kind) {
    case CAL_CNN: {
        int64_t res = p->a, w = p->b, s;
        if (p->c) {        /* ImageNet-style stem: 7x7/2, then pool */
            add(pl, CAL_OP_GEMM, B * (res / 2) * (res / 2), w, 7 * 7 * 3);
            head = 1;
            s = res / 4;
        } else {                /* CIFAR-style stem: 3x3/1 */
            add(pl, CAL_OP_GEMM, B * res * res, w, 3 * 3 * 3);
            head = 1;
            s = res;
        }
        block0 = pl->nops;
        for (int st = 0; st < 4; st++, w *= 2, s = s > 1 ? s / 2 : 1) {
            int64_t m = B * s * s;
            layer(pl, m, w, 4 * w);         /* 1x1 reduce */
            layer(pl, m, w, 9 * w);         /* 3x3 */
            layer(pl, m, 4 * w, w);         /* 1x1 expand */
        }
        break;
    }
    case CAL_TRANSFORMER: {
        int64_t T = B * p->a, d = p->b, f = p->c, h = d / 64;
        block0 = pl->nops;
        layer(pl, T, 3 * d, d);             /* Q, K, V */
        layer(pl, T, p->a, d);              /* scores, all heads */
        add(pl, CAL_OP_SOFTMAX, T * h, p->a, 0);
        layer(pl, T, d, p->a);              /* scores x V */
        layer(pl, T, d, d);                 /* output projection */
        layer(pl, T, f, d);                 /* FFN */
        layer(pl, T, d, f);
        break;
    }
    case CAL_RNN:               /* one layer: cuDNN-style, the input */
        block0 = pl->nops;      /* GEMM batched over time, then the steps */
        layer(pl, B * p->b, 4 * (int64_t)p->a, p->c);
        layer_n(pl, B, 4 * (int64_t)p->a, p->a, p->b);
        break;
    default:                    /* CAL_MLP */
        block0 = pl->nops;
        layer(pl, B, p->b, p->a);
        layer(pl, B, p->a, p->b);
        break;
    }
    int block1 = pl->nops;
    /* the loss: softmax over 1000 classes per sample, then a reduction */
    add(pl, CAL_OP_SOFTMAX, B, 1000, 0);
    add(pl, CAL_OP_REDUCE, B * 1000, 0, 0);
    add(pl, CAL_OP_OPTIM, (int64_t)p->params, 0, 0);

    double fhead = 0, fblock = 0, target = 3 * p->flops;
    /* a head GEMM lives outside the block: it gets its two backward
     * GEMMs' FLOPs by running 3 times */
    for (int i = 0; i < head; i++) {
        pl->op[i].count = 3;
        fhead += op_flops(&pl->op[i]);
    }
    for (int i = block0; i < block1; i++)
        fblock += op_flops(&pl->op[i]);
    double r = (target - fhead) / fblock;
    pl->reps = r < 1 ? 1 : (int)(r + 0.5);
    pl->block0 = block0;
    pl->block1 = block1;
    for (int i = 0; i < pl->nops; i++) {
        const struct cal_op *o = &pl->op[i];
        int times = i >= block0 && i < block1 ? pl->reps : 1;
        pl->flops += op_flops(o) * times;
        pl->bytes += op_bytes(o) * times;
        if (o->kind == CAL_OP_GEMM) {
            int64_t e = max64(o->m * o->k, max64(o->k * o->n, o->m * o->n));
            pl->max_a = max64(pl->max_a, e);
            pl->max_elt = max64(pl->max_elt, o->m * o->n);
        } else if (o->kind == CAL_OP_ELTWISE) {
            pl->max_elt = max64(pl->max_elt, o->m);
        } else if (o->kind == CAL_OP_REDUCE) {     /* fp32 */
            pl->max_elt = max64(pl->max_elt, 2 * o->m);
        } else if (o->kind == CAL_OP_SOFTMAX) {
            pl->max_elt = max64(pl->max_elt, 2 * o->m * o->n);
        } else {
            pl->params = o->m;
        }
    }
    pl->max_b = pl->max_c = pl->max_a;
}

double cal_plan_mem_bytes(const struct cal_plan *pl)
{
    /* three fp16 GEMM buffers, three fp16 elementwise buffers (two inputs,
     * one output; fp32 kernels use them as half as many floats), three
     * fp32 parameter arrays, one fp32 scalar */
    return 2.0 * (double)(pl->max_a + pl->max_b + pl->max_c) +
           2.0 * 3 * (double)pl->max_elt + 12.0 * (double)pl->params + 4;
}
