"""The ctypes binding of libdlsim.so (sim/api/dlsim.h).

The library is found, in order: $DLSIM_LIB; beside the installed package
through the install prefix (_paths.py, written by meson); the source
tree's build/ directory.  The struct mirrors below are checked against
the library's own sizes at import, so a header change that is not made
here fails loudly instead of reading garbage.
"""
import ctypes as C
import os

API_VERSION = 2
SIM_NONE = 0xFFFFFFFF
SIM_NEVER = (1 << 63) - 1
DL_EINPUT, DL_EIO, DL_ECHECK = None, None, None   # set below from the lib


def _find():
    env = os.environ.get("DLSIM_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _paths
        up = here
        for _ in _paths.REL_PYDIR.strip("/").split("/") + ["dlsim"]:
            up = os.path.dirname(up)
        cand = os.path.join(up, _paths.REL_LIBDIR, "libdlsim.so")
        if os.path.exists(cand):
            return cand
    except ImportError:
        pass
    cand = os.path.join(here, "..", "..", "build", "libdlsim.so")
    if os.path.exists(cand):
        return os.path.normpath(cand)
    raise ImportError("dlsim: cannot find libdlsim.so (set DLSIM_LIB, or "
                      "install dlsim with meson install)")


class TrcJob(C.Structure):
    _fields_ = [("id", C.c_char_p), ("submit", C.c_int64),
                ("duration", C.c_int64), ("deadline", C.c_int64),
                ("num_gpus", C.c_uint32), ("priority", C.c_int32),
                ("model", C.c_char_p), ("gpu_type", C.c_char_p),
                ("user", C.c_char_p), ("vc", C.c_char_p),
                ("util", C.c_float), ("mem_gb", C.c_float),
                ("line", C.c_uint32)]


class JobRt(C.Structure):
    _fields_ = [("remaining", C.c_double), ("rate", C.c_double)] + \
        [(n, C.c_int64) for n in ("settled", "finish_at", "first_start",
                                  "finish", "queued_since", "wait",
                                  "last_start", "prev_start", "preempted_at")] + \
        [(n, C.c_double) for n in ("last_cost", "base_rate", "iso_rate",
                                   "start_remaining", "run_us", "gpu_us",
                                   "solo_us", "ufac")] + \
        [("gpus", C.POINTER(C.c_uint32))] + \
        [(n, C.c_uint32) for n in ("ngpus", "first_ngpus", "req_type", "type",
                                   "gen", "preemptions", "resizes")]


class Instant(C.Structure):
    _fields_ = [("now_us", C.c_int64), ("events", C.POINTER(C.c_uint32)),
                ("nevents", C.c_uint32),
                ("nqueued", C.POINTER(C.c_uint32)),
                ("nrunning", C.POINTER(C.c_uint32)),
                ("queued", C.POINTER(C.c_uint32)),
                ("running", C.POINTER(C.c_uint32)),
                ("jobs", C.POINTER(TrcJob)), ("rts", C.POINTER(JobRt)),
                ("rt_slot", C.POINTER(C.c_uint32)),
                ("state", C.POINTER(C.c_uint8)), ("njobs", C.c_uint32)]


SCHEDULE = C.CFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(Instant))


class Py(C.Structure):
    _fields_ = [("name", C.c_char_p), ("pool", C.c_int32),
                ("schedule", SCHEDULE)]


class Error(C.Structure):
    _fields_ = [("code", C.c_int32), ("pad", C.c_int32), ("line", C.c_int64),
                ("col", C.c_int64), ("file", C.c_char * 512),
                ("msg", C.c_char * 512)]


class Opts(C.Structure):
    _fields_ = [("version", C.c_uint32), ("nmodels", C.c_uint32),
                ("trace", C.c_char_p), ("cluster", C.c_char_p),
                ("policy", C.c_char_p), ("out", C.c_char_p),
                ("command", C.c_char_p), ("models", C.POINTER(C.c_char_p)),
                ("load", C.c_double), ("pad", C.c_double),
                ("sample", C.c_char_p), ("seed", C.c_uint64),
                ("check", C.c_int32), ("strict", C.c_int32),
                ("quiet", C.c_int32), ("py", C.POINTER(Py))]


class Stats(C.Structure):
    _fields_ = [("wall_seconds", C.c_double), ("cpu_setup", C.c_double),
                ("cpu_engine", C.c_double), ("cpu_write", C.c_double),
                ("load_factor", C.c_double), ("events", C.c_uint64)]


path = _find()
lib = C.CDLL(path)
U32, I32, P = C.c_uint32, C.c_int32, C.c_void_p
PU32 = C.POINTER(C.c_uint32)
_sigs = {
    "dlsim_version": (U32, []),
    "dlsim_sizeof": (C.c_size_t, [C.c_char_p]),
    "dlsim_run": (C.c_int, [C.POINTER(Opts), C.POINTER(Stats), C.POINTER(Error)]),
    "dlsim_cli": (C.c_int, [C.c_int, C.POINTER(C.c_char_p), C.POINTER(Py)]),
    "dlsim_sweep": (C.c_int, [C.c_char_p, C.c_char_p, C.c_long, I32, I32, I32]),
    "dlsim_policy": (C.c_char_p, [I32, C.POINTER(C.c_char_p), C.POINTER(C.c_char_p)]),
    "dlsim_policy_opt": (C.c_char_p, [I32, I32, C.POINTER(C.c_char_p),
                                      C.POINTER(C.c_char_p)]),
    "dlsim_sched_start": (C.c_int, [P, U32, PU32, U32, I32]),
    "dlsim_sched_preempt": (C.c_int, [P, U32, C.c_double]),
    "dlsim_sched_wake": (None, [P, C.c_int64]),
    "dlsim_sched_failure": (C.c_char_p, [P]),
    "dlsim_sched_place": (C.c_int, [P, U32, U32, I32, PU32, PU32]),
    "dlsim_sched_pred_runtime": (C.c_double, [P, U32, U32, U32, I32]),
    "dlsim_sched_pred_util": (C.c_double, [P, U32, U32]),
    "dlsim_sched_cluster": (None, [P, PU32, PU32, PU32, PU32, PU32]),
    "dlsim_sched_type": (C.c_char_p, [P, U32, PU32, PU32]),
    "dlsim_sched_node": (None, [P, U32, PU32, PU32, PU32, PU32]),
    "dlsim_sched_gpu_jobs": (U32, [P, U32, PU32]),
    "dlsim_sched_type_find": (U32, [P, C.c_char_p]),
}
for _name, (_res, _args) in _sigs.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

if lib.dlsim_version() != API_VERSION:
    raise ImportError(f"dlsim: {path} provides API version "
                      f"{lib.dlsim_version()}, this package needs {API_VERSION}")
for _n, _t in (("trc_job", TrcJob), ("job_rt", JobRt),
               ("dlsim_instant", Instant), ("dlsim_error", Error),
               ("dlsim_opts", Opts), ("dlsim_stats", Stats), ("dlsim_py", Py)):
    if lib.dlsim_sizeof(_n.encode()) != C.sizeof(_t):
        raise ImportError(f"dlsim: struct {_n} is {lib.dlsim_sizeof(_n.encode())} "
                          f"bytes in {path}, {C.sizeof(_t)} in the binding")
for _n, _t, _f in (("trc_job", TrcJob, "line"), ("job_rt", JobRt, "resizes")):
    _o = lib.dlsim_sizeof(f"{_n}.{_f}".encode())
    if _o != getattr(_t, _f).offset:
        raise ImportError(f"dlsim: {_n}.{_f} is at byte {_o} in {path}, "
                          f"{getattr(_t, _f).offset} in the binding")

# the DL_ codes (sim/base/base.h)
DL_EINPUT, DL_EIO, DL_ECHECK = -2, -3, -4
