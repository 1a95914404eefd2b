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

#endif
