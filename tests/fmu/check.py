"""Checks Ferrodyn's FMUs with an independent importer, FMPy (docs/fmu.md).

For each scene and FMI version: `ferrodyn export fmu`, `fmpy validate`, FMPy's simulation at
an output interval of the scene's step compared with `ferrodyn run`'s sensors.csv to the bit,
an FMU state round trip (get, step, set, step again; and through serialize/deserialize), and
bad inputs (NaN input, negative and zero steps, calls out of order, an unknown state pointer),
each of which must be an error status after which the instance still steps correctly and
terminates cleanly.

Run through tests/fmu/run.sh, which builds the workspace and makes the venv with FMPy.
Usage: check.py FERRODYN OUTDIR
"""

import csv
import math
import os
import re
import subprocess
import sys

import fmpy
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Scenes and the settings both `ferrodyn export fmu` and `ferrodyn run` get: the full-size
# ANCF cantilever (366 nodes, 944 tets, RK4 at 10 µs) is checked over its first 2 ms.
SCENES = [
    ("pendulum", []),
    ("chain5_motor", []),
    ("hil_arm", []),
    ("servo_arm", []),
    ("beam6", []),
    ("cantilever", ["--end", "2e-3"]),
]
VERSIONS = ["3", "2"]

failures = []


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def bits(x):
    return float(x).hex()


def ferrodyn_sensors(ferrodyn, scene, out, settings):
    """`ferrodyn run` with one output row per step: the header and rows of sensors.csv."""
    subprocess.run(
        [ferrodyn, "run", scene, "--out", out, "--force", "--output-interval", step_of(scene)] + settings,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with open(os.path.join(out, "sensors.csv")) as f:
        rows = list(csv.reader(f))
    # float() of the shortest round-trip text Ferrodyn prints is the value's exact bits.
    return rows[0], [[float(v) for v in row] for row in rows[1:]]


def step_of(scene):
    for line in open(scene):
        key, _, value = line.partition("=")
        if key.strip() == "step":
            return value.split("#")[0].strip()
    raise SystemExit(f"no step in {scene}")


class Plant:
    """One FMU instance driven through FMPy's low-level classes, for either version."""

    def __init__(self, fmu, md, unzipdir, name):
        self.v3 = md.fmiVersion.startswith("3")
        cls = FMU3Slave if self.v3 else FMU2Slave
        self.f = cls(
            guid=md.guid,
            unzipDirectory=unzipdir,
            modelIdentifier=md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.f.instantiate()
        self.outputs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
        self.inputs = [v.valueReference for v in md.modelVariables if v.causality == "input"]
        self.t = 0.0

    def initialize(self):
        if self.v3:
            self.f.enterInitializationMode(startTime=0.0)
        else:
            self.f.setupExperiment(startTime=0.0)
            self.f.enterInitializationMode()
        self.f.exitInitializationMode()

    def step(self, h):
        self.f.doStep(currentCommunicationPoint=self.t, communicationStepSize=h)
        self.t += h

    def out(self):
        get = self.f.getFloat64 if self.v3 else self.f.getReal
        return get(self.outputs)

    def set_input(self, vr, value):
        (self.f.setFloat64 if self.v3 else self.f.setReal)([vr], [value])

    def get_state(self):
        return self.f.getFMUState() if self.v3 else self.f.getFMUstate()

    def set_state(self, s):
        (self.f.setFMUState if self.v3 else self.f.setFMUstate)(s)

    def serialize(self, s):
        return (self.f.serializeFMUState if self.v3 else self.f.serializeFMUstate)(s)

    def deserialize(self, b):
        return (self.f.deserializeFMUState if self.v3 else self.f.deSerializeFMUstate)(b)

    def free_state(self, s):
        (self.f.freeFMUState if self.v3 else self.f.freeFMUstate)(s)

    def close(self):
        self.f.terminate()
        self.f.freeInstance()


def refused(call, what):
    """The call must be an error status (FMPy raises on fmiError)."""
    try:
        call()
    except Exception as e:  # FMPy's FMICallException
        check(True, f"{what}: refused ({type(e).__name__}: {e})")
        return
    check(False, f"{what}: accepted, expected an error status")


def run_steps(plant, n, h):
    rows = []
    for _ in range(n):
        plant.step(h)
        rows.append(plant.out())
    return rows


def main(ferrodyn, outdir):
    os.makedirs(outdir, exist_ok=True)
    print(f"FMPy {fmpy.__version__}", flush=True)
    for name, settings in SCENES:
        scene = os.path.join(ROOT, "scenes", name + ".toml")
        if name == "pendulum":
            # The pendulum scene has no sensor, so its FMU would have no output: the copy
            # checked here adds a point sensor on the bob (as host/tests/suite/sweep.rs does).
            os.makedirs(os.path.join(outdir, "scenes"), exist_ok=True)
            copy = os.path.join(outdir, "scenes", name + ".toml")
            with open(copy, "w") as f:
                f.write(open(scene).read() + '\n[[sensor]]\nname = "bob"\nbody = "bob"\n')
            scene = copy
        step = float(step_of(scene))
        header, expected = ferrodyn_sensors(ferrodyn, scene, os.path.join(outdir, "run_" + name), settings)
        for version in VERSIONS:
            fmu = os.path.join(outdir, f"{name}_fmi{version}.fmu")
            label = f"{name} FMI {version}.0"
            subprocess.run([ferrodyn, "export", "fmu", scene, "--fmi", version, "-o", fmu] + settings, check=True)

            # fmpy validate, its own lines.
            v = subprocess.run([sys.executable, "-m", "fmpy.command_line", "validate", fmu],
                               capture_output=True, text=True)
            if v.returncode != 0 and "No module named" in v.stderr:
                v = subprocess.run([os.path.join(os.path.dirname(sys.executable), "fmpy"), "validate", fmu],
                                   capture_output=True, text=True)
            for line in (v.stdout + v.stderr).strip().splitlines():
                print(f"fmpy validate {os.path.basename(fmu)}: {line}", flush=True)
            check(v.returncode == 0 and "No problems found" in v.stdout, f"{label}: fmpy validate")

            # FMPy's simulation at the scene's step against ferrodyn run's sensors.csv.
            md = read_model_description(fmu)
            end = md.defaultExperiment.stopTime
            result = simulate_fmu(fmu, stop_time=float(end), output_interval=step, validate=True)
            columns = header[1:]
            got = [[row["time"]] + [row[c] for c in columns] for row in result]
            rows_equal = len(got) == len(expected)
            mismatches, worst = 0, 0.0
            time_mismatches = 0
            for g, e in zip(got, expected):
                if bits(g[0]) != bits(e[0]):
                    time_mismatches += 1
                for a, b in zip(g[1:], e[1:]):
                    if bits(a) != bits(b):
                        mismatches += 1
                        worst = max(worst, abs(a - b)) if math.isfinite(a - b) else math.inf
            print(
                f"{label}: FMPy simulate_fmu, {len(got)} communication points × {len(columns)} outputs "
                f"vs ferrodyn run sensors.csv ({len(expected)} rows): {mismatches} values differ in any bit "
                f"(max |diff| {worst:g}); master time ≠ FMU time at {time_mismatches} points",
                flush=True,
            )
            check(rows_equal and mismatches == 0, f"{label}: outputs equal ferrodyn run to the bit")
            last = [f"{c}={float(v)!r}" for c, v in zip(columns[:3], got[-1][1:4])]
            print(f"{label}: last point t={float(got[-1][0])!r} {' '.join(last)}", flush=True)

            # An input set through the FMU (FMPy's start values) equals the scene's `value`.
            inputs = [v.name for v in md.modelVariables if v.causality == "input"]
            if inputs:
                zero_dir = os.path.join(outdir, f"{name}_zero_input")
                os.makedirs(zero_dir, exist_ok=True)
                zero_scene = os.path.join(zero_dir, name + ".toml")
                text = open(scene).read()
                with open(zero_scene, "w") as f:
                    f.write(re.sub(r"(?m)^value\s*=.*$", "value = 0.0", text))
                _, zero_expected = ferrodyn_sensors(ferrodyn, zero_scene, os.path.join(zero_dir, "run"), settings)
                zero = simulate_fmu(fmu, stop_time=float(end), output_interval=step,
                                    start_values={n: 0.0 for n in inputs})
                zero_got = [[row["time"]] + [row[c] for c in columns] for row in zero]
                differ = sum(bits(a) != bits(b) for g, e in zip(zero_got, zero_expected) for a, b in zip(g, e))
                print(f"{label}: inputs {inputs} = 0 through the FMU vs ferrodyn run with value = 0: "
                      f"{len(zero_got)} points, {differ} values differ in any bit", flush=True)
                check(len(zero_got) == len(zero_expected) and differ == 0
                      and zero_got[-1][1:] != got[-1][1:],
                      f"{label}: input set through the FMU equals ferrodyn run's, to the bit")

            unzipdir = extract(fmu)
            # FMU state round trip: get, step, set, step again; then through bytes.
            p = Plant(fmu, md, unzipdir, "roundtrip")
            p.initialize()
            run_steps(p, 100, step)
            t0 = p.t
            s = p.get_state()
            first = run_steps(p, 50, 2 * step)
            p.set_state(s)
            p.t = t0
            second = run_steps(p, 50, 2 * step)
            same = [list(map(bits, r)) for r in first] == [list(map(bits, r)) for r in second]
            check(same, f"{label}: state round trip (get at t={t0:g}, 50 steps, set, 50 steps): "
                        f"{len(first)}×{len(first[0])} outputs identical")
            data = p.serialize(s)
            s2 = p.deserialize(bytes(data))
            p.set_state(s2)
            p.t = t0
            third = run_steps(p, 50, 2 * step)
            same = [list(map(bits, r)) for r in first] == [list(map(bits, r)) for r in third]
            check(same, f"{label}: serialized state ({len(data)} bytes) deserialized, set, 50 steps: identical")
            # A second instance, fresh (not initialized), restores the first's serialized state
            # and steps at once: the state carries the step mode (FMI 3.0 2.2.6.4).
            q = Plant(fmu, md, unzipdir, "restored")
            q.set_state(q.deserialize(bytes(data)))
            q.t = t0
            fourth = run_steps(q, 50, 2 * step)
            same = [list(map(bits, r)) for r in first] == [list(map(bits, r)) for r in fourth]
            check(same, f"{label}: a fresh instance set to the serialized state steps at once, 50 steps: identical")
            q.close()
            if md.fmiVersion.startswith("3"):
                # hasEventMode = false: instantiating with eventModeUsed = true must fail (4.2.1).
                e = FMU3Slave(guid=md.guid, unzipDirectory=unzipdir,
                              modelIdentifier=md.coSimulation.modelIdentifier, instanceName="events")
                refused(lambda: e.instantiate(eventModeUsed=True), f"{label}: eventModeUsed = true")
            # Every variable has a unit defined in UnitDefinitions.
            defined = {u.name for u in md.unitDefinitions}
            missing = [v.name for v in md.modelVariables if v.unit not in defined]
            check(not missing, f"{label}: units of all {len(md.modelVariables)} variables defined "
                               f"({sorted(defined)}); missing: {missing}")
            p.free_state(s)
            p.free_state(s2)

            # Bad inputs: each an error status; the instance then goes on as if it never came.
            before = p.out()
            if p.inputs:
                refused(lambda: p.set_input(p.inputs[0], float("nan")), f"{label}: NaN input")
                refused(lambda: p.set_input(p.inputs[0], float("inf")), f"{label}: infinite input")
            refused(lambda: p.f.doStep(currentCommunicationPoint=p.t, communicationStepSize=-step),
                    f"{label}: negative communication step")
            refused(lambda: p.f.doStep(currentCommunicationPoint=p.t, communicationStepSize=0.0),
                    f"{label}: zero communication step")
            refused(lambda: p.f.doStep(currentCommunicationPoint=p.t, communicationStepSize=0.4 * step),
                    f"{label}: step not a multiple of the scene's")
            refused(lambda: p.f.doStep(currentCommunicationPoint=p.t + 1.0, communicationStepSize=step),
                    f"{label}: communication point not the FMU's time")
            refused(lambda: p.set_state(s), f"{label}: a freed (nulled) FMU state")
            refused(lambda: p.f.exitInitializationMode(), f"{label}: exitInitializationMode while stepping (out of order)")
            check([bits(x) for x in p.out()] == [bits(x) for x in before], f"{label}: outputs unchanged by the refused calls")
            p.step(step)
            ok = all(math.isfinite(x) for x in p.out())
            check(ok, f"{label}: instance still steps after the refused calls (t={p.t:g})")
            p.close()

            fresh = Plant(fmu, md, unzipdir, "order")
            refused(lambda: fresh.f.doStep(currentCommunicationPoint=0.0, communicationStepSize=step),
                    f"{label}: doStep before initialization (out of order)")
            fresh.initialize()
            fresh.step(step)
            check([bits(x) for x in fresh.out()] == [bits(x) for x in expected[1][1:]],
                  f"{label}: after the out-of-order call, the first step equals ferrodyn run's")
            fresh.f.terminate()
            refused(lambda: fresh.f.doStep(currentCommunicationPoint=fresh.t, communicationStepSize=step),
                    f"{label}: doStep after terminate (out of order)")
            fresh.f.freeInstance()
            check(True, f"{label}: instances terminated and freed")

    if failures:
        print(f"FMU check FAILED: {len(failures)} checks", flush=True)
        for f in failures:
            print("  " + f)
        return 1
    print("FMU check passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
