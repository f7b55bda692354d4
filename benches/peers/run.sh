#!/usr/bin/env bash
# Ferrodyn vs MuJoCo vs Exudyn in one run: installs the peers into target/peers-venv (PyPI),
# writes the shared model definitions, times ours and the peers on the same models in the same
# run, and writes benches/peers/report.md, chart.png and results.json.
#
#   bash benches/peers/run.sh            # everything
#   PEERS="mujoco" bash benches/peers/run.sh   # skip Exudyn (the slowest to run)
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=benches/peers
OUT=target/peers
VENV=target/peers-venv
PEERS=${PEERS:-"mujoco exudyn"}
mkdir -p "$OUT"

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q -r "$HERE/requirements.txt"

cargo build --release --example peer_models
BIN=target/release/examples/peer_models
"$BIN" models "$OUT/models.json"
rm -f "$OUT/ours.json" "$OUT/mujoco.json" "$OUT/exudyn.json"

echo "== ours" >&2
"$BIN" run "$OUT/models.json" "$OUT/ours.json"
for peer in $PEERS; do
    echo "== $peer" >&2
    (cd "$HERE" && "../../$VENV/bin/python" "run_$peer.py" "../../$OUT/models.json" "../../$OUT/$peer.json")
done
"$VENV/bin/python" "$HERE/compare.py" "$OUT"
echo "wrote $HERE/report.md, $HERE/chart.png, $HERE/results.json" >&2
