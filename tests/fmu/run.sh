#!/usr/bin/env bash
# Checks the FMUs of `ferrodyn export fmu` with FMPy (docs/fmu.md): builds the workspace in
# release (ferrodyn and libferrodyn_fmu.so), makes target/fmu-venv with FMPy from PyPI if it is
# not there, and runs tests/fmu/check.py. One command on a fresh machine: bash tests/fmu/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -p ferrodyn-host -p ferrodyn-fmu
venv=target/fmu-venv
if ! "$venv/bin/python" -c "import fmpy" 2>/dev/null; then
    if ! python3 -m venv "$venv"; then
        # Debian's python3 keeps venv in its own package.
        sudo=$([ "$(id -u)" = 0 ] || echo sudo)
        $sudo apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        rm -rf "$venv"
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet "fmpy>=0.3.20"
fi
# The glibc floor docs/fmu.md states: the newest GLIBC_ symbol version the library needs.
floor=$(objdump -T target/release/libferrodyn_fmu.so | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
echo "libferrodyn_fmu.so: $(stat -c %s target/release/libferrodyn_fmu.so) bytes, needs $floor"
[ "$floor" = GLIBC_2.34 ] || { echo "the library needs $floor: update docs/fmu.md (Limits) and this line"; exit 1; }
"$venv/bin/python" tests/fmu/check.py "$PWD/target/release/ferrodyn" "$PWD/target/fmu"
