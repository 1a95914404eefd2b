#!/usr/bin/env python3
"""scripts/util-data.py - derives the zoo's measured utilizations and the
training file of `dlsim fit util` from MISO's public measurements.

    python3 scripts/util-data.py [--data ../shared/data] [--out models]

Reads shared/data/perf/miso/util_collection/util_sm_<program>.json (nvidia-smi
utilization.gpu, percent, on a whole A100-40GB) and memory_<program>.json
(memory.used, MiB) and writes

  models/util.csv        measured solo utilization of zoo rows (model,
                         batch, GPU type), the zoo loader's util file (and
                         checks that zoo.csv's mem_gb of those rows is
                         MISO's memory.used);
  models/util_train.csv  every MISO measurement with the graph features of
                         the program that was measured (SPEC 7 utilization
                         format plus a `source` column), the input of
                         `dlsim fit util` that models/util.yaml comes from.

The features follow models/ZOO.md: flops = 2 x multiply-adds of one forward
pass of the whole batch; params = trainable parameters; layer counts are
applications in one sample's forward pass (conv: convolutions incl.
depthwise and transposed; linear: dense layers, embeddings, recurrent
layers and the four projections plus two matmuls of each attention;
activation: ReLU-like, tanh, sigmoid, softmax; other: normalization,
pooling, dropout, padding).  Where MISO's script leaves an input size open
the assumption is named below and in models/ZOO.md.  Output is
deterministic; re-run it when the data change.
"""
import argparse
import json
import math
import os
import sys

GPU = "A100"    # MISO measured on a whole A100-40GB (7g.40gb); dlsim's A100

# ------------------------------------------------------------ programs

def zoo_row(z, model, batch):
    for r in z:
        if r["model"] == model and int(r["batch_size"]) == batch:
            return r
    sys.exit(f"util-data: zoo.csv has no {model}@{batch}")


def bert_imdb():
    """MISO bert_train.py: bert-base-cased sequence classification (2
    labels) on IMDB, padding='max_length' -> 512 tokens."""
    L, H, layers = 512, 768, 12
    macs = layers * (12 * L * H * H + 2 * L * L * H) + H * H + 2 * H
    emb = 28996 * H + 512 * H + 2 * H + 2 * H
    enc = layers * (4 * H * H + 4 * H + 2 * H * 3072 + 3072 + H + 4 * H)
    params = emb + enc + H * H + H + 2 * H + 2
    return macs, params, (0, 101, 25, 63)


def deepspeech2_ljspeech():
    """MISO deepspeech2_train.py (the Keras DeepSpeech2-like example):
    spectrogram 193 bins; conv 11x41 s2 (32) and 11x21 s(1,2) (32), 5
    bidirectional GRU(512), dense 1024, softmax over 33.  Assumed: every
    utterance padded to 10 s (LJSpeech's longest clips; padded_batch pads
    to the longest of the batch), 22,050 Hz, frame step 160 -> 1,377
    frames."""
    T = 1 + (220500 - 256) // 160
    t1, f1 = math.ceil(T / 2), math.ceil(193 / 2)
    f2 = math.ceil(f1 / 2)
    macs = t1 * f1 * 32 * 11 * 41 + t1 * f2 * 32 * 11 * 21 * 32
    params = 11 * 41 * 32 + 64 + 11 * 21 * 32 * 32 + 64
    inp, u = f2 * 32, 512
    for _ in range(5):
        macs += t1 * 2 * 3 * (inp * u + u * u)
        params += 2 * 3 * (inp * u + u * u + 2 * u)
        inp = 2 * u
    macs += t1 * (1024 * 1024 + 1024 * 33)
    params += 1024 * 1024 + 1024 + 1024 * 33 + 33
    return macs, params, (2, 7, 4, 7)


def textcnn_news20():
    """MISO embedding_train.py (Keras pretrained-word-embeddings example):
    200 tokens, frozen GloVe embedding 20,002 x 100 (not trainable, so not
    counted in params), Conv1D(128, 5) x3 with max-pooling, dense 128, 20
    classes."""
    macs, params, L, c = 0, 0, 200, 100
    for i in range(3):
        L = L - 4
        macs += L * 128 * 5 * c
        params += 5 * c * 128 + 128
        c = 128
        if i < 2:
            L //= 5
    macs += 128 * 128 + 128 * 20
    params += 128 * 128 + 128 + 128 * 20 + 20
    return macs, params, (3, 3, 5, 4)


def mpnn_bbbp():
    """MISO gnn_train.py (Keras MPNN example) on BBBP: atom 29 features padded
    to 64, bond 7, 4 message-passing steps (edge network + GRU cell), a
    transformer encoder (8 heads of 64, dense 512) over the padded atoms,
    dense 512, sigmoid.  Assumed: 24 atoms and 26 bonds per molecule (BBBP's
    means), so 76 edges with self-loops, and atoms padded to 64."""
    atoms, edges, pad = 24, 24 + 2 * 26, 64
    d, heads, dd = 64, 8, 512
    step = edges * (7 * d * d + d * d) + atoms * 3 * (d * d + d * d)
    attn = pad * (3 * d * heads * d + heads * d * d + 2 * d * dd) \
        + 2 * pad * pad * heads * d
    macs = 4 * step + attn + d * dd + dd
    params = (7 * d * d + d * d) + (2 * d * 3 * d + 2 * 3 * d) \
        + (3 * (d * heads * d + heads * d) + heads * d * d + d) \
        + (d * dd + dd + dd * d + d) + 4 * d + (d * dd + dd) + (dd + 1)
    return macs, params, (0, 22, 4, 5)


def mobilenetv2_cifar10():
    """MISO mobilenet_train.py: Keras MobileNetV2 (alpha 1, no top) on 32x32
    CIFAR-10, flatten, dense 10."""
    macs, params = 0, 0
    h, c = 16, 32                       # Conv1 3x3 s2
    macs += h * h * 9 * 3 * c
    params += 9 * 3 * c + 2 * c
    conv, act, other = 1, 1, 1
    blocks = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
              (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    for t, out, n, s in blocks:
        for i in range(n):
            stride = s if i == 0 else 1
            e = c * t
            if t != 1:                  # expand 1x1
                macs += h * h * c * e
                params += c * e + 2 * e
                conv, act, other = conv + 1, act + 1, other + 1
            if stride == 2:
                h //= 2
                other += 1              # ZeroPadding2D
            macs += h * h * 9 * e       # depthwise 3x3
            params += 9 * e + 2 * e
            macs += h * h * e * out     # project 1x1
            params += e * out + 2 * out
            conv, act, other = conv + 2, act + 1, other + 2
            c = out
    macs += h * h * c * 1280            # last 1x1
    params += c * 1280 + 2 * 1280
    macs += 1280 * 10
    params += 1280 * 10 + 10
    return macs, params, (conv + 1, 1, act + 2, other + 1)


def transformer_forda():
    """MISO transformer_train.py (Keras time-series transformer example) on
    FordA: 500 steps of 1 feature, 4 encoder blocks (4 heads of 256,
    Conv1D feed-forward of 4), global average pooling, dense 128, 2
    classes."""
    L, d, heads, k, ff = 500, 1, 4, 256, 4
    blk = L * (3 * d * heads * k + heads * k * d) + 2 * L * L * heads * k \
        + L * (d * ff + ff * d)
    macs = 4 * blk + L * 128 + 128 * 2
    pblk = 3 * (d * heads * k + heads * k) + heads * k * d + d \
        + 4 * d + (d * ff + ff) + (ff * d + d)
    params = 4 * pblk + L * 128 + 128 + 128 * 2 + 2
    return macs, params, (8, 26, 10, 22)


def mlp_fashion():
    """MISO dummy_train.py: flatten 28x28, dense 128 (ReLU), dense 10 on
    Fashion-MNIST, batch 32."""
    return 784 * 128 + 128 * 10, 784 * 128 + 128 + 128 * 10 + 10, (0, 2, 1, 0)


# MISO program -> (name in util_train.csv, zoo model the row is attached to
# or None, features function or None for the zoo row's own)
PROGRAMS = {
    "resnet": ("resnet50_cifar10", "resnet50_cifar10", None),
    "cyclegan": ("cyclegan", "cyclegan", None),
    "bert": ("bert_imdb512", None, bert_imdb),
    "deepspeech2": ("deepspeech2_keras_ljspeech", None, deepspeech2_ljspeech),
    "embedding": ("textcnn_news20", None, textcnn_news20),
    "gnn": ("mpnn_bbbp", None, mpnn_bbbp),
    "mobilenet": ("mobilenetv2_cifar10", None, mobilenetv2_cifar10),
    "transformer": ("transformer_forda", None, transformer_forda),
    "dummy": ("mlp_fashion_mnist", None, mlp_fashion),
}


def read_csv(path):
    rows, header = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cells = line.rstrip("\n").split(",")
            if header is None:
                header = cells
            else:
                rows.append(dict(zip(header, cells)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"))
    ap.add_argument("--out", default=os.path.join(here, "..", "models"))
    a = ap.parse_args()
    miso = os.path.join(a.data, "perf", "miso", "util_collection")
    zoo = read_csv(os.path.join(a.out, "zoo.csv"))
    measured, train = [], []
    for prog in sorted(PROGRAMS):
        name, zoo_model, feat = PROGRAMS[prog]
        with open(os.path.join(miso, f"util_sm_{prog}.json")) as f:
            util = json.load(f)
        with open(os.path.join(miso, f"memory_{prog}.json")) as f:
            mem = json.load(f)
        for b in sorted(util, key=int):
            batch, u = int(b), util[b] / 100.0
            if feat:
                macs, params, layers = feat()
                flops, p = 2 * macs * batch, params
            else:
                # the zoo row of the smallest batch, FLOPs scaled linearly
                base = min((r for r in zoo if r["model"] == zoo_model),
                           key=lambda r: int(r["batch_size"]))
                flops = int(base["flops"]) * batch // int(base["batch_size"])
                p = int(base["params"])
                layers = tuple(int(base[k]) for k in (
                    "conv_layers", "linear_layers", "activation_layers",
                    "other_layers"))
            row = (name, batch, GPU, f"{u:.4f}", flops, p) + layers + (
                f"miso:util_sm_{prog}.json",)
            train.append(row)
            attached = zoo_model and any(
                r["model"] == zoo_model and int(r["batch_size"]) == batch
                for r in zoo)
            if attached:
                measured.append((GPU, zoo_model, batch, f"{u:.4f}",
                                 f"miso:util_sm_{prog}.json"))
                gb = f"{mem[b] / 1024:.2f}"
                if zoo_row(zoo, zoo_model, batch)["mem_gb"] != gb:
                    print(f"util-data: zoo.csv {zoo_model}@{batch}: mem_gb "
                          f"should be {gb} (MISO memory_{prog}.json)",
                          file=sys.stderr)
    with open(os.path.join(a.out, "util.csv"), "w") as f:
        f.write("# measured solo GPU utilization of zoo rows per GPU type "
                "(nvidia-smi utilization.gpu / 100); written by "
                "scripts/util-data.py, sources in models/ZOO.md\n")
        f.write("gpu_type,model,batch_size,util,source\n")
        for r in measured:
            f.write(",".join(str(x) for x in r) + "\n")
    with open(os.path.join(a.out, "util_train.csv"), "w") as f:
        f.write("# utilization measurements with the graph features of the "
                "measured programs (SPEC 7); written by scripts/util-data.py, "
                "sources and assumptions in models/ZOO.md\n")
        f.write("model,batch_size,gpu_type,util,flops,params,conv_layers,"
                "linear_layers,activation_layers,other_layers,source\n")
        for r in train:
            f.write(",".join(str(x) for x in r) + "\n")
    print(f"util-data: {len(measured)} zoo rows measured, "
          f"{len(train)} training rows", file=sys.stderr)


if __name__ == "__main__":
    main()
