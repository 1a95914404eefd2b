"""FIFO with backfill as a Python policy, in about 30 lines.

Jobs wait in arrival order, one queue per gang shape (GPU count and
required type): when a shape's first job does not fit, none of that
shape does, so an instant costs one placement test per shape, not per
waiting job.  It schedules exactly as the built-in fifo:backfill=1:

    dlsim run --trace T --cluster C --policy py:examples/python/fifo_backfill.py:FifoBackfill
"""
from collections import deque

import dlsim


class FifoBackfill(dlsim.Policy):
    def __init__(self):
        self.shapes = {}                    # (num_gpus, type) -> deque

    def enqueue(self, view, job):
        self.shapes.setdefault((job.num_gpus, job.req_type), deque()).append(job)

    def schedule(self, view):
        free = view.free_gpus()
        while free:
            best = None                     # the earliest head that fits
            for q in self.shapes.values():
                if q and q[0].num_gpus <= free and (best is None or
                                                    q[0].index < best[0].index):
                    p = view.place(q[0])
                    if p is not None:
                        best = (q[0], p, q)
            if best is None:
                return
            job, p, q = best
            view.start(job, p)
            q.popleft()
            free -= job.num_gpus
