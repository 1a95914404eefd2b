"""A random agent over dlsim.Env, the step interface for learning-based
schedulers: at each decision point it starts a random queued job that
fits, or waits.

    /usr/bin/python3 examples/python/random_agent.py TRACE [CLUSTER]
"""
import random
import sys

import dlsim

env = dlsim.Env(sys.argv[1], cluster=sys.argv[2] if len(sys.argv) > 2 else None,
                reward="wait")
rng = random.Random(1)
for episode in range(3):
    obs, done, total, steps = env.reset(seed=1), False, 0.0, 0
    while not done:
        fits = [i for i, q in enumerate(obs["queue"]) if q["fits"]]
        obs, reward, done, info = env.step(rng.choice(fits + [None]))
        total += reward
        steps += 1
    s = env.result.summary
    print(f"episode {episode}: {steps} decisions, return {total / 3600:.1f} "
          f"job-hours waited, avg JCT {s['avg_jct'] / 3600:.2f} h, "
          f"{s['jobs_finished']}/{s['jobs']} jobs done")
