#!/usr/bin/env bash
# The second independent importer of the FMUs (docs/fmu.md): rust-fmi's `fmi-sim` 0.7.0 from
# crates.io, installed once into target/fmi-sim (its build directory removed after), runs every
# FMU tests/fmu/run.sh exported and tests/fmu/fmi_sim.py compares its outputs with
# `ferrodyn run` bit for bit. Run after tests/fmu/run.sh: bash tests/fmu/fmi_sim.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=target/fmi-sim
if [ ! -x "$root/bin/fmi-sim" ]; then
    start=$(date +%s)
    # fmi-sys generates its FMI bindings with bindgen, which loads libclang and needs clang's
    # own headers (stddef.h).
    if ! ls /usr/lib/llvm-*/lib/clang/*/include/stddef.h >/dev/null 2>&1; then
        sudo=$([ "$(id -u)" = 0 ] || echo sudo)
        $sudo apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libclang1 libclang-common-14-dev >/dev/null
    fi
    cargo install fmi-sim --version 0.7.0 --locked --root "$root" --target-dir target/fmi-sim-build
    rm -rf target/fmi-sim-build
    echo "fmi-sim installed in $(($(date +%s) - start)) s"
fi
echo "fmi-sim 0.7.0 (crates.io)"
python3 tests/fmu/fmi_sim.py "$PWD/$root/bin/fmi-sim" "$PWD/target/fmu"
