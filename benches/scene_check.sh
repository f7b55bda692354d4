#!/usr/bin/env bash
# `ferrodyn check` of revolute chains of 10⁴, 10⁵ and 10⁶ rods (scenes/gen_chain20.py): wall
# time, CPU time (user + sys, every thread), peak memory and the load average at the start,
# one line per size. docs/performance.md ("Scene build") has the figures.
#
# Run from the repository root: benches/scene_check.sh [SIZES...] (default 10000 100000 1000000).
# The files go to a temporary folder (a 10⁶-rod chain is 360 MB), removed at the end.
set -euo pipefail
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
cargo build --release -q -p ferrodyn-host --bin ferrodyn
bin=target/release/ferrodyn
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%9s %10s %10s %10s %11s %s\n' bodies "wall (s)" "user (s)" "sys (s)" "peak (MB)" "load average"
for n in "${sizes[@]}"; do
    python3 scenes/gen_chain20.py "$n" 0.001 > "$dir/chain.toml"
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$bin" check --max-scene-size 1G "$dir/chain.toml" > "$dir/out"
    read -r wall user sys kb < "$dir/time"
    printf '%9s %10s %10s %10s %11.0f %s\n' "$n" "$wall" "$user" "$sys" "$((kb / 1000))" "$load"
done
