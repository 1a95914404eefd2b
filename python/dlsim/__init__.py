"""dlsim from Python: run the C engine, read its outputs, and write
scheduling policies in Python (docs/python.md).

    import dlsim
    r = dlsim.run("trace.csv.gz", cluster="c.yaml", policy="fifo:backfill=1")
    r.summary["avg_jct"], r.jobs, r.timeseries

The engine is libdlsim.so, bound with ctypes (no compiled extension);
pandas is optional (tables are DataFrames with it, lists of dicts
without).
"""
import csv
import ctypes as C
import json
import os
import sys
import tempfile

from . import _capi
from ._capi import lib
from .policy import ActionError, Job, Placement, Policy, View, load_policy
from .policy import _Host
from .tables import Result, SweepResult, load, read_table

__all__ = ["run", "load", "sweep", "policies", "Policy", "View", "Job",
           "Placement", "Result", "SweepResult", "InputError", "RunError",
           "ActionError", "Env", "read_table"]


class InputError(ValueError):
    """Bad input, as `dlsim run` would report it (exit status 2): .file,
    .line, .column (0 when not known) and .message."""

    def __init__(self, file, line, column, message):
        self.file, self.line, self.column, self.message = file, line, column, message
        where = file or ""
        if where and line > 0:
            where += f":{line}" + (f":{column}" if column > 0 else "")
        super().__init__(f"{where}: {message}" if where else message)


class RunError(RuntimeError):
    """The run failed (exit status 1: an I/O error, a refused action, a
    violated invariant); .message says why."""

    def __init__(self, message):
        self.message = message
        super().__init__(message)


_NATIVE = ("job_id", "submit_time", "num_gpus", "duration", "model",
           "gpu_type", "deadline", "util", "mem_gb", "user", "vc", "priority")


def _write_trace(records, path):
    """A DataFrame or a list of dicts with the native columns, as a native
    trace file (rows in the given order; the engine checks them)."""
    if hasattr(records, "to_dict"):                 # a DataFrame
        records = records.to_dict("records")
    records = list(records)
    cols = [c for c in _NATIVE if any(c in r for r in records)]
    extra = sorted({k for r in records for k in r} - set(_NATIVE))
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols + extra)
        for r in records:
            row = []
            for c in cols + extra:
                v = r.get(c)
                if v is None or (isinstance(v, float) and v != v):
                    v = ""                          # None / NaN: unknown
                elif isinstance(v, float):
                    v = repr(v)
                row.append(v)
            w.writerow(row)


def _error(err, names):
    code, msg = err.code, err.msg.decode(errors="replace")
    if code == _capi.DL_ECHECK or code == _capi.DL_EIO and not err.file:
        return RunError(msg)
    f = err.file.decode(errors="replace")
    return InputError(names.get(f, f), err.line, err.col, msg)


def run(trace, cluster=None, policy="fifo", models=(), load=None, seed=1,
        check=False, out=None, sample=300, strict=False, quiet=True):
    """One simulation, as `dlsim run` makes it; returns a Result.

    trace: a native trace file, or a DataFrame / list of dicts with the
    native columns (job_id, submit_time, num_gpus, duration, ...).
    cluster: a cluster YAML file (None: the built-in demo-256).  policy: a
    name with options ("fifo:backfill=1"), a dlsim.Policy object, or
    "py:PATH.py:CLASS[:k=v,...]".  models: --models arguments.  out: the
    directory to write (None: a temporary one, kept while the Result
    lives).  quiet: no warnings on stderr (they are in summary.json).
    Bad input raises InputError, a failed run RunError, an exception in a
    Python policy is re-raised as it was."""
    if isinstance(policy, str) and policy.startswith("py:"):
        spec, policy = policy, load_policy(policy)
    else:
        spec = None
    host = None
    if isinstance(policy, Policy):
        host = _Host(policy)
        spec = spec or "py:" + type(policy).__name__
    elif not isinstance(policy, str):
        raise TypeError("policy: a name, 'py:FILE.py:CLASS' or a dlsim.Policy")
    if isinstance(models, str):
        models = (models,)
    if load is not None and not (isinstance(load, (int, float)) and load > 0):
        raise ValueError("load: an offered load > 0")
    keep = None
    if out is None:
        keep = tempfile.TemporaryDirectory(prefix="dlsim-")
        out = keep.name
    names = {}
    if not isinstance(trace, (str, os.PathLike)):
        tdir = keep.name if keep else tempfile.mkdtemp(prefix="dlsim-")
        path = os.path.join(tdir, "trace.csv")
        _write_trace(trace, path)
        names[path] = "<trace records>"
        trace = path
    enc = lambda s: None if s is None else os.fsencode(s)   # noqa: E731
    marr = (C.c_char_p * max(len(models), 1))(*[enc(m) for m in models])
    o = _capi.Opts(version=_capi.API_VERSION, nmodels=len(models),
                   trace=enc(trace), cluster=enc(cluster),
                   policy=(spec or policy).encode(), out=enc(out),
                   command=None, models=marr, load=load or 0.0,
                   sample=str(sample).encode(), seed=seed, check=int(check),
                   strict=int(strict), quiet=int(quiet),
                   py=C.pointer(host.py) if host else None)
    st, err = _capi.Stats(), _capi.Error()
    sys.stdout.flush()
    sys.stderr.flush()
    rc = lib.dlsim_run(C.byref(o), C.byref(st), C.byref(err))
    if host is not None and host.exc is not None:
        e, host.exc = host.exc, None
        raise e
    if rc:
        raise _error(err, names)
    r = Result(out, keep)
    r.stats = {k: getattr(st, k) for k, _ in _capi.Stats._fields_}
    return r


def sweep(spec, jobs=None, out=None, resume=False, strict=False, quiet=True):
    """A sweep (`dlsim sweep`): spec is a YAML file or a dict of the same
    keys (docs/sweeps.md); returns a SweepResult.  Bad input raises
    InputError, a failed run RunError (the others still ran)."""
    tmp = None
    if isinstance(spec, dict):
        tmp = tempfile.TemporaryDirectory(prefix="dlsim-sweep-")
        path = os.path.join(tmp.name, "sweep.yaml")
        with open(path, "w") as f:
            json.dump(spec, f)          # JSON is YAML's flow style
        if out is None:
            raise ValueError("sweep: out= is needed with a dict spec")
        spec = path
    sys.stdout.flush()
    sys.stderr.flush()
    rc = lib.dlsim_sweep(os.fsencode(spec), None if out is None else os.fsencode(out),
                         jobs or 0, int(resume), int(quiet), int(strict))
    if out is None:
        base = os.path.basename(spec)
        out = (base[:-5] if base.endswith(".yaml") else base) + ".out"
    if rc == _capi.DL_EINPUT:
        raise InputError(spec, 0, 0, "bad sweep spec or directory (its "
                         "message is on stderr)")
    if rc:
        raise RunError(f"sweep {out}: some run failed (see its summary.csv "
                       "and logs/)")
    return SweepResult(out)


def policies():
    """The built-in policies: [{name, summary, blocking, options: [{key,
    default, help}]}], each with the options every policy takes."""
    out = []
    s, b = C.c_char_p(), C.c_char_p()
    d, h = C.c_char_p(), C.c_char_p()

    def opts(i):
        r, k = [], 0
        while True:
            key = lib.dlsim_policy_opt(i, k, d, h)
            if key is None:
                return r
            r.append({"key": key.decode(), "default": d.value.decode(),
                      "help": (h.value or b"").decode()})
            k += 1
    common = opts(-1)
    i = 0
    while True:
        name = lib.dlsim_policy(i, s, b)
        if name is None:
            return out
        out.append({"name": name.decode(),
                    "summary": (s.value or b"").decode(),
                    "blocking": b.value.decode() if b.value else None,
                    "options": opts(i) + common})
        i += 1


from .env import Env       # noqa: E402
