#!/usr/bin/env bash
# The four-bar of scenes/four_bar.toml in joint coordinates (the tree closing its loop with
# constraint rows), in Cartesian coordinates, and in MuJoCo (an equality `connect`, default
# and tightened solref), RK4 at 1 ms, in one run: CPU time per step and each engine's closure
# error after 2 s, one JSON line each (docs/performance.md has the table). Reuses run.sh's venv
# (target/peers-venv, MuJoCo from requirements.txt). Not in CI.
#
#   bash benches/peers/four_bar.sh [repeats]
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=target/peers-venv
REPEATS=${1:-5}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c "import mujoco" 2>/dev/null ||
    "$VENV/bin/python" -m pip install -q "$(grep '^mujoco==' benches/peers/requirements.txt)" numpy
cargo build --release --features examples --example four_bar_peers
target/release/examples/four_bar_peers scenes/four_bar.toml "$REPEATS"
"$VENV/bin/python" benches/peers/four_bar_mujoco.py "$REPEATS"
