"""The benchmark models in Pinocchio (pip `pin`): joint coordinates, its articulated-body
algorithm `aba` under the same RK4 and semi-implicit Euler as the other engines (Pinocchio has
no integrator of its own; RK4 stages move q on the configuration manifold with
`pinocchio.integrate`). `time`: the step loop runs in C++ (pinocchio_step.cpp, compiled here
against the wheel's headers and library), so no Python call is timed; the same loop in Python is
timed too (`python_time_per_step_s`, to show the per-call overhead). `accuracy`: energy drift
and period, in Python. Writes the results as JSON.

usage: run_pinocchio.py time|accuracy MODELS.json OUT.json
"""

import os
import subprocess
import sys

import numpy as np
import pinocchio as pin

from common import best_time, energy_scale, load_models, period_measures

HERE = os.path.dirname(os.path.abspath(__file__))
# The cmeel prefix the wheel installs into (…/site-packages/cmeel.prefix/lib/python…/pinocchio).
PREFIX = pin.__file__[:pin.__file__.index("cmeel.prefix") + len("cmeel.prefix")]
INTEGRATORS = ("rk4", "semi_implicit_euler")


def joints(entry):
    """(kind, parent, origin, axis, mass, cg, inertia diagonal) of every joint, Pinocchio's
    joint order (parents first), and the initial configuration."""
    if entry["kind"] == "pendulum":
        # Hinge about -y at the origin, the bob a point mass at (0, 0, -L) (as in the MJCF).
        rows = [("revolute", 0, [0, 0, 0], [0, -1, 0], entry["mass"], [0, 0, -entry["length"]],
                 [1e-12] * 3)]
        return rows, [entry["initial_angle"]]
    if entry["kind"] == "revolute_chain":
        rows = []
        for k in range(entry["links"]):
            length = entry["link_length"][k]
            origin = [0.0 if k == 0 else entry["link_length"][k - 1], 0, 0]
            rows.append(("revolute", k, origin, entry["hinge_axis"], entry["link_mass"][k],
                         [length / 2, 0, 0], entry["link_inertia"][k]))
        return rows, list(entry["initial_angles"])
    # floating_tree: joint 1 the base (free flyer), hinge k is joint k + 2.
    base = entry["base"]
    rows = [("free", 0, [0, 0, 0], [0, 0, 1], base["mass"], [0, 0, 0], base["inertia"])]
    for h in entry["hinges"]:
        rows.append(("revolute", h["parent"] + 2, h["origin"], h["axis"], h["mass"], h["cg"], h["inertia"]))
    return rows, [0, 0, 0, 0, 0, 0, 1] + [0.0] * len(entry["hinges"])


def build(entry, spec):
    """The Pinocchio model (as pinocchio_step.cpp builds it) and q0."""
    model = pin.Model()
    model.gravity.linear = np.array(spec["gravity"], dtype=float)
    rows, q0 = joints(entry)
    for k, (kind, parent, origin, axis, mass, cg, inertia) in enumerate(rows):
        at = pin.SE3(np.eye(3), np.array(origin, dtype=float))
        axis = np.array(axis, dtype=float)
        if kind == "free":
            joint = pin.JointModelFreeFlyer()
        elif (axis == [1, 0, 0]).all():
            joint = pin.JointModelRX()
        elif (axis == [0, 1, 0]).all():
            joint = pin.JointModelRY()
        elif (axis == [0, 0, 1]).all():
            joint = pin.JointModelRZ()
        else:
            joint = pin.JointModelRevoluteUnaligned(axis)
        jid = model.addJoint(parent, joint, at, f"j{k}")
        model.appendBodyToJoint(jid, pin.Inertia(mass, np.array(cg, dtype=float), np.diag(inertia)), pin.SE3.Identity())
    return model, np.array(q0, dtype=float)


def model_file(entry, spec, path):
    rows, q0 = joints(entry)
    g = spec["gravity"]
    with open(path, "w") as f:
        f.write(f"{g[0]!r} {g[1]!r} {g[2]!r} {spec['dt']!r} {entry['timing_steps']}\njoints {len(rows)}\n")
        for kind, parent, origin, axis, mass, cg, inertia in rows:
            f.write(" ".join([kind, str(parent)] + [repr(float(x)) for x in [*origin, *axis, mass, *cg, *inertia]]) + "\n")
        f.write("q0 " + " ".join(repr(float(x)) for x in q0) + "\n")


def binary(out_dir):
    """pinocchio_step compiled (once per source change) against the wheel's headers: -O3, no
    -march=native (the wheels and our release build target the baseline x86-64)."""
    source = os.path.join(HERE, "pinocchio_step.cpp")
    exe = os.path.join(out_dir, "pinocchio_step")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(source):
        lib = os.path.join(PREFIX, "lib")
        # The definitions of the wheel's CMake target pinocchio::pinocchio_default: with
        # PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION, aba is the library's compiled instance.
        defines = ["BOOST_MPL_LIMIT_LIST_SIZE=30", "BOOST_MPL_LIMIT_VECTOR_SIZE=30",
                   "BOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "BOOST_FUSION_INVOKE_MAX_ARITY=12",
                   "PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION"]
        cmd = ["g++", "-O3", "-DNDEBUG", "-std=c++17", *(f"-D{d}" for d in defines), "-I", os.path.join(PREFIX, "include"),
               "-I", os.path.join(PREFIX, "include", "eigen3"), source, "-o", exe,
               "-L", lib, "-lpinocchio_default", f"-Wl,-rpath,{lib}"]
        print("compiling " + " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True)
    return exe


def step(model, data, q, v, dt, integrator):
    zero = np.zeros(model.nv)
    if integrator == "semi_implicit_euler":
        v = v + dt * pin.aba(model, data, q, v, zero)
        return pin.integrate(model, q, dt * v), v
    k1 = pin.aba(model, data, q, v, zero).copy()
    v2 = v + 0.5 * dt * k1
    k2 = pin.aba(model, data, pin.integrate(model, q, 0.5 * dt * v), v2, zero).copy()
    v3 = v + 0.5 * dt * k2
    k3 = pin.aba(model, data, pin.integrate(model, q, 0.5 * dt * v2), v3, zero).copy()
    v4 = v + dt * k3
    k4 = pin.aba(model, data, pin.integrate(model, q, dt * v3), v4, zero).copy()
    q = pin.integrate(model, q, dt / 6.0 * (v + 2 * v2 + 2 * v3 + v4))
    return q, v + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def measure(entry, spec, integrator, mode, exe, out_dir):
    model, q0 = build(entry, spec)
    data = model.createData()
    dt, steps = spec["dt"], entry["timing_steps"]
    if mode == "time":
        path = os.path.join(out_dir, f"pinocchio.{entry['name']}.txt")
        model_file(entry, spec, path)
        out = subprocess.run([exe, path, integrator], check=True, capture_output=True, text=True).stdout.split()

        def python_loop():
            q, v = q0.copy(), np.zeros(model.nv)
            for _ in range(steps):
                q, v = step(model, data, q, v, dt, integrator)

        python_cpu, _ = best_time(python_loop, repeats=1)
        return {"time_per_step_s": float(out[0]), "wall_time_per_step_s": float(out[1]),
                "python_time_per_step_s": python_cpu / steps, "timing_steps": steps}
    q, v = q0.copy(), np.zeros(model.nv)

    def energy():
        return pin.computeKineticEnergy(model, data, q, v) + pin.computePotentialEnergy(model, data, q)

    e0 = energy()
    total = int(round(entry["accuracy_duration"] / dt))
    drift, t, theta, rate = 0.0, [], [], []
    for k in range(total + 1):
        drift = max(drift, abs(energy() - e0))
        t.append(k * dt)
        theta.append(q[0])
        rate.append(v[0])
        if k < total:
            q, v = step(model, data, q, v, dt, integrator)
    scale = energy_scale(entry, -spec["gravity"][2])
    out = {"accuracy_duration": entry["accuracy_duration"], "energy_drift_abs": drift,
           "energy_drift_rel": drift / scale, "constraint_violation": 0.0, "constraint_velocity_violation": 0.0}
    if entry["kind"] == "pendulum":
        out.update(period_measures(entry, t, theta, rate))
    return out


def main(mode, models_path, out_path):
    spec = load_models(models_path)
    out_dir = os.path.dirname(os.path.abspath(out_path))
    exe = binary(out_dir) if mode == "time" else None
    results = {}
    for entry in spec["models"]:
        print(f"pinocchio {mode}: {entry['name']}", file=sys.stderr)
        results[entry["name"]] = {"tree": {i: measure(entry, spec, i, mode, exe, out_dir) for i in INTEGRATORS}}
    out = {"engine": "pinocchio", "version": pin.__version__,
           "formulations": {"tree": "joint coordinates, articulated-body algorithm (aba), RK4 / semi-implicit "
                                    "Euler written around it; time: C++ loop (pinocchio_step.cpp)"},
           "models": results}
    import json
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:4])
