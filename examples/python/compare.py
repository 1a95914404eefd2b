"""Compare five policies on one workload and plot their JCT CDFs.

    /usr/bin/python3 examples/python/compare.py [TRACE] [CLUSTER]

Without arguments it generates a Philly-like workload (dlsim trace gen)
on examples/clusters/philly-like.yaml and runs it at offered load 1.2.  Prints one line per policy; with
matplotlib (Debian python3-matplotlib) it writes jct-cdf.png.
"""
import os
import subprocess
import sys
import tempfile

import dlsim

here = os.path.dirname(os.path.abspath(__file__))
cluster = sys.argv[2] if len(sys.argv) > 2 else \
    os.path.join(here, "..", "clusters", "philly-like.yaml")
load = None                 # a given trace keeps its own arrivals
if len(sys.argv) > 1:
    trace = sys.argv[1]
else:                       # a generated workload, through the CLI
    trace = os.path.join(tempfile.mkdtemp(), "trace.csv")
    exe = os.environ.get("DLSIM", "dlsim")
    subprocess.run([exe, "trace", "gen", "--cluster", cluster, "--jobs", "3000",
                    "--load", "0.9", "--seed", "1", "-o", trace], check=True,
                   capture_output=True)
    load = 1.2              # rescaled so that the policies differ

policies = ["fifo", "fifo:backfill=1", "sjf", "srtf", "tiresias"]
jcts = {}
for p in policies:
    r = dlsim.run(trace, cluster=cluster, policy=p, load=load)
    s = r.summary
    # utilization over the whole run is bounded by its makespan, which one
    # long job can set; over the arrival window it shows the policies' work
    print(f"{p:18s} avg JCT {s['avg_jct'] / 3600:7.2f} h   p99 "
          f"{s['p99_jct'] / 3600:7.2f} h   util {s['gpu_util_alloc']:.3f} "
          f"(arrival window {s['gpu_util_alloc_window']:.3f}, makespan "
          f"{s['makespan'] / 3600:.1f} h, floor {s['makespan_floor'] / 3600:.1f} h)")
    rows = r.jobs
    rows = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
    jcts[p] = sorted(x["jct"] / 3600 for x in rows if x["jct"] is not None)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("matplotlib is not installed (apt install python3-matplotlib): "
             "no plot")
for p, xs in jcts.items():
    plt.step(xs, [(i + 1) / len(xs) for i in range(len(xs))], where="post",
             label=p)
plt.xscale("log")
plt.xlabel("job completion time (h)")
plt.ylabel("fraction of jobs")
plt.legend()
plt.savefig("jct-cdf.png", dpi=120)
print("wrote jct-cdf.png")
