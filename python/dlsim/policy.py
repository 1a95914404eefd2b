"""Policies written in Python: dlsim.Policy, the view it decides on, and
the host that connects it to the engine.

A Python policy is a C policy of the engine's contract (sim/policy.h) like
any other: libdlsim's shim (sim/api/pyshim.c) is created, told of
arrivals, completions and rate changes, and asked to schedule once per
simulated instant; it hands the instant's events, in order, to one Python
call, which runs the policy's enqueue(), finished() and rate_changed()
hooks and then its schedule().  Actions go back through the engine, which
validates each one as it does a built-in's: a refused action raises
ActionError here with the engine's reason, and the run then fails.
"""
import ctypes as C
import importlib.util
import os

from . import _capi
from ._capi import lib, SIM_NONE, SIM_NEVER

_STATES = ("future", "queued", "running", "done", "rejected")
_US = 1e6


class ActionError(RuntimeError):
    """The engine refused an action; str() is its reason."""


class Placement:
    """Where a gang can go: a GPU type (name and index) and sorted GPU ids."""
    __slots__ = ("type", "type_index", "gpus")

    def __init__(self, type_name, type_index, gpus):
        self.type, self.type_index, self.gpus = type_name, type_index, gpus

    def __repr__(self):
        return f"Placement({self.type!r}, gpus={self.gpus})"


class Job:
    """One job as the policy sees it (live: fields read the engine's state).

    Times are seconds.  duration is the true solo run time on the
    reference GPU type (what the trace says; a policy that should not know
    it asks predicted_runtime()).  remaining is reference-GPU work left,
    attained the GPU-seconds it has held so far.  The run-state fields
    (req_type, gpus, remaining, attained, wait, preemptions, resizes)
    describe a job while it is queued or running; once it has left they
    read as a job's never started (state is always its own)."""
    __slots__ = ("_v", "index", "num_gpus", "submit", "_req")

    def __init__(self, view, j):
        self._v = view
        self.index = j
        tj = view._jobs[j]
        self.num_gpus = tj.num_gpus
        self.submit = tj.submit / _US
        self._req = None

    def __repr__(self):
        return f"Job({self.id!r}, gpus={self.num_gpus}, {self.state})"

    def _s(self, name):
        b = getattr(self._v._jobs[self.index], name)
        return b.decode() if b is not None else None

    id = property(lambda self: self._s("id"))
    model = property(lambda self: self._s("model"))
    gpu_type = property(lambda self: self._s("gpu_type"))
    user = property(lambda self: self._s("user"))
    vc = property(lambda self: self._s("vc"))
    priority = property(lambda self: self._v._jobs[self.index].priority)
    duration = property(lambda self: self._v._jobs[self.index].duration / _US)

    @property
    def deadline(self):
        d = self._v._jobs[self.index].deadline
        return None if d == SIM_NEVER else d / _US

    @property
    def state(self):
        return _STATES[self._v._state[self.index]]

    @property
    def req_type(self):
        """Index of the GPU type the job must run on, None for any."""
        t = self._v._rt(self.index).req_type
        return None if t == SIM_NONE else t

    @property
    def gpus(self):
        if self._v._state[self.index] != 2:
            return ()
        r = self._v._rt(self.index)
        return tuple(r.gpus[:r.ngpus])

    @property
    def remaining(self):
        r = self._v._rt(self.index)
        w = r.remaining - r.rate * (self._v.now_us - r.settled)
        return max(w, 0.0) / _US

    @property
    def attained(self):
        r = self._v._rt(self.index)
        g = r.gpu_us
        if self._v._state[self.index] == 2:
            g += r.ngpus * (self._v.now_us - r.settled)
        return g / _US

    @property
    def wait(self):
        r = self._v._rt(self.index)
        queued = self._v._state[self.index] == 1
        w = r.wait + (self._v.now_us - r.queued_since if queued else 0)
        return w / _US

    preemptions = property(lambda self: self._v._rt(self.index).preemptions)
    resizes = property(lambda self: self._v._rt(self.index).resizes)

    def predicted_runtime(self, gpu_type=None, n=None, spread=False):
        """Predicted solo run time (s) on n GPUs (default: its own) of a
        type (name or index; default the cluster's reference type)."""
        v = self._v
        t = v._type_index(gpu_type) if gpu_type is not None else v.ref_type
        n = self.num_gpus if n is None else n
        return lib.dlsim_sched_pred_runtime(v._s, self.index, t, n,
                                            int(spread)) / _US

    def predicted_util(self, gpu_type=None):
        v = self._v
        t = v._type_index(gpu_type) if gpu_type is not None else SIM_NONE
        return lib.dlsim_sched_pred_util(v._s, self.index, t)


class View:
    """What a policy sees at an instant, and its actions.  Valid during the
    hook it is passed to; Job objects stay valid for the whole run."""

    def __init__(self):
        self._s = None
        self.now_us = 0
        self._objs = None

    def _rt(self, j):
        """Job j's run state while it is queued or running, else an empty
        one (the engine keeps run state only for jobs in the system)."""
        return self._rts[self._slot[j]]

    # -- setup (first call)
    def _bind(self, s, inst):
        self._s = s
        self._jobs, self.njobs = inst.jobs, inst.njobs
        self._rts, self._slot, self._state = inst.rts, inst.rt_slot, inst.state
        self._q, self._r = inst.queued, inst.running
        self._nq, self._nr = inst.nqueued, inst.nrunning
        self._objs = [None] * inst.njobs
        nt, nn, ng, ref, ms = (C.c_uint32() for _ in range(5))
        lib.dlsim_sched_cluster(s, nt, nn, ng, ref, ms)
        self.ntypes, self.nnodes, self.ngpus = nt.value, nn.value, ng.value
        self.ref_type, self.max_share = ref.value, ms.value
        self._tot, self._free = C.c_uint32(), C.c_uint32()
        self.type_names = [lib.dlsim_sched_type(s, t, self._tot, self._free).decode()
                           for t in range(self.ntypes)]
        self._buf = (C.c_uint32 * max(self.ngpus, 1))()
        self._gjobs = (C.c_uint32 * max(self.max_share, 1))()
        self._t = C.c_uint32()

    def job(self, j):
        """The Job of index j (the trace's row order)."""
        o = self._objs[j]
        if o is None:
            o = self._objs[j] = Job(self, j)
        return o

    @property
    def now(self):
        return self.now_us / _US

    @property
    def queued(self):
        """The queued jobs, in no fixed order (sort by .index for arrival)."""
        q, job = self._q, self.job
        return [job(q[i]) for i in range(self._nq[0])]

    @property
    def running(self):
        r, job = self._r, self.job
        return [job(r[i]) for i in range(self._nr[0])]

    @property
    def nqueued(self):
        return self._nq[0]

    @property
    def nrunning(self):
        return self._nr[0]

    def _type_index(self, t):
        if isinstance(t, int):
            return t
        i = lib.dlsim_sched_type_find(self._s, t.encode())
        if i == SIM_NONE:
            raise ValueError(f"unknown GPU type {t!r} (the cluster has "
                             f"{', '.join(self.type_names)})")
        return i

    def free_gpus(self, gpu_type=None):
        """Free GPUs of one type (name or index), or of all types."""
        if gpu_type is not None:
            lib.dlsim_sched_type(self._s, self._type_index(gpu_type), self._tot,
                                 self._free)
            return self._free.value
        n = 0
        for t in range(self.ntypes):
            lib.dlsim_sched_type(self._s, t, self._tot, self._free)
            n += self._free.value
        return n

    def free_by_type(self):
        """{type name: free GPUs}."""
        return {name: self.free_gpus(t) for t, name in enumerate(self.type_names)}

    def free_by_node(self):
        """[free GPUs of node 0, node 1, ...]."""
        t, g, f, first = (C.c_uint32() for _ in range(4))
        out = []
        for n in range(self.nnodes):
            lib.dlsim_sched_node(self._s, n, t, g, f, first)
            out.append(f.value)
        return out

    def gpu_jobs(self, g):
        """The jobs on GPU g."""
        n = lib.dlsim_sched_gpu_jobs(self._s, g, self._gjobs)
        return [self.job(self._gjobs[i]) for i in range(n)]

    def place(self, job, placement="consolidated", n=None):
        """Free GPUs for job's gang (n GPUs, default its num_gpus) under the
        engine's placement (consolidated or pool), or None."""
        if placement not in ("consolidated", "pool"):
            raise ValueError("placement is consolidated or pool")
        n = job.num_gpus if n is None else n
        if not lib.dlsim_sched_place(self._s, n, self._rt(job.index).req_type,
                                     placement == "pool", self._t, self._buf):
            return None
        t = self._t.value
        return Placement(self.type_names[t], t, tuple(self._buf[:n]))

    def _gpus(self, where):
        gpus = where.gpus if isinstance(where, Placement) else tuple(where)
        return (C.c_uint32 * max(len(gpus), 1))(*gpus), len(gpus)

    def _act(self, rc):
        if rc:
            raise ActionError(lib.dlsim_sched_failure(self._s).decode())

    def start(self, job, placement):
        """Starts queued job on a Placement (or sorted GPU ids): its whole
        gang, or fewer GPUs for an elastic start."""
        a, n = self._gpus(placement)
        self._act(lib.dlsim_sched_start(self._s, job.index, a, n, 0))

    def start_shared(self, job, placement):
        """Starts queued job on GPUs that may already hold other jobs
        (co-location, at the slowdown model's rates)."""
        a, n = self._gpus(placement)
        self._act(lib.dlsim_sched_start(self._s, job.index, a, n, 1))

    def preempt(self, job, cost=0.0):
        """Stops running job (back to queued); cost: seconds of reference-GPU
        work added (checkpoint and restore)."""
        self._act(lib.dlsim_sched_preempt(self._s, job.index, cost * _US))

    def wake(self, at):
        """Asks for a schedule() call at time at (seconds, > now)."""
        lib.dlsim_sched_wake(self._s, int(round(at * _US)))


class Policy:
    """Subclass and override schedule(view); enqueue(view, job),
    finished(view, job) and rate_changed(view, job) are optional.  The
    class attribute placement (consolidated or pool) is the run's
    placement mode for the engine's check that a job can ever fit."""
    placement = "consolidated"
    name = None

    def enqueue(self, view, job):
        pass

    def finished(self, view, job):
        pass

    def rate_changed(self, view, job):
        pass

    def schedule(self, view):
        raise NotImplementedError("a dlsim.Policy defines schedule(view)")


class _Host:
    """Connects one Policy object to the shim for one run."""

    def __init__(self, policy):
        if not isinstance(policy, Policy):
            raise TypeError("policy must be a name or a dlsim.Policy")
        if policy.placement not in ("consolidated", "pool"):
            raise ValueError("Policy.placement is consolidated or pool")
        self.policy = policy
        self.view = View()
        self.exc = None
        self._first = True
        self._cb = _capi.SCHEDULE(self._schedule)
        name = policy.name or type(policy).__name__
        self.py = _capi.Py(name.encode(), policy.placement == "pool", self._cb)

    def _schedule(self, s, inp):
        try:
            v = self.view
            inst = inp[0]
            if self._first:
                v._bind(s, inst)
                self._first = False
            v._s = s
            v.now_us = inst.now_us
            n = inst.nevents
            if n:
                ev, objs, job, pol = inst.events, v._objs, v.job, self.policy
                hooks = (pol.enqueue, pol.finished, pol.rate_changed)
                for i in range(0, 2 * n, 2):
                    j = ev[i + 1]
                    hooks[ev[i]](v, objs[j] or job(j))
            self.policy.schedule(v)
            return 0
        except BaseException as e:      # noqa: B902 -- re-raised by run()
            self.exc = e
            return 1


def load_policy(spec):
    """A policy from "py:PATH.py:CLASS[:key=value,...]": the class in the
    file, made with the options as keyword arguments (strings)."""
    parts = spec.split(":", 3)
    if len(parts) < 3 or parts[0] != "py" or not parts[1] or not parts[2]:
        raise ValueError(f"--policy {spec}: expected py:PATH.py:CLASS"
                         "[:key=value,...]")
    path, cls = parts[1], parts[2]
    kw = {}
    for kv in (parts[3].split(",") if len(parts) > 3 and parts[3] else []):
        k, eq, val = kv.partition("=")
        if not eq or not k:
            raise ValueError(f"--policy {spec}: '{kv}' is not key=value")
        if k in kw:
            raise ValueError(f"--policy {spec}: option '{k}' given twice")
        kw[k] = val
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such policy file")
    name = "dlsim_policy_" + os.path.splitext(os.path.basename(path))[0]
    specm = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(specm)
    specm.loader.exec_module(mod)
    k = getattr(mod, cls, None)
    if not (isinstance(k, type) and issubclass(k, Policy)):
        raise ValueError(f"{path}: no dlsim.Policy subclass named {cls}")
    return k(**kw)
