#!/usr/bin/env bash
# Ferrodyn vs MuJoCo vs Pinocchio vs Exudyn in one run: installs the peers into target/peers-venv (PyPI),
# writes the shared model definitions, measures accuracy once per engine, then times every
# engine in ROUNDS rounds that alternate between the engines (the order reversed every other
# round), and writes benches/peers/report.md, chart.png and results.json from the medians.
# Both of our formulations are timed: the joint-coordinate tree (kernel::tree) and the
# Cartesian model (kernel::rigid). All times are CPU time of the engine's process.
#
#   bash benches/peers/run.sh                       # everything, 5 rounds
#   ROUNDS=3 PEERS="mujoco pinocchio" bash benches/peers/run.sh   # skip Exudyn (the slowest to run)
# Pinocchio's timed loop is C++ (pinocchio_step.cpp), compiled by run_pinocchio.py with g++
# against the `pin` wheel's headers (a few minutes, once).
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=benches/peers
OUT=target/peers
VENV=target/peers-venv
PEERS=${PEERS:-"mujoco pinocchio exudyn"}
ROUNDS=${ROUNDS:-5}
mkdir -p "$OUT"

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q -r "$HERE/requirements.txt"

cargo build --release --features examples --example peer_models
# A private copy: a rebuild during the rounds must not change the binary being timed.
BIN=$OUT/peer_models
cp target/release/examples/peer_models "$BIN"
"$BIN" models "$OUT/models.json"
rm -f "$OUT"/*.accuracy.json "$OUT"/*.time.*.json

engine() {  # engine NAME MODE OUT
    if [ "$1" = ours ]; then
        "$BIN" "$2" "$OUT/models.json" "$3"
    else
        (cd "$HERE" && "../../$VENV/bin/python" "run_$1.py" "$2" "../../$OUT/models.json" "../../$3")
    fi
}

for e in ours $PEERS; do
    echo "== $e accuracy" >&2
    engine "$e" accuracy "$OUT/$e.accuracy.json"
done
order="ours $PEERS"
for r in $(seq 1 "$ROUNDS"); do
    for e in $order; do
        echo "== round $r/$ROUNDS: $e" >&2
        engine "$e" time "$OUT/$e.time.$r.json"
    done
    order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' ')
done
"$VENV/bin/python" "$HERE/compare.py" "$OUT"
echo "wrote $HERE/report.md, $HERE/chart.png, $HERE/results.json" >&2
