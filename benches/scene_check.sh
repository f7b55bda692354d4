#!/usr/bin/env bash
# `ferrodyn check` of revolute chains of 10⁴, 10⁵ and 10⁶ rods (scenes/gen_chain20.py): wall
# time, CPU time (user + sys, every thread), peak memory and the load average at the start,
# one line per size. docs/performance.md ("Scene build") has the figures.
#
# Run from the repository root: benches/scene_check.sh [SIZES...] (default 10000 100000 1000000).
#
# benches/scene_check.sh --instructions [SIZES...] (default 2000 20000) counts instead the
# instructions of each check under valgrind's callgrind (the same count on every machine, however
# loaded) and fails when a size costs more than 1.2 times its share of the previous one's: a
# linear build of 10 times the bodies takes 10 times the instructions (measured 9.99), work
# quadratic in the items 10 times more (a5a742b's scan over all links per joint put back: see
# docs/performance.md). `.ci/scene_linear` runs it.
#
# The files go to a temporary folder (a 10⁶-rod chain is 360 MB), removed at the end.
set -euo pipefail
count=false
if [ "${1:-}" = --instructions ]; then
    count=true
    shift
fi
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then
    if $count; then sizes=(2000 20000); else sizes=(10000 100000 1000000); fi
fi
cargo build --release -q -p ferrodyn-host --bin ferrodyn
bin=target/release/ferrodyn
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if $count; then
    # Largest growth of the instructions over that of the bodies between two sizes.
    slack=1.2
    printf '%9s %15s %15s\n' bodies instructions "a body"
    previous=()
    for n in "${sizes[@]}"; do
        python3 scenes/gen_chain20.py "$n" 0.001 > "$dir/chain.toml"
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" check --max-scene-size 1G \
            "$dir/chain.toml" > "$dir/out" 2> "$dir/callgrind"
        instructions=$(sed -n 's/.*Collected : \([0-9]*\)$/\1/p' "$dir/callgrind")
        [ -n "$instructions" ] || { cat "$dir/callgrind" >&2; exit 1; }
        printf '%9s %15s %15s\n' "$n" "$instructions" "$((instructions / n))"
        if [ ${#previous[@]} -gt 0 ]; then
            python3 - "${previous[@]}" "$n" "$instructions" "$slack" <<'PY'
import sys
n0, i0, n1, i1, slack = (float(a) for a in sys.argv[1:])
growth, bodies = i1 / i0, n1 / n0
print(f"{n0:.0f} → {n1:.0f} bodies (×{bodies:g}): instructions ×{growth:.2f} (at most ×{slack * bodies:g})")
sys.exit(0 if growth <= slack * bodies else f"the check's instructions grow faster than its bodies: ×{growth:.2f} for ×{bodies:g} (quadratic work in the scene build?)")
PY
        fi
        previous=("$n" "$instructions")
    done
    exit 0
fi
printf '%9s %10s %10s %10s %11s %s\n' bodies "wall (s)" "user (s)" "sys (s)" "peak (MB)" "load average"
for n in "${sizes[@]}"; do
    python3 scenes/gen_chain20.py "$n" 0.001 > "$dir/chain.toml"
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$bin" check --max-scene-size 1G "$dir/chain.toml" > "$dir/out"
    read -r wall user sys kb < "$dir/time"
    printf '%9s %10s %10s %10s %11.0f %s\n' "$n" "$wall" "$user" "$sys" "$((kb / 1000))" "$load"
done
