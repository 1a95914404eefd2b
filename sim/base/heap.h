/*
 * sim/base/heap.h - the one binary heap of dlsim, generated per item type: the
 * engine's event queue, the policy kit's queue buckets and every policy's
 * heaps are instances of it.
 *
 *   HEAP_DEFINE(pfx, H, T, before)
 *   HEAP_DEFINE_AT(pfx, H, T, before_h, placed)
 *
 * define, for a struct H with members `T *a; size_t n, cap;` and a strict
 * order (x comes out first when before(x, y)):
 *
 *   static void pfx_push(H *h, T it);
 *   static T pfx_pop(H *h);             h->n > 0; returns the first item
 *   static void pfx_replace(H *h, T it);  h->n > 0; pops and pushes it
 *                                       in one sift
 *   static const T *pfx_second(const H *h);    the item a pop would bring
 *                                       to the top (NULL: none)
 *   static void pfx_delete(H *h, size_t i);    removes the item at a[i]
 *   static void pfx_heapify(H *h);      restores the order of a[0..n) in
 *                                       O(n) (after a bulk edit)
 *
 * h->a[0] is the first item while h->n > 0.  HEAP_DEFINE_AT is the general
 * form: before_h(h, x, y) sees the heap (whose struct may carry the
 * comparison's context), and placed(h, i) runs whenever an item lands in
 * a[i], for heaps that keep each item's position (HEAP_NOPLACE: none).
 * The order must be total on the items present (break ties with a job
 * index or a sequence number), so that what comes out never depends on
 * the heap's layout: schedules stay reproducible.  Where equal items can
 * be present they must be interchangeable (a live entry of a job and a
 * stale copy of it, which the user skips whichever pops first): the pop
 * below is bottom-up, and which of two equal items comes out first
 * depends on the layout.  Nothing is allocated
 * but the array, which grows geometrically (xgrow).
 */
#ifndef DLSIM_HEAP_H
#define DLSIM_HEAP_H

#include "sim/base/base.h"

#define HEAP_NOPLACE(h, i) ((void)(h), (void)(i))

#define HEAP_DEFINE_AT(pfx, H, T, before_h, placed)                         \
    static inline void pfx##_set(H *h, size_t i, T it)                      \
    {                                                                       \
        h->a[i] = it;                                                       \
        placed(h, i);                                                       \
    }                                                                       \
    /* it goes at or above i */                                             \
    static inline void pfx##_up(H *h, size_t i, T it)                       \
    {                                                                       \
        while (i > 0 && before_h(h, &it, &h->a[(i - 1) / 2])) {             \
            pfx##_set(h, i, h->a[(i - 1) / 2]);                             \
            i = (i - 1) / 2;                                                \
        }                                                                   \
        pfx##_set(h, i, it);                                                \
    }                                                                       \
    /* it goes at or below i, among a[0..n) */                              \
    static inline void pfx##_down(H *h, size_t i, T it)                     \
    {                                                                       \
        for (;;) {                                                          \
            size_t l = 2 * i + 1, m = i;                                    \
            const T *best = &it;                                            \
            if (l < h->n && before_h(h, &h->a[l], best))                    \
                m = l, best = &h->a[l];                                     \
            if (l + 1 < h->n && before_h(h, &h->a[l + 1], best))            \
                m = l + 1;                                                  \
            if (m == i)                                                     \
                break;                                                      \
            pfx##_set(h, i, h->a[m]);                                       \
            i = m;                                                          \
        }                                                                   \
        pfx##_set(h, i, it);                                                \
    }                                                                       \
    static inline void pfx##_push(H *h, T it)                               \
    {                                                                       \
        if (h->n >= h->cap)     /* no call for the common case */           \
            xgrow(&h->a, &h->cap, h->n + 1, sizeof *h->a);                  \
        pfx##_up(h, h->n++, it);                                            \
    }                                                                       \
    /* bottom-up (Floyd): the hole at the top sinks along the earlier     \
     * child to a leaf, one comparison a level, and the last item rises     \
     * into it from there (a few levels: it was a leaf)                     \
     */                                                                     \
    static inline T pfx##_pop(H *h)                                         \
    {                                                                       \
        T top = h->a[0], last = h->a[--h->n];                               \
        size_t i = 0, n = h->n;                                             \
        if (!n)                                                             \
            return top;                                                     \
        for (size_t l; (l = 2 * i + 1) < n;) {                              \
            size_t m = l + 1 < n && before_h(h, &h->a[l + 1], &h->a[l])     \
                           ? l + 1 : l;                                     \
            pfx##_set(h, i, h->a[m]);                                       \
            i = m;                                                          \
        }                                                                   \
        pfx##_up(h, i, last);                                               \
        return top;                                                         \
    }                                                                       \
    /* the top replaced by it: one sift where a pop and a push are two */ \
    static inline void pfx##_replace(H *h, T it)                            \
    {                                                                       \
        pfx##_down(h, 0, it);                                               \
    }                                                                       \
    /* the entry a pop would bring to the top, or NULL */                   \
    static inline const T *pfx##_second(const H *h)                         \
    {                                                                       \
        if (h->n < 3)                                                       \
            return h->n == 2 ? &h->a[1] : NULL;                             \
        return before_h(h, &h->a[2], &h->a[1]) ? &h->a[2] : &h->a[1];       \
    }                                                                       \
    static inline void pfx##_delete(H *h, size_t i)                         \
    {                                                                       \
        T last = h->a[--h->n];                                              \
        if (i == h->n)                                                      \
            return;                                                         \
        if (i > 0 && before_h(h, &last, &h->a[(i - 1) / 2]))                \
            pfx##_up(h, i, last);                                           \
        else                                                                \
            pfx##_down(h, i, last);                                         \
    }                                                                       \
    static inline void pfx##_heapify(H *h)                                  \
    {                                                                       \
        for (size_t i = h->n / 2; i-- > 0;)                                 \
            pfx##_down(h, i, h->a[i]);                                      \
    }

#define HEAP_DEFINE(pfx, H, T, before)                                      \
    static inline bool pfx##_before(const H *h, const T *x, const T *y)     \
    {                                                                       \
        (void)h;                                                            \
        return before(x, y);                                                \
    }                                                                       \
    HEAP_DEFINE_AT(pfx, H, T, pfx##_before, HEAP_NOPLACE)

#endif
