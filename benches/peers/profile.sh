#!/usr/bin/env bash
# Instruction counts per stage of our RK4 chain step (valgrind callgrind): writes
# benches/peers/profile.md, which compare.py includes in report.md.
#   bash benches/peers/profile.sh          (needs valgrind: apt-get install valgrind)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=target/peers/prof
mkdir -p "$OUT"
cargo build --release --features examples --example peer_models
BIN=target/release/examples/peer_models
runs=""
for spec in "5 800" "20 200" "100 40"; do
    set -- $spec
    valgrind --tool=callgrind --callgrind-out-file="$OUT/cg$1.out" "$BIN" profile "$1" "$2" > "$OUT/cg$1.txt" 2>/dev/null
    callgrind_annotate --inclusive=yes --threshold=100 "$OUT/cg$1.out" > "$OUT/cg$1.inclusive" 2>/dev/null
    runs="$runs $1:$2:$OUT/cg$1.inclusive"
done
python3 benches/peers/profile.py $runs > benches/peers/profile.md
echo "wrote benches/peers/profile.md" >&2
