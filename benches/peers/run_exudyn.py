"""The benchmark models in Exudyn: rigid bodies (Euler parameters) with revolute joints, the
pendulum as a mass point on a distance constraint (the formulation ours uses), solved with
Exudyn's default dynamic solver (implicit generalized-alpha, spectral radius 0.9, index-3
constraints, Newton, its default dense linear solver; also timed with its EigenSparse solver, the one a
user picks for larger systems), dt from the models JSON.

Time per step = (CPU time of 2N steps - CPU time of N steps) / N, which removes the set-up and
initialization cost of SolveDynamic. Accuracy from sensors stored internally (no Python per step).

usage: run_exudyn.py MODELS.json OUT.json
"""

import json
import math
import sys

import exudyn as exu
import numpy as np
from exudyn.utilities import RigidBodyInertia, SensorBody, SensorObject

from common import best_time, energy_scale, load_models, period_measures


def build(entry, spec, sensors):
    """A MainSystem of the model; with `sensors`, the sensors of the accuracy run."""
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    g = spec["gravity"]
    ground = mbs.CreateGround()
    out = {"bodies": [], "joints": []}
    if entry["kind"] == "pendulum":
        a, length = entry["initial_angle"], entry["length"]
        bob = mbs.CreateMassPoint(referencePosition=[length * math.sin(a), 0.0, -length * math.cos(a)],
                                  mass=entry["mass"], gravity=g, show=False)
        joint = mbs.CreateDistanceConstraint(itemNumbers=[ground, bob], distance=length, show=False)
        out["bodies"].append((bob, entry["mass"], None))
        out["joints"].append(joint)
    else:
        previous, x = ground, 0.0
        for k in range(entry["links"]):
            length, mass = entry["link_length"][k], entry["link_mass"][k]
            inertia = RigidBodyInertia(mass=mass, inertiaTensor=np.diag(entry["link_inertia"][k]))
            body = mbs.CreateRigidBody(referencePosition=[x + length / 2.0, 0.0, 0.0], inertia=inertia,
                                       gravity=g, show=False)
            joint = mbs.CreateRevoluteJoint(itemNumbers=[previous, body], position=[x, 0.0, 0.0],
                                            axis=entry["hinge_axis"], useGlobalFrame=True, show=False)
            out["bodies"].append((body, mass, np.diag(entry["link_inertia"][k])))
            out["joints"].append(joint)
            previous, x = body, x + length
    if sensors:
        out["sensors"] = []
        for body, _, inertia in out["bodies"]:
            s = {"p": mbs.AddSensor(SensorBody(bodyNumber=body, storeInternal=True,
                                               outputVariableType=exu.OutputVariableType.Position)),
                 "v": mbs.AddSensor(SensorBody(bodyNumber=body, storeInternal=True,
                                               outputVariableType=exu.OutputVariableType.Velocity))}
            if inertia is not None:
                s["w"] = mbs.AddSensor(SensorBody(bodyNumber=body, storeInternal=True,
                                                  outputVariableType=exu.OutputVariableType.AngularVelocityLocal))
            out["sensors"].append(s)
        kind = (exu.OutputVariableType.Distance if entry["kind"] == "pendulum"
                else exu.OutputVariableType.DisplacementLocal)
        out["joint_sensors"] = [mbs.AddSensor(SensorObject(objectNumber=j, storeInternal=True,
                                                           outputVariableType=kind))
                                for j in out["joints"]]
    mbs.Assemble()
    return sc, mbs, out


def settings(spec, steps, sample_every=None, sparse=False):
    s = exu.SimulationSettings()  # the default solver: implicit generalized-alpha
    if sparse:
        s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    s.timeIntegration.numberOfSteps = steps
    s.timeIntegration.endTime = steps * spec["dt"]
    s.timeIntegration.verboseMode = 0
    s.show.computationTime = False
    s.show.statistics = False
    s.solution.file.write = False
    s.solution.file.writeInitialValues = False
    if sample_every is None:
        s.solution.sensors.writePeriod = 1e30
    else:
        s.solution.sensors.writePeriod = sample_every * spec["dt"]
    return s


def timing(entry, spec, sparse):
    """CPU and wall time per step: (2N-step run - N-step run) / N. The dense default solver
    costs O(n^3) per step, so long chains get fewer steps (at least 100)."""
    steps = max(100, min(entry["timing_steps"], 20000 // max(1, entry.get("links", 1))))

    def solve(n):
        def run():
            _, mbs, _ = build(entry, spec, sensors=False)
            exu.SolveDynamic(mbs, settings(spec, n, sparse=sparse))
        return run

    cpu1, wall1 = best_time(solve(steps), repeats=2)
    cpu2, wall2 = best_time(solve(2 * steps), repeats=2)
    return (cpu2 - cpu1) / steps, (wall2 - wall1) / steps, steps


def measure(entry, spec):
    per_step, wall_per_step, steps = timing(entry, spec, sparse=False)
    sparse_per_step, sparse_wall_per_step, _ = timing(entry, spec, sparse=True)

    # Accuracy run (EigenSparse: the same generalized-alpha iterations as the dense default, only
    # the linear solves differ, to round-off): every step for the pendulum (period), every 10
    # steps for the chains.
    total = int(round(entry["accuracy_duration"] / spec["dt"]))
    every = 1 if entry["kind"] == "pendulum" else 10
    _, mbs, items = build(entry, spec, sensors=True)
    exu.SolveDynamic(mbs, settings(spec, total, sample_every=every, sparse=True))
    g = np.array(spec["gravity"])
    energy = None
    for (body, mass, inertia), s in zip(items["bodies"], items["sensors"]):
        p, v = mbs.GetSensorStoredData(s["p"]), mbs.GetSensorStoredData(s["v"])
        e = 0.5 * mass * np.sum(v[:, 1:4] ** 2, axis=1) - mass * (p[:, 1:4] @ g)
        if inertia is not None:
            w = mbs.GetSensorStoredData(s["w"])[:, 1:4]
            e = e + 0.5 * np.einsum("ij,jk,ik->i", w, inertia, w)
        energy = e if energy is None else energy + e
        t = p[:, 0]
    drift = float(np.max(np.abs(energy - energy[0])))
    violation = 0.0
    for j in items["joint_sensors"]:
        d = mbs.GetSensorStoredData(j)[:, 1:]
        if entry["kind"] == "pendulum":
            d = d - entry["length"]
        violation = max(violation, float(np.max(np.abs(d))))
    out = {"time_per_step_s": per_step, "wall_time_per_step_s": wall_per_step, "timing_steps": steps,
           "sparse_time_per_step_s": sparse_per_step, "sparse_wall_time_per_step_s": sparse_wall_per_step,
           "accuracy_duration": entry["accuracy_duration"],
           "energy_drift_abs": drift, "energy_drift_rel": drift / energy_scale(entry, -g[2]),
           "constraint_violation": violation, "constraint_violation_note": "joint position rows only"}
    if entry["kind"] == "pendulum":
        p, v = mbs.GetSensorStoredData(items["sensors"][0]["p"]), mbs.GetSensorStoredData(items["sensors"][0]["v"])
        x, z, vx, vz = p[:, 1], p[:, 3], v[:, 1], v[:, 3]
        theta = np.arctan2(x, -z)
        rate = (vx * -z + x * vz) / (x * x + z * z)
        out.update(period_measures(entry, t, theta, rate))
    return out


def main(models_path, out_path):
    spec = load_models(models_path)
    results = {}
    for entry in spec["models"]:
        print(f"exudyn: {entry['name']}", file=sys.stderr)
        results[entry["name"]] = {"generalized_alpha": measure(entry, spec)}
    out = {"engine": "exudyn", "version": exu.config.Version() if hasattr(exu, "config") else exu.__version__,
           "formulation": "redundant coordinates (Euler parameters), index-3 DAE, implicit generalized-alpha (rho_inf 0.9), Newton; default dense LU (sparse_*: EigenSparse)",
           "models": results}
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:3])
