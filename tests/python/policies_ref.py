"""Python versions of the C fifo and sjf (policies/fifo.c), written
against dlsim.Policy alone: test_python checks that they schedule
exactly as the built-ins do."""
import dlsim


class Fifo(dlsim.Policy):
    """Arrival order; backfill=1 lets later jobs start past one that
    does not fit."""

    def __init__(self, backfill="0"):
        self.q = []
        self.backfill = backfill == "1"

    def enqueue(self, view, job):
        self.q.append(job)

    def schedule(self, view):
        i = 0
        while i < len(self.q):
            p = view.place(self.q[i])
            if p is None:
                if not self.backfill:
                    return
                i += 1
                continue
            view.start(self.q.pop(i), p)


class Sjf(Fifo):
    """Shortest (true) duration first, ties by arrival."""

    def enqueue(self, view, job):
        self.q.append(job)
        self.q.sort(key=lambda j: (j.duration, j.index))
