"""The second importer: rust-fmi's `fmi-sim` (crates.io) simulates every FMU tests/fmu/check.py
exported (target/fmu/NAME_fmiV.fmu) at its default experiment (the scene's end time, one
communication point per scene step) and its outputs must equal `ferrodyn run`'s sensors.csv
(target/fmu/run_NAME/sensors.csv, written by check.py) to the bit. Standard library only.

usage: python3 fmi_sim.py FMI_SIM FMU_DIR
"""

import csv
import glob
import os
import re
import subprocess
import sys
import zipfile


def bits(x):
    return float(x).hex()


def without_units(fmu, copy):
    """A copy of the FMI 3.0 `fmu` whose Float64 variables have no `unit` attribute: fmi-sim
    0.7.0's FMI 3.0 reader refuses it ('unknown field "unit" in element "FmiFloat64"'),
    although FMI 3.0 gives Float64 a unit. Nothing else changes."""
    with zipfile.ZipFile(fmu) as src, zipfile.ZipFile(copy, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "modelDescription.xml":
                data = re.sub(rb'(<Float64 [^>]*?) unit="[^"]*"', rb"\1", data)
            dst.writestr(item, data)
    return copy


def table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return [h.strip().strip('"') for h in rows[0]], rows[1:]


def main(fmi_sim, outdir):
    failures = []
    fmus = sorted(glob.glob(os.path.join(outdir, "*_fmi[23].fmu")))
    if not fmus:
        print(f"no FMUs in {outdir}: run tests/fmu/run.sh first")
        return 1
    for fmu in fmus:
        name, version = re.match(r"(.*)_fmi([23])\.fmu$", os.path.basename(fmu)).groups()
        label = f"{name} FMI {version}.0"
        expected_file = os.path.join(outdir, "run_" + name, "sensors.csv")
        out = os.path.join(outdir, f"{name}_fmi{version}_fmi-sim.csv")
        model = fmu
        if version == "3":
            model = without_units(fmu, os.path.join(outdir, f"{name}_fmi3_no-units.fmu"))
        r = subprocess.run([fmi_sim, "--model", model, "-o", out, "co-simulation"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL {label}: fmi-sim exited with {r.returncode}: {r.stderr.strip()[-400:]}")
            failures.append(label)
            continue
        got_header, got = table(out)
        header, expected = table(expected_file)
        columns = header[1:]
        missing = [c for c in columns if c not in got_header]
        if missing:
            print(f"FAIL {label}: fmi-sim's output lacks {missing} (has {got_header})")
            failures.append(label)
            continue
        at = [got_header.index(c) for c in columns]
        differ = sum(bits(g[i]) != bits(e[k + 1]) for g, e in zip(got, expected) for k, i in enumerate(at))
        times = sum(bits(g[0]) != bits(e[0]) for g, e in zip(got, expected))
        ok = len(got) == len(expected) and differ == 0
        print(f"{'PASS' if ok else 'FAIL'} {label}: fmi-sim {len(got)} communication points × {len(columns)} outputs "
              f"vs ferrodyn run sensors.csv ({len(expected)} rows): {differ} values differ in any bit; "
              f"master time ≠ ferrodyn's at {times} points", flush=True)
        if not ok:
            failures.append(label)
    if failures:
        print(f"fmi-sim check FAILED: {failures}")
        return 1
    print(f"fmi-sim check passed: {len(fmus)} FMUs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
