/*
 * sim/cluster/cluster.h - the cluster layer (libdlsim_cluster, above
 * sim/base): GPU types, nodes, racks and GPUs, who holds each GPU and the
 * free-GPU index (clu_, cluster.c); the cluster file of SPEC 3 (cfg_,
 * cfg.c); where a gang of GPUs goes (plc_, placement.c).
 */
#ifndef DLSIM_CLUSTER_H
#define DLSIM_CLUSTER_H

#include "sim/base/base.h"

/* --------------------------------------------------------------- cluster */

struct clu_type {
    const char *name;
    double memory_gb;
    double speed;               /* relative to the reference type = 1.0 */
    uint32_t total_gpus;
    uint32_t free_gpus;         /* maintained by clu_alloc/clu_release */
    uint32_t max_node_gpus;     /* GPUs of its largest node */
};

struct clu_node {
    uint32_t type;              /* index into cluster.types */
    uint32_t ngpus;             /* 1..64 */
    uint32_t first_gpu;         /* GPUs first_gpu .. first_gpu+ngpus-1 */
    uint32_t group;             /* index into cluster.groups */
    uint32_t rack;              /* index into cluster.racks */
    uint32_t nfree;
    uint64_t free_mask;         /* bit i set = local GPU i is free */
    /* position in the group's free-count bucket (intrusive list) */
    uint32_t bprev, bnext;
};

/* Nodes of one GPU type and one size, indexed by how many GPUs are free,
 * so that "is there a node with >= k free GPUs" and "best fit" are O(size)
 * rather than O(nodes).  bucket[f] lists nodes with exactly f free GPUs,
 * in ascending node order at load time. */
struct clu_group {
    uint32_t type;
    uint32_t gpus_per_node;
    uint32_t nnodes;
    uint32_t *bucket_head;      /* [gpus_per_node + 1] */
    uint32_t *bucket_count;     /* [gpus_per_node + 1] */
};

struct cluster {
    const char *name;
    const char *path;           /* file it came from, for messages */
    uint32_t ref_type;
    struct clu_type *types;
    uint32_t ntypes;
    struct clu_node *nodes;
    uint32_t nnodes;
    struct clu_group *groups;
    uint32_t ngroups;
    const char **racks;
    uint32_t nracks;
    uint32_t ngpus;
    uint32_t *gpu_node;         /* [ngpus] */
    uint32_t *gpu_job;          /* [ngpus] job holding the GPU, or SIM_NONE */
    uint32_t max_node_gpus;     /* largest node */
    uint32_t *type_order;       /* [ntypes] fastest first, ties by index */
    struct arena *arena;        /* owns the strings; arrays are malloc'd
                                   and freed by clu_free */
    struct dl_names rack_ix;    /* racks by name, while building (freed
                                   by clu_finish) */
    struct dl_names type_ix;    /* types by name, for clu_type_find */
};

/* The most GPUs a cluster file may ask for (sim/cluster/cfg.c says why); a
 * fuzzing build defines it smaller.  Must stay below SIM_NONE. */
#ifndef CFG_MAX_GPUS
#define CFG_MAX_GPUS (UINT32_C(1) << 24)
#endif

/* Loads a cluster file (SPEC 3).  Returns 0 or DL_EINPUT/DL_EIO with err
 * filled as file:line:col.  On failure *c is left empty. */
int cfg_load_cluster(const char *path, struct cluster *c, struct dl_error *err);
/* The same from a buffer; name is used in messages. */
int cfg_load_cluster_mem(const char *name, const char *buf, size_t len,
                         struct cluster *c, struct dl_error *err);


/* Builders used by cfg_ and by tests that hand-build a cluster. */
void clu_init(struct cluster *c, const char *name);
uint32_t clu_add_type(struct cluster *c, const char *name, double memory_gb,
                      double speed);
uint32_t clu_type_find(const struct cluster *c, const char *name);
/* Adds count nodes of ngpus GPUs each; rack may be NULL. */
void clu_add_nodes(struct cluster *c, uint32_t count, uint32_t ngpus,
                   uint32_t type, const char *rack);
/* Freezes the topology and builds the free-GPU index.  Speeds are divided
 * by the reference type's speed.  Call once after the last add. */
void clu_finish(struct cluster *c);
void clu_free(struct cluster *c);
/* The built-in default cluster of `dlsim demo` and of commands run
 * without --cluster: "demo-256", 24 nodes of 8 V100 and 16 nodes of 4
 * P100 (speed 0.6 of a V100), in two racks. */
void clu_builtin_demo(struct cluster *c);
/* Releases every GPU (start of a run). */
void clu_reset(struct cluster *c);

/* Gives GPUs gpus[0..n) to job; each must be free.  Updates the index. */
void clu_alloc(struct cluster *c, uint32_t job, const uint32_t *gpus, uint32_t n);
void clu_release(struct cluster *c, const uint32_t *gpus, uint32_t n);
/* Index queries. */
uint32_t clu_group_max_free(const struct cluster *c, uint32_t g);
/* First node of group g with exactly f free GPUs, or SIM_NONE; next node. */
uint32_t clu_bucket_first(const struct cluster *c, uint32_t g, uint32_t f);
static inline uint32_t clu_bucket_next(const struct cluster *c, uint32_t node)
{
    return c->nodes[node].bnext;
}
/* Whether gpus[0..n) (sorted, one type t) lie on more nodes than the
 * fewest that can hold n GPUs of t: "spread" for the runtime model. */
bool clu_spread(const struct cluster *c, uint32_t t, const uint32_t *gpus,
                uint32_t n);
/* Recomputes the index from the masks and compares; DL_ECHECK or 0. */
int clu_check(const struct cluster *c, char *why, size_t n);

/* "n3:0-3+n4:0-7" for a sorted GPU list; GPUs not contiguous on one node
 * give one segment each ("n3:0-1+n3:4"), so the text never has a comma.
 * Cut to len - 1 bytes; returns its length. */
size_t clu_fmt_placement(const struct cluster *c, const uint32_t *gpus,
                         uint32_t n, char *buf, size_t len);

/* ------------------------------------------------------------- placement
 * (sim/placement.c) */

enum plc_mode { PLC_CONSOLIDATED, PLC_POOL };

/* Finds GPUs for a gang of ngpus on one GPU type (req_type, or any type,
 * fastest first).  consolidated: a gang of up to the size of the type's
 * largest node on one node (best fit: the fullest node that still fits;
 * never split over smaller nodes); a larger gang on floor(ngpus/n) wholly
 * free nodes of one size n (the largest that can take it) plus, for the
 * remainder, the best-fitting node of that size.  pool: any free GPUs of the type,
 * taken from the fullest nodes first.  Writes the sorted GPU ids to gpus
 * (may be NULL to only ask) and the type to *type (may be NULL).
 * Returns true when found. */
bool plc_find(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
              enum plc_mode mode, uint32_t *type, uint32_t *gpus);
/* Whether the gang could be placed on the empty cluster. */
bool plc_ever_fits(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
                   enum plc_mode mode);

#endif
