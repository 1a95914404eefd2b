#!/usr/bin/python3
"""Checks a paper's claims against a dlsim sweep: scripts/claims.py DIR CLAIMS.json

Reads DIR/summary.csv (a `dlsim sweep` directory) and a list of claims, and
writes DIR/claims.md, which `dlsim report DIR` puts first on its page.

Each claim (JSON) compares one policy with a baseline on one metric:

  {"claim": "Horus raises effective GPU utilization over slot FIFO",
   "paper": "up to +61.5 %",
   "metric": "gpu_util_effective", "better": "higher",
   "policy": "horus", "baseline": "fifo",
   "where": {"models": "zoo+authors"},          # coordinates both sides share
   "why": [{"label": "with useless predictions", "policy": "horus",
            "where": {"scenario": "noise"}}]}    # more comparisons, same table

A "why" entry overrides any key of its claim (policy, baseline, metric, diff,
where); its "where" replaces the claim's for both sides, and its
"baseline_where" is added on the baseline's side.  "diff": "absolute" makes
the difference policy - baseline in the metric's own unit (a rate's
difference in points: 0.62 -> 0.71 is +0.090) instead of relative.

Runs are paired: same trace, cluster, load and seed (the same workload),
differing in policy (and in whatever `where` of each side says; a side may
carry its own "where").  For each load the table gives the mean relative
paired difference (policy - baseline) / baseline with its 95 % confidence
interval (Student's t over the seeds), the two sides' means, and the verdict: "holds" when the
interval lies entirely on the better side, "does not hold" when it lies
entirely on the worse side, "not significant" otherwise.  The "why" column
shows the other comparisons (each its own paired difference and verdict:
better, worse or n.s.) and, for
makespan, whether the makespans are decided by their floor (all within 2 %
of makespan_floor: one job's length, not the policies).

A claim the sweep has no pairs for shows one row "not tested"; a "why"
comparison without pairs says "no pairs".  With --strict either one is an
error (exit status 1, each named on stderr): a typo in a policy or a
coordinate then fails instead of leaving a row out.

Only the standard library; numbers as dlsim wrote them.
"""
import csv
import json
import math
import os
import sys

# two-sided 95 % Student t quantiles, df 1..30 (then the normal's)
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return T975[df - 1] if df <= 30 else 1.96


def matches(row, where):
    return all(row.get(k) == str(v) for k, v in (where or {}).items())


def pair_key(row):
    return (row["trace"], row["cluster"], row["load"], row["seed"])


def side(rows, claim, who):
    """Rows of one side: its policy, the claim's where and its own."""
    pol = claim[who]
    where = dict(claim.get("where", {}))
    where.update(claim.get(who + "_where", {}))
    return {pair_key(r): r for r in rows
            if r["policy"] == pol and matches(r, where)}


def paired(rows, claim, metric):
    """{load: [(x_policy, x_baseline, row_p, row_b), ...]}"""
    a, b = side(rows, claim, "policy"), side(rows, claim, "baseline")
    out = {}
    for k, ra in a.items():
        rb = b.get(k)
        if rb is None or ra.get(metric, "") == "" or rb.get(metric, "") == "":
            continue
        out.setdefault(k[2], []).append((float(ra[metric]), float(rb[metric]),
                                         ra, rb))
    return out


def used(pairs, diff):
    """The pairs a difference is taken over: a relative one needs a
    baseline other than 0."""
    return pairs if diff == "absolute" else [p for p in pairs if p[1] != 0]


def rel_ci(pairs, diff="relative"):
    if diff == "absolute":
        d = [x - y for x, y, _, _ in pairs]
    else:
        d = [(x - y) / y for x, y, _, _ in used(pairs, diff)]
    n = len(d)
    if not n:
        return None
    m = sum(d) / n
    if n < 2:
        return m, None, None, n
    s = math.sqrt(sum((v - m) ** 2 for v in d) / (n - 1))
    h = t975(n - 1) * s / math.sqrt(n)
    return m, m - h, m + h, n


def pct(x):
    return "%+.1f %%" % (100 * x)


def num(x):
    return "%+.3f" % x if abs(x) < 10 else "%+.4g" % x


def fmt(ci, diff="relative"):
    if ci is None:
        return "no pairs"
    m, lo, hi, n = ci
    f = num if diff == "absolute" else pct
    if lo is None:
        return "%s (n=1, no interval)" % f(m)
    return "%s [%s, %s], n=%d" % (f(m), f(lo), f(hi), n)


def means(pairs):
    """The two sides' means over the pairs: '0.712 vs 0.655'."""
    n = len(pairs)
    if not n:
        return "-"
    a = sum(x for x, _, _, _ in pairs) / n
    b = sum(y for _, y, _, _ in pairs) / n
    g = (lambda v: "%.3f" % v) if max(abs(a), abs(b)) < 10 else \
        (lambda v: "%.4g" % v)
    return "%s vs %s" % (g(a), g(b))


def verdict(ci, better):
    if ci is None or ci[1] is None:
        return "not tested"
    m, lo, hi, _ = ci
    good = lo > 0 if better == "higher" else hi < 0
    bad = hi < 0 if better == "higher" else lo > 0
    return "holds" if good else "does not hold" if bad else "not significant"


SHORT = {"holds": "better", "does not hold": "worse",
         "not significant": "n.s.", "not tested": "n=1"}


def floor_note(pairs):
    """Whether every makespan of both sides lies within 2 % of its floor."""
    both = [r for _, _, ra, rb in pairs for r in (ra, rb)]
    try:
        return all(float(r["makespan"]) <= 1.02 * float(r["makespan_floor"])
                   for r in both)
    except (KeyError, ValueError):
        return False


def main():
    args = sys.argv[1:]
    strict = "--strict" in args
    args = [a for a in args if a != "--strict"]
    if len(args) != 2:
        sys.exit("usage: scripts/claims.py [--strict] SWEEP_DIR CLAIMS.json")
    d, spec = args[0], json.load(open(args[1]))
    missing = []
    rows = [r for r in csv.DictReader(open(os.path.join(d, "summary.csv")))
            if r["status"] == "ok"]
    out = ["## %s" % spec.get("title", "Claims"), ""]
    if spec.get("intro"):
        out += [spec["intro"], ""]
    out += ["| claim | paper | load | dlsim: paired difference, 95 % CI | "
            "verdict | why |", "| --- | --- | --- | --- | --- | --- |"]
    for c in spec["claims"]:
        metric, better = c["metric"], c.get("better", "higher")
        main_pairs = paired(rows, c, metric)
        if not main_pairs:
            missing.append(c["claim"])
            out.append("| %s | %s | - | no pairs in this sweep | not tested "
                       "| - |" % (c["claim"], c.get("paper", "")))
        for load in sorted(main_pairs, key=lambda x: float(x)
                           if x.replace(".", "", 1).isdigit() else 0):
            pairs = main_pairs[load]
            diff = c.get("diff", "relative")
            ci = rel_ci(pairs, diff)
            why = []
            for w in c.get("why", []):
                sub = dict(c)
                sub.update({k: v for k, v in w.items() if k != "label"})
                if "where" in w:
                    sub["policy_where"] = w["where"]
                    sub["baseline_where"] = w.get("baseline_where", {})
                wd = sub.get("diff", "relative")
                p = paired(rows, sub, sub["metric"]).get(load, [])
                wci = rel_ci(p, wd)
                if wci is None:
                    missing.append("%s, load %s: %s" % (c["claim"], load,
                                                        w["label"]))
                tag = "" if wci is None else \
                    " (%s)" % SHORT[verdict(wci, sub.get("better", "higher"))]
                why.append("%s: %s%s" % (w["label"], fmt(wci, wd), tag))
            if metric == "makespan" and floor_note(pairs):
                why.append("makespans within 2 % of the floor: decided by "
                           "the longest job, not the policies")
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                c["claim"], c.get("paper", ""), load,
                "%s; %s" % (fmt(ci, diff), means(used(pairs, diff))),
                verdict(ci, better), "; ".join(why) or "-"))
    out.append("")
    if spec.get("notes"):
        out += [spec["notes"], ""]
    path = os.path.join(d, "claims.md")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(out))
    os.replace(path + ".tmp", path)
    print("\n".join(out))
    if strict and missing:
        for m in missing:
            print("claims.py: no pairs in %s for %s" % (d, m), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
