/*
 * policies/heap.h - one binary heap, generated per item type, for the
 * policies' queues and sets of running jobs.
 *
 *   HEAP_DEFINE(pfx, H, T, before)
 *
 * defines, for a struct H with members `T *a; size_t n, cap;` and a strict
 * order `bool before(const T *x, const T *y)` (x comes out first):
 *
 *   static void pfx_push(H *h, T it);
 *   static T pfx_pop(H *h);             h->n > 0; returns the first item
 *
 * h->a[0] is the first item while h->n > 0.  The order must be total on the
 * items present (break ties with a job index), so that what comes out never
 * depends on the heap's layout: schedules stay reproducible.
 */
#ifndef DLSIM_HEAP_H
#define DLSIM_HEAP_H

#include "sim/sim.h"

#define HEAP_DEFINE(pfx, H, T, before)                                      \
    static inline void pfx##_push(H *h, T it)                               \
    {                                                                       \
        xgrow(&h->a, &h->cap, h->n + 1, sizeof *h->a);                      \
        size_t i = h->n++;                                                  \
        while (i > 0 && before(&it, &h->a[(i - 1) / 2])) {                  \
            h->a[i] = h->a[(i - 1) / 2];                                    \
            i = (i - 1) / 2;                                                \
        }                                                                   \
        h->a[i] = it;                                                       \
    }                                                                       \
    static inline T pfx##_pop(H *h)                                         \
    {                                                                       \
        T top = h->a[0], last = h->a[--h->n];                               \
        size_t i = 0;                                                       \
        for (;;) {                                                          \
            size_t l = 2 * i + 1, m = i;                                    \
            const T *best = &last;                                          \
            if (l < h->n && before(&h->a[l], best))                         \
                m = l, best = &h->a[l];                                     \
            if (l + 1 < h->n && before(&h->a[l + 1], best))                 \
                m = l + 1;                                                  \
            if (m == i)                                                     \
                break;                                                      \
            h->a[i] = h->a[m];                                              \
            i = m;                                                          \
        }                                                                   \
        if (h->n)                                                           \
            h->a[i] = last;                                                 \
        return top;                                                         \
    }

#endif
