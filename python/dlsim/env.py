"""dlsim.Env: a step interface for learning-based schedulers, shaped like
the Gymnasium API (reset, step) without depending on it.

A decision point is an instant at which jobs are queued and at least one
of them fits the free GPUs.  The observation (a dict) lists the queued
jobs in arrival order; an action is the position of one of them in that
list, to start it now (where the engine's placement puts it), or None
(or -1) to start nothing until the next event.  After a start the same
instant can be a decision point again.  The episode ends when the run
does, every job done: when the agent declines while nothing is running
(the cluster would idle forever), the first queued job that fits starts
instead and info["forced"] says so.

The reward after each step: by default minus the number of jobs queued
at the next decision point ("queued"); "wait" is minus the jobs queued at
the last decision point times the time to this one (a step-wise estimate
of the job-seconds waited); or a callable reward(prev_obs, obs) -> float.
The last step (done) has reward 0.

The engine runs in a worker thread that hands each decision point over
and blocks until the action comes back, so the run is the same for the
same seed and actions.
"""
import queue
import threading


class _Stop(BaseException):
    """Ends a run that reset() or close() abandons."""


class Env:
    def __init__(self, trace, cluster=None, models=(), load=None,
                 reward="queued", placement="consolidated", max_queue=None,
                 check=False):
        if not (callable(reward) or reward in ("queued", "wait")):
            raise ValueError("reward: 'queued', 'wait' or a callable")
        self.trace, self.cluster, self.models = trace, cluster, models
        self.load, self.reward, self.placement = load, reward, placement
        self.max_queue, self.check = max_queue, check
        self._thread = None
        self.result = None

    # -- the agent's side
    def reset(self, seed=1):
        """Starts an episode; its first observation."""
        self.close()
        self._act, self._obs = queue.Queue(), queue.Queue()
        self._last = None
        self.result = None
        self._thread = threading.Thread(target=self._worker, args=(seed,),
                                        daemon=True)
        self._thread.start()
        obs, _, done, info = self._receive(first=True)
        return obs

    def step(self, action):
        """(observation, reward, done, info)."""
        if self._thread is None:
            raise RuntimeError("Env.step before reset, or after the episode ended")
        self._act.put(action)
        return self._receive()

    def close(self):
        if self._thread is not None and self._thread.is_alive():
            self._act.put(_Stop)
            self._thread.join()
        self._thread = None

    def _receive(self, first=False):
        kind, payload, info = self._obs.get()
        if kind == "error":
            self._thread.join()
            self._thread = None
            raise payload
        if kind == "done":
            self._thread.join()
            self._thread = None
            self.result = payload
            obs = {"now": payload.summary["makespan"], "queue": [],
                   "free_gpus": None, "running": 0}
            info = dict(info, result=payload)
            done = True
        else:
            obs, done = payload, False
        prev, self._last = self._last, obs
        if first:
            return obs, 0.0, done, info
        if callable(self.reward):
            r = float(self.reward(prev, obs))
        elif self.reward == "queued":
            r = -float(len(obs["queue"]) if not done else 0)
        else:
            r = -float(prev["nqueued"] * (obs["now"] - prev["now"])) if not done \
                else 0.0
        return obs, r, done, info

    # -- the engine's side (the worker thread)
    def _worker(self, seed):
        from . import run
        pol = _EnvPolicy(self)
        try:
            r = run(self.trace, cluster=self.cluster, policy=pol,
                    models=self.models, load=self.load, seed=seed,
                    check=self.check)
            self._obs.put(("done", r, {}))
        except _Stop:
            pass
        except BaseException as e:  # noqa: B902 -- handed to the agent
            self._obs.put(("error", e, {}))


from .policy import Policy        # noqa: E402


class _EnvPolicy(Policy):
    def __init__(self, env):
        self.env = env
        self.placement = env.placement
        self.q = []                 # queued jobs in arrival order
        self._forced = False

    def enqueue(self, view, job):
        self.q.append(job)

    def _obs(self, view, fits):
        q = self.q if self.env.max_queue is None else self.q[:self.env.max_queue]
        now = view.now
        return {"now": now, "nqueued": len(self.q),
                "queue": [{"index": j.index, "id": j.id, "num_gpus": j.num_gpus,
                           "wait": now - j.submit, "duration": j.duration,
                           "deadline": j.deadline, "fits": f}
                          for j, f in zip(q, fits)],
                "free_gpus": view.free_gpus(), "running": view.nrunning}

    def schedule(self, view):
        env = self.env
        while self.q:
            fits = [view.place(j, self.placement) for j in self.q]
            if not any(fits):
                return
            shown = fits if env.max_queue is None else fits[:env.max_queue]
            env._obs.put(("obs", self._obs(view, [p is not None for p in shown]),
                          {"forced": self._forced}))
            self._forced = False
            a = env._act.get()
            if a is _Stop:
                raise _Stop()
            if a is None or a == -1:
                if view.nrunning:
                    return
                a = next(i for i, p in enumerate(fits) if p is not None)
                self._forced = True
            if not (isinstance(a, int) and 0 <= a < len(shown)):
                raise IndexError(f"Env.step: action {a!r} is not a queue "
                                 f"position (0..{len(shown) - 1}) or None")
            p = fits[a]
            if p is None:
                # the job does not fit: nothing starts (info says so)
                self._forced = False
                continue
            view.start(self.q[a], p)
            del self.q[a]
