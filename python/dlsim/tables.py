"""Reading what dlsim writes: a run directory (summary.json, jobs.csv,
timeseries.csv) or a sweep directory (summary.csv, runs/<id>/).

Tables come back as pandas DataFrames when pandas is installed, else as
lists of dicts whose numeric fields are ints or floats and whose empty
fields are None.  Files are read when first asked for.
"""
import csv
import json
import os

try:
    import pandas as _pd
except ImportError:         # optional
    _pd = None


def _num(s):
    if s == "":
        return None
    try:
        return int(s)
    except ValueError:
        try:
            return float(s)
        except ValueError:
            return s


def read_table(path, keep_text=("job_id", "user", "vc", "model", "run_id")):
    """A CSV file as a DataFrame (with pandas) or a list of dicts."""
    if _pd is not None:
        return _pd.read_csv(path, dtype={k: str for k in keep_text},
                            keep_default_na=False, na_values=[""])
    with open(path, newline="") as f:
        return [{k: ((v if v != "" else None) if k in keep_text else _num(v))
                 for k, v in row.items()} for row in csv.DictReader(f)]


class Result:
    """One run: .summary (summary.json as a dict), .jobs, .timeseries, .dir."""

    def __init__(self, dir, keep=None):
        self.dir = dir
        self._keep = keep           # a TemporaryDirectory to hold open
        with open(os.path.join(dir, "summary.json")) as f:
            self.summary = json.load(f)
        self._jobs = self._ts = None

    @property
    def jobs(self):
        if self._jobs is None:
            self._jobs = read_table(os.path.join(self.dir, "jobs.csv"))
        return self._jobs

    @property
    def timeseries(self):
        if self._ts is None:
            self._ts = read_table(os.path.join(self.dir, "timeseries.csv"))
        return self._ts

    def __repr__(self):
        s = self.summary
        return (f"<dlsim.Result {s.get('policy')} on {s.get('trace')}: "
                f"{s.get('jobs_finished')}/{s.get('jobs')} jobs, "
                f"avg_jct {s.get('avg_jct')}>")


class SweepResult:
    """A sweep: .summary (summary.csv), .runs (run id -> Result), .dir."""

    def __init__(self, dir):
        self.dir = dir
        self.summary = read_table(os.path.join(dir, "summary.csv"))
        self._runs = None

    @property
    def runs(self):
        if self._runs is None:
            base = os.path.join(self.dir, "runs")
            self._runs = {d: Result(os.path.join(base, d))
                          for d in sorted(os.listdir(base))
                          if os.path.exists(os.path.join(base, d, "summary.json"))}
        return self._runs


def load(dir):
    """A run directory (dlsim run --out) or a sweep directory."""
    if os.path.exists(os.path.join(dir, "summary.json")):
        return Result(dir)
    if os.path.exists(os.path.join(dir, "summary.csv")):
        return SweepResult(dir)
    raise FileNotFoundError(f"{dir}: neither a run (summary.json) nor a "
                            "sweep (summary.csv) directory")
