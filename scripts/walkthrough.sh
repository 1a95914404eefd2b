#!/usr/bin/env bash
# Runs the README's walk-through and checks that every command still prints
# what the README shows (the meson test `walkthrough`):
#   scripts/walkthrough.sh [BUILD_DIR] [--show]
# The walk-through is the text between "<!-- walkthrough -->" and
# "<!-- /walkthrough -->" in README.md; in its ```console blocks a line
# "$ CMD" starts a command, "> MORE" continues it (a loop, a here-document,
# a backslash), and every other line is what the commands print, stdout and
# stderr as a terminal shows them.  The commands run in order, in one shell,
# under script(1) so that they see a terminal (sweep's progress bar, the
# table after stderr's lines), in a temporary directory laid out like the
# project (build/, examples/, and ../shared/data); a redrawn line counts as
# its last drawing.  A command that fails adds "[exit status N]".  --show
# prints the transcript instead of comparing (to update the README).
# Exit status 0 the same, 1 a difference (a diff is printed), 77 skipped
# (no ../shared/data, script(1) or gnuplot).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
show=0
for a in "$@"; do
    case $a in
        --show) show=1 ;;
        *) build=$(cd "$a" && pwd) ;;
    esac
done
data=$(cd "$src/.." && pwd)/shared/data
for need in "$data/traces" ; do
    [ -d "$need" ] || { echo "walkthrough: no $need: skipped"; exit 77; }
done
for tool in script gnuplot; do
    command -v "$tool" >/dev/null || { echo "walkthrough: no $tool: skipped"; exit 77; }
done
[ -x "$build/dlsim" ] || { echo "walkthrough: no $build/dlsim (build first)"; exit 1; }

tmp=$(mktemp -d /tmp/dlsim-walk-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/proj"
ln -s "$build" "$tmp/proj/build"
ln -s "$src/examples" "$tmp/proj/examples"
ln -s "$src/models" "$tmp/proj/models"
ln -s "$(cd "$src/.." && pwd)/shared" "$tmp/shared"

# the console blocks of the walk-through, as they are
awk '/^<!-- walkthrough -->/ { on = 1; next }
     /^<!-- \/walkthrough -->/ { on = 0 }
     on && /^```console/ { blk = 1; next }
     on && blk && /^```/ { blk = 0; next }
     on && blk { print }' "$src/README.md" > "$tmp/expected"
[ -s "$tmp/expected" ] || { echo "walkthrough: no walk-through in README.md"; exit 1; }

# one shell script: each command echoes its own lines, then runs
awk -v q="'" '
    function flush() {
        if (!n) return
        k++
        print "cat <<" q "__WALK_" k "__" q
        for (i = 1; i <= n; i++) print shown[i]
        print "__WALK_" k "__"
        for (i = 1; i <= n; i++) print cmd[i]
        print "st=$?; [ $st -eq 0 ] || echo \"[exit status $st]\""
        n = 0
    }
    /^\$ / { flush(); n = 1; shown[1] = $0; cmd[1] = substr($0, 3); next }
    /^> / && n { n++; shown[n] = $0; cmd[n] = substr($0, 3); next }
    { flush() }
    END { flush() }' "$tmp/expected" > "$tmp/walk.sh"

# script(1) gives the commands a terminal; then each line as it was left:
# CR LF -> LF, the text after the last CR, no erase-to-end-of-line
(cd "$tmp/proj" && LC_ALL=C TERM=dumb script -qec "bash $tmp/walk.sh" /dev/null \
    < /dev/null > "$tmp/raw") || true
sed -e 's/\r$//' -e 's/.*\r//' -e 's/\x1b\[K//g' "$tmp/raw" > "$tmp/actual"

if [ "$show" = 1 ]; then
    cat "$tmp/actual"
    exit 0
fi
if diff -u "$tmp/expected" "$tmp/actual"; then
    echo "walkthrough: $(grep -c '^\$ ' "$tmp/expected") commands print what README.md shows"
else
    echo "walkthrough: README.md's walk-through differs from what the commands print (above: - README, + now)"
    exit 1
fi
