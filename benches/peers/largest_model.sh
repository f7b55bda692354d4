#!/usr/bin/env bash
# The largest model of the import corpus (by joint count among the models that import: the CMU
# humanoid of dm_control, humanoid_CMU_V2020.xml, 56 hinges on a fixed root) against MuJoCo on
# the same file, in one run: its import time (`ferrodyn import`'s work; and import + compile,
# beside MuJoCo's `MjModel.from_xml_path`, which parses and compiles) and its step time (RK4
# 1 ms, 1 s in zero gravity, contacts, limits, dampers, springs and actuation off on both sides),
# CPU times, best of REPEATS runs in each of ROUNDS rounds that alternate the engines, the
# order reversed every other round. One JSON line per engine and round, then the summary
# (docs/performance.md has the table). The model set comes from dm_control 1.0.52 with
# MuJoCo 4.0.1, the pins of .ci/import, in their own venv (target/import-venv; VENV= to reuse
# one). Not in CI.
#
#   bash benches/peers/largest_model.sh [repeats] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=${VENV:-target/import-venv}
REPEATS=${1:-5}
ROUNDS=${2:-3}
OUT=target/largest-model
mkdir -p "$OUT"
rm -f "$OUT"/*.json
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c "import dm_control, mujoco" 2>/dev/null ||
    "$VENV/bin/python" -m pip install -q dm_control==1.0.52 mujoco==4.0.1
site=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
MODEL=${MODEL:-$site/dm_control/locomotion/walkers/assets/humanoid_CMU_V2020.xml}
cargo build -q --release --features examples --example largest_model_peers
# A private copy: a rebuild during the rounds must not change the binary being timed.
cp target/release/examples/largest_model_peers "$OUT/largest_model_peers"
order="ours mujoco"
for r in $(seq 1 "$ROUNDS"); do
    for e in $order; do
        if [ "$e" = ours ]; then
            "$OUT/largest_model_peers" "$MODEL" "$REPEATS" > "$OUT/ours.$r.json"
        else
            "$VENV/bin/python" benches/peers/largest_model_mujoco.py "$OUT/ours.1.json" "$REPEATS" > "$OUT/mujoco.$r.json"
        fi
        # The end positions are long lists: the times only.
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({k: v for k, v in d.items() if k not in ('q0', 'v0', 'q', 'joints')}))" "$OUT/$e.$r.json"
    done
    order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' ')
done
"$VENV/bin/python" benches/peers/largest_model_mujoco.py --summary "$OUT"
