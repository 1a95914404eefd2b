"""The Python package (python/dlsim) against the C engine: Python
policies schedule as the C ones, every refused action raises with the
engine's reason, errors carry file and line, Env is deterministic and
ends with every job done, and an installed tree imports on its own."""
import os
import random
import re
import shutil
import subprocess
import sys

import pytest

import dlsim
from conftest import BUILD, SOURCE
from policies_ref import Fifo, Sjf

DLSIM = os.environ["DLSIM"]
CLUSTERS = os.path.join(SOURCE, "examples", "clusters")
HETERO = os.path.join(CLUSTERS, "hetero.yaml")
TINY = os.path.join(CLUSTERS, "tiny.yaml")


def gen(tmp, seed, jobs=400, cluster=HETERO, load=1.2, extra=()):
    out = os.path.join(str(tmp), f"t{seed}.csv")
    subprocess.run([DLSIM, "trace", "gen", "--cluster", cluster, "--jobs",
                    str(jobs), "--seed", str(seed), "--load", str(load), "-o",
                    out, *extra], check=True, capture_output=True)
    return out


def jobs_csv(r):
    with open(os.path.join(r.dir, "jobs.csv"), "rb") as f:
        return f.read()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("name,cls,opts", [
    ("fifo", Fifo, {}), ("fifo:backfill=1", Fifo, {"backfill": "1"}),
    ("sjf", Sjf, {}), ("sjf:backfill=1", Sjf, {"backfill": "1"})])
def test_python_policy_equals_c(tmp_path, seed, name, cls, opts):
    t = gen(tmp_path, seed)
    c = dlsim.run(t, cluster=HETERO, policy=name, seed=seed)
    p = dlsim.run(t, cluster=HETERO, policy=cls(**opts), seed=seed, check=True)
    assert c.summary["jobs_finished"] == c.summary["jobs"] > 0
    assert jobs_csv(c) == jobs_csv(p)


def test_cli_python_policy(tmp_path):
    """dlsim run --policy py:FILE:CLASS re-executes under Python: the same
    files as the built-in, the same table, options passed as strings."""
    t = gen(tmp_path, 7)
    ref = os.path.join(os.path.dirname(__file__), "policies_ref.py")
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    env = dict(os.environ)
    env.pop("DLSIM_LIB")            # the executable finds its own
    p = subprocess.run([DLSIM, "run", "--trace", t, "--cluster", HETERO,
                        "--policy", f"py:{ref}:Fifo:backfill=1", "--out", a],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "py:" in p.stdout
    subprocess.run([DLSIM, "run", "--trace", t, "--cluster", HETERO, "--policy",
                    "fifo:backfill=1", "--out", b, "--quiet"], check=True)
    assert open(f"{a}/jobs.csv", "rb").read() == open(f"{b}/jobs.csv", "rb").read()
    # a class that is not there: bad input, exit 2, no output
    p = subprocess.run([DLSIM, "run", "--trace", t, "--policy",
                        f"py:{ref}:Nope", "--out", str(tmp_path / "c")],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "no dlsim.Policy subclass named Nope" in p.stderr
    assert not os.path.exists(tmp_path / "c")


def test_records_trace_equals_file(tmp_path):
    t = gen(tmp_path, 5, jobs=50)
    rows = dlsim.read_table(t) if dlsim.tables._pd is None else \
        dlsim.tables._pd.read_csv(t).to_dict("records")
    a = dlsim.run(t, cluster=HETERO, policy="sjf")
    b = dlsim.run(rows, cluster=HETERO, policy="sjf")
    assert jobs_csv(a) == jobs_csv(b)
    assert b.summary["jobs"] == 50


def test_tables_without_pandas(tmp_path, monkeypatch):
    """Without pandas: lists of dicts, numbers parsed, every empty field
    None (text columns too: model, user, vc), ids kept as text."""
    p = tmp_path / "jobs.csv"
    p.write_text("job_id,submit_time,finish_time,model,user,vc\n"
                 "007,0,1.5,resnet50,,\n8,2,,,alice,vc1\n")
    monkeypatch.setattr(dlsim.tables, "_pd", None)
    rows = dlsim.read_table(str(p))
    assert rows == [
        {"job_id": "007", "submit_time": 0, "finish_time": 1.5,
         "model": "resnet50", "user": None, "vc": None},
        {"job_id": "8", "submit_time": 2, "finish_time": None,
         "model": None, "user": "alice", "vc": "vc1"}]


def test_result_tables_and_load(tmp_path):
    t = gen(tmp_path, 6, jobs=60)
    out = str(tmp_path / "run")
    r = dlsim.run(t, cluster=HETERO, policy="fifo", out=out)
    jobs = r.jobs
    rows = jobs.to_dict("records") if hasattr(jobs, "to_dict") else jobs
    assert len(rows) == 60 and rows[0]["job_id"] == "j0"
    done = [x for x in rows if x["finish_time"] is not None]
    assert len(done) == r.summary["jobs_finished"]
    # jct = finish - submit, read back as numbers
    assert all(abs(x["jct"] - (x["finish_time"] - x["submit_time"])) < 1e-5
               for x in done)
    again = dlsim.load(out)
    assert again.summary == r.summary
    assert len(r.timeseries) > 0


def test_policies_listed():
    ps = {p["name"]: p for p in dlsim.policies()}
    assert {"fifo", "sjf", "srtf", "qos", "horus"} <= set(ps)
    keys = [o["key"] for o in ps["fifo"]["options"]]
    assert "backfill" in keys and "placement" in keys


# ------------------------------------------------------------- errors

def test_trace_error_has_file_and_line(tmp_path):
    t = tmp_path / "bad.csv"
    t.write_text("job_id,submit_time,num_gpus,duration\n"
                 "a,0,1,10\nb,5,x,10\n")
    with pytest.raises(dlsim.InputError) as e:
        dlsim.run(str(t))
    assert e.value.file == str(t) and e.value.line == 3
    assert "num_gpus" in e.value.message
    assert str(e.value).startswith(f"{t}:3")
    # the process goes on: the next run works
    t.write_text("job_id,submit_time,num_gpus,duration\na,0,1,10\n")
    assert dlsim.run(str(t)).summary["jobs_finished"] == 1


def test_records_error_names_the_records():
    with pytest.raises(dlsim.InputError) as e:
        dlsim.run([{"job_id": "a", "submit_time": 5, "num_gpus": 1, "duration": 3},
                   {"job_id": "b", "submit_time": 1, "num_gpus": 1, "duration": 3}])
    assert e.value.file == "<trace records>" and e.value.line == 3


def test_cluster_error_has_line_and_column(tmp_path):
    c = tmp_path / "c.yaml"
    c.write_text("name: x\ngpu_types:\n  - name: V100\n    speed: fast\n"
                 "nodes:\n  - count: 1\n    gpus: 8\n    gpu_type: V100\n")
    t = tmp_path / "t.csv"
    t.write_text("job_id,submit_time,num_gpus,duration\na,0,1,10\n")
    with pytest.raises(dlsim.InputError) as e:
        dlsim.run(str(t), cluster=str(c))
    assert e.value.file == str(c) and e.value.line == 4 and e.value.column > 0


def test_policy_errors(tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("job_id,submit_time,num_gpus,duration\na,0,1,10\n")
    with pytest.raises(dlsim.InputError, match="unknown policy 'nope'"):
        dlsim.run(str(t), policy="nope")
    with pytest.raises(dlsim.InputError, match="no option 'bogus'"):
        dlsim.run(str(t), policy="fifo:bogus=1")
    with pytest.raises(dlsim.InputError) as e:
        dlsim.run(str(t), models=["/nonexistent.yaml"])
    assert e.value.file == "/nonexistent.yaml" and "cannot open" in e.value.message


def test_python_exception_is_reraised(tmp_path):
    class Boom(dlsim.Policy):
        def schedule(self, view):
            if view.nqueued:
                raise KeyError("boom")
    t = tmp_path / "t.csv"
    t.write_text("job_id,submit_time,num_gpus,duration\na,0,1,10\n")
    with pytest.raises(KeyError, match="boom"):
        dlsim.run(str(t), policy=Boom())


# ------------------------------------------------- refused actions

TWO = """name: two
gpu_types:
  - {name: A, memory_gb: 16}
  - {name: B, memory_gb: 16}
nodes:
  - {count: 1, gpus: 2, gpu_type: A}
  - {count: 1, gpus: 2, gpu_type: B}
"""


class Scripted(dlsim.Policy):
    """At the first instant with job 0 queued, runs act(view, jobs) and
    records the ActionError's reason; then FIFO."""

    def __init__(self, act):
        self.act, self.reason, self.done = act, None, False

    def schedule(self, view):
        if not self.done and view.nqueued:
            self.done = True
            jobs = sorted(view.queued, key=lambda j: j.index)
            try:
                self.act(view, jobs)
            except dlsim.ActionError as e:
                self.reason = str(e)
                return
        for j in sorted(view.queued, key=lambda j: j.index):
            p = view.place(j)
            if p:
                view.start(j, p)


def start_running_again(v, jobs):
    v.start(jobs[0], v.place(jobs[0]))
    v.start(jobs[0], v.place(jobs[1]))


def busy_gpu(v, jobs):
    p = v.place(jobs[0])
    v.start(jobs[0], p)
    v.start(jobs[1], p.gpus)


def shared_over_limit(v, jobs):
    v.start(jobs[0], [0])
    for j in (1, 4, 5, 6):              # the fifth job on GPU 0: over the
        v.start_shared(jobs[j], [0])    # default max_jobs_per_gpu, 4


def shared_over_memory(v, jobs):
    v.start_shared(jobs[8], [0])        # 10 GB of 16
    v.start_shared(jobs[9], [0])


CASES = [
    ("not queued", lambda v, j: v.start(j[0], [0]) or v.start(j[0], [1]),
     "which is not queued"),
    ("not queued (running)", start_running_again, "which is not queued"),
    ("too many GPUs", lambda v, j: v.start(j[0], [0, 1]),
     "on 2 GPUs (it asks for 1)"),
    ("no GPUs", lambda v, j: v.start(j[0], []), "on 0 GPUs"),
    ("unsorted", lambda v, j: v.start(j[2], [1, 0]), "repeated, unsorted or absent"),
    ("repeated", lambda v, j: v.start(j[2], [1, 1]), "repeated, unsorted or absent"),
    ("absent", lambda v, j: v.start(j[0], [99]), "repeated, unsorted or absent"),
    ("busy", busy_gpu, "which is busy"),
    ("shared over max_jobs_per_gpu", shared_over_limit, "max_jobs_per_gpu"),
    ("shared over memory", shared_over_memory, "(10 GB) on GPU 0, which has 10"),
    ("elastic over its gang", lambda v, j: v.start(j[0], [0, 1]),
     "on 2 GPUs (it asks for 1)"),
    ("wrong type", lambda v, j: v.start(j[2], [1, 2]), "wrong GPU type"),
    ("required type", lambda v, j: v.start(j[3], [0]), "wrong GPU type"),
    ("preempt queued", lambda v, j: v.preempt(j[0]), "which is not running"),
    ("preempt negative cost",
     lambda v, j: (v.start(j[0], v.place(j[0])), v.preempt(j[0], cost=-1)),
     "negative cost"),
]


@pytest.mark.parametrize("label,act,reason", CASES, ids=[c[0] for c in CASES])
def test_refused_action(tmp_path, label, act, reason):
    c = tmp_path / "two.yaml"
    c.write_text(TWO)
    t = tmp_path / "t.csv"
    t.write_text("job_id,submit_time,num_gpus,duration,gpu_type,mem_gb\n"
                 "a,0,1,10,,\nb,0,1,10,,\nc,0,2,10,,\nd,0,1,10,B,\n"
                 "e,0,1,10,,\nf,0,1,10,,\ng,0,1,10,,\nh,0,1,10,,\n"
                 "i,0,1,10,,10\nk,0,1,10,,10\n")
    pol = Scripted(act)
    with pytest.raises(dlsim.RunError) as e:
        dlsim.run(str(t), cluster=str(c), policy=pol)
    assert pol.reason is not None and reason in pol.reason, pol.reason
    assert reason in e.value.message
    # an uncaught refusal comes out of run() as the ActionError itself
    with pytest.raises(dlsim.ActionError, match=re.escape(reason)):
        dlsim.run(str(t), cluster=str(c),
                  policy=type("P", (dlsim.Policy,), {
                      "schedule": lambda self, v: act(v, sorted(
                          v.queued, key=lambda j: j.index)) if v.nqueued == 10
                      else None})())
    assert act is not None


def test_view_fields(tmp_path):
    """What the view shows, at hand-computed instants: job 'a' (2 GPUs, 100 s)
    starts at 0; at 40 s its remaining work is 60 s and it has held 80
    GPU-seconds; 'b' waits 40 s."""
    seen = {}

    class Look(dlsim.Policy):
        def schedule(self, view):
            for j in sorted(view.queued, key=lambda j: j.index):
                p = view.place(j)
                if p:
                    view.start(j, p)
            if view.now == 0:
                view.wake(40)
            if view.now == 40 and not seen:
                a, b = view.job(0), view.job(1)
                seen.update(now=view.now, rem=a.remaining, att=a.attained,
                            gpus=a.gpus, state=(a.state, b.state),
                            wait=b.wait, free=view.free_gpus(),
                            byt=view.free_by_type(), nodes=view.free_by_node(),
                            dl=b.deadline, q=[j.id for j in view.queued],
                            on0=[j.id for j in view.gpu_jobs(a.gpus[0])])
    c = tmp_path / "two.yaml"
    c.write_text(TWO)
    t = tmp_path / "t.csv"
    t.write_text("job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,2,100,\nb,0,4,10,500\n")
    r = dlsim.run(str(t), cluster=str(c), policy=Look(), check=True)
    # b asks for 4 GPUs; each type has 2: rejected on arrival
    assert r.summary["jobs_finished"] == 1
    assert seen["now"] == 40 and seen["rem"] == pytest.approx(60)
    assert seen["att"] == pytest.approx(80) and seen["gpus"] == (0, 1)
    assert seen["state"] == ("running", "rejected")
    assert seen["free"] == 2 and seen["byt"] == {"A": 0, "B": 2}
    assert seen["nodes"] == [0, 2] and seen["on0"] == ["a"]


# ------------------------------------------------------------- Env

def test_env_deterministic_and_complete(tmp_path):
    t = gen(tmp_path, 11, jobs=120, cluster=TINY, load=1.0)

    def episode(seed):
        env = dlsim.Env(t, cluster=TINY)
        rng = random.Random(seed)
        obs, trail, total = env.reset(seed=1), [], 0.0
        done, steps = False, 0
        while not done:
            choices = [i for i, q in enumerate(obs["queue"]) if q["fits"]]
            a = rng.choice(choices + [None])
            obs, r, done, info = env.step(a)
            trail.append((obs["now"], len(obs["queue"]), r))
            total += r
            steps += 1
        return trail, env.result, steps

    a, ra, n = episode(3)
    b, rb, _ = episode(3)
    assert a == b and n > 100
    assert ra.summary["jobs_finished"] == ra.summary["jobs"] == 120
    assert open(f"{ra.dir}/jobs.csv").read() == open(f"{rb.dir}/jobs.csv").read()
    c, _, _ = episode(4)
    assert c != a


def test_env_fifo_agent_equals_c_fifo(tmp_path):
    """An agent that always starts the head of the queue when it fits and
    else waits is C fifo."""
    t = gen(tmp_path, 12, jobs=150, cluster=TINY, load=1.1)
    env = dlsim.Env(t, cluster=TINY)
    obs, done = env.reset(1), False
    while not done:
        obs, r, done, info = env.step(0 if obs["queue"][0]["fits"] else None)
    c = dlsim.run(t, cluster=TINY, policy="fifo")
    assert jobs_csv(env.result) == jobs_csv(c)


# -------------------------------------------------------- installed

def test_import_from_installed_tree(tmp_path):
    """meson install --destdir: the package imports from the tree (not
    the source tree) and finds the tree's own libdlsim.so; the installed
    dlsim runs a Python policy."""
    dest = tmp_path / "dest"
    # --no-rebuild: installs what the suite is testing; a rebuild would
    # relink the binaries the other tests run at the same time
    subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild",
                    "--destdir", str(dest), "--quiet"], check=True,
                   capture_output=True)
    pkgs = [os.path.join(d, "dlsim") for d, dirs, files in os.walk(dest)
            if "dlsim" in dirs and os.path.exists(os.path.join(d, "dlsim", "_paths.py"))]
    assert len(pkgs) == 1
    env = {k: v for k, v in os.environ.items()
           if k not in ("DLSIM_LIB", "PYTHONPATH")}
    env["PYTHONPATH"] = os.path.dirname(pkgs[0])
    t = gen(tmp_path, 13, jobs=30)
    code = ("import dlsim, dlsim._capi as c, sys; "
            f"r = dlsim.run({t!r}, cluster={HETERO!r}, policy='sjf'); "
            "print(dlsim.__file__); print(c.path); print(r.summary['jobs'])")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, env=env, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    f, libpath, n = p.stdout.split()
    assert f.startswith(str(dest)) and libpath.startswith(str(dest)) and n == "30"
    exe = [os.path.join(d, "dlsim") for d, _, files in os.walk(dest)
           if "dlsim" in files and d.endswith("/bin")][0]
    ref = os.path.join(os.path.dirname(__file__), "policies_ref.py")
    env.pop("PYTHONPATH")
    p = subprocess.run([exe, "run", "--trace", t, "--cluster", HETERO, "--policy",
                        f"py:{ref}:Sjf", "--out", str(tmp_path / "o"), "--quiet"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    shutil.rmtree(dest)


def test_sweep_from_a_dict(tmp_path):
    t = gen(tmp_path, 14, jobs=40)
    s = dlsim.sweep({"policies": ["fifo", "sjf"], "traces": [t],
                     "clusters": [HETERO], "seeds": 1}, jobs=2,
                    out=str(tmp_path / "sw"))
    rows = s.summary
    rows = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
    assert [r["policy"] for r in rows] == ["fifo", "sjf"]
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert len(s.runs) == 2
    one = dlsim.run(t, cluster=HETERO, policy="sjf")
    assert s.runs[rows[1]["run_id"]].summary["avg_jct"] == one.summary["avg_jct"]
    assert isinstance(dlsim.load(str(tmp_path / "sw")), dlsim.SweepResult)
    with pytest.raises(dlsim.InputError):
        dlsim.sweep({"policies": ["nope"], "traces": [t]}, out=str(tmp_path / "x"))
