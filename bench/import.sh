#!/usr/bin/env bash
# Import throughput (issue 5): converts the largest real trace here (by
# input bytes: Philly's condensed CSV from the Pollux artifact, 82,247
# jobs, 0.65 MB gzip / 3.4 MB of text) with `dlsim trace import` and
# compares it with merely reading the same bytes: `zcat > /dev/null`
# (decompression alone) and `dlsim trace stats` on the converted trace
# (dlsim's own native reader).  Each command runs REPS times; the best
# wall time and the best CPU time (user + system: the machine may be
# shared) are reported, with MB/s of compressed and of uncompressed input.
# The import writes gzip (level 1) as `trace import -o X.csv.gz` does, and
# also plain text, to separate parsing from compression.
#
#   bench/import.sh [BUILD_DIR] [REPS]        (defaults: build, 20)
#
# Figures depend on the machine; the script prints what it ran on.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
reps=${2:-20}
dlsim=$build/dlsim
in=${DLSIM_DATA:-../shared/data/traces}/philly-pollux/philly.csv.gz
out=$(mktemp -d /tmp/dlsim-bench-import-XXXXXX)
trap 'rm -rf "$out"' EXIT
[ -x "$dlsim" ] || { echo "build first: scripts/build.sh $build" >&2; exit 2; }
[ -f "$in" ] || { echo "no $in" >&2; exit 2; }
"$dlsim" trace import --format philly "$in" -o "$out/p.csv.gz" 2>/dev/null

echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores;" \
     "$(uname -sr)"
/usr/bin/python3 - "$reps" "$in" "$dlsim" "$out" <<'PY'
import gzip, os, resource, subprocess, sys, time
reps, src, dlsim, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
gz_mb = os.path.getsize(src) / 1e6
raw_mb = len(gzip.open(src).read()) / 1e6
print(f"input: {src}: {gz_mb:.2f} MB gzip, {raw_mb:.2f} MB text; best of {reps}")
def best(cmd, shell=False):
    """Best wall time and best CPU time (user + sys of the children)."""
    wall, cpu = [], []
    for _ in range(reps):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, shell=shell, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        wall.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
    return min(wall), min(cpu)
rows = [
    ("zcat > /dev/null", best(f"zcat '{src}' > /dev/null", shell=True)),
    ("trace import -o .csv.gz", best([dlsim, "trace", "import", "--format",
                                      "philly", src, "-o", out + "/a.csv.gz"])),
    ("trace import -o .csv", best([dlsim, "trace", "import", "--format",
                                   "philly", src, "-o", out + "/a.csv"])),
    ("trace stats (imported .csv.gz)", best([dlsim, "trace", "stats",
                                             out + "/p.csv.gz"])),
]
print(f"{'':32s} {'wall':>8s}    {'MB/s gzip':>9s} {'MB/s text':>9s}"
      f"   {'cpu':>8s}    {'MB/s gzip':>9s} {'MB/s text':>9s}")
for name, (w, c) in rows:
    c = max(c, 1e-3)
    print(f"{name:32s} {w * 1000:6.1f} ms {gz_mb / w:9.1f} {raw_mb / w:9.1f}"
          f"   {c * 1000:6.1f} ms {gz_mb / c:9.1f} {raw_mb / c:9.1f}")
PY
