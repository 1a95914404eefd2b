/*
 * policies/polint.h - shared inside policies/ only.
 */
#ifndef DLSIM_POLINT_H
#define DLSIM_POLINT_H

#include "policies/policy.h"

/* ---- vic_: where a preemptive policy makes room (policies/victim.c) */

struct vic_index;
struct vic_index *vic_new(const struct cluster *c);
void vic_free(struct vic_index *x);
/* Marks the nodes of job's current (or last) allocation as changed; call
 * whenever a job starts or stops. */
void vic_touch_job(struct vic_index *x, const struct pol_view *v, uint32_t job);
/* The node of type t (in a group of nodes of >= d GPUs) where stopping the
 * latest-finishing jobs frees d GPUs with the latest possible last victim;
 * *threshold_job is that last victim (SIM_NONE if the node has d GPUs
 * free).  SIM_NONE if type t has no such node. */
uint32_t vic_best_node(struct vic_index *x, const struct pol_view *v,
                       uint32_t d, uint32_t t, uint32_t *threshold_job);
/* The jobs to stop on node for d free GPUs, latest finish first; jobs has
 * room for the node's GPU count.  Returns how many. */
uint32_t vic_node_victims(const struct pol_view *v, uint32_t node, uint32_t d,
                          uint32_t *jobs);

/* The k nodes of group with the latest thresholds for d GPUs, best first
 * (thresholds as in vic_best_node, ties: lower node), among those whose
 * threshold job passes ok (which must be monotone in the threshold: if a
 * job passes, every later-finishing one does; SIM_NONE means no victim).
 * Returns how many (fewer when fewer qualify). */
uint32_t vic_top_nodes(struct vic_index *x, const struct pol_view *v,
                       uint32_t group, uint32_t d, uint32_t k, uint32_t *nodes,
                       uint32_t *tjobs, bool (*ok)(const struct pol_view *,
                                                   uint32_t job, void *),
                       void *ctx);

#endif
