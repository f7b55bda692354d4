"""The benchmark models in Exudyn, in two formulations.

Redundant coordinates (compared with our Cartesian model): rigid bodies (Euler parameters) with revolute joints, the
pendulum as a mass point on a distance constraint (the formulation ours uses), solved with
Exudyn's default dynamic solver (implicit generalized-alpha, spectral radius 0.9, index-3
constraints, Newton, its default dense linear solver; also timed with its EigenSparse solver, the one a
user picks for larger systems), dt from the models JSON.

Time per step = (CPU time of 2N steps - CPU time of N steps) / N, which removes the set-up and
initialization cost of SolveDynamic. Accuracy from sensors stored internally (no Python per step).

Joint coordinates (compared with our tree and MuJoCo): one ObjectKinematicTree (RevoluteY joints,
the pendulum a single link with its bob at (0, 0, -L)), integrated with Exudyn's explicit RK44 (fixed
step, like for like with RK4) and with its default generalized-alpha.

`time`: CPU time per step (one (2N - N) measurement; run.sh repeats it in alternating rounds);
`accuracy`: energy drift, violation, period.

usage: run_exudyn.py time|accuracy MODELS.json OUT.json
"""

import json
import math
import sys

import exudyn as exu
import numpy as np
from exudyn.rigidBodyUtilities import HTtranslate, TreeLink
from exudyn.utilities import RigidBodyInertia, SensorBody, SensorNode, SensorObject

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
    s = exu.SimulationSettings()  # the default solver: implicit generalized-alpha (RK44 via solverType)
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


def timing(entry, spec, sparse, builder=None, solver=None, steps=None):
    """CPU and wall time per step: (2N-step run - N-step run) / N. The dense default solver
    costs O(n^3) per step, so long chains get fewer steps (at least 100)."""
    builder = builder or build
    if steps is None:
        steps = max(100, min(entry["timing_steps"], 20000 // max(1, entry.get("links", 1))))

    def solve(n):
        def run():
            _, mbs, _ = builder(entry, spec, sensors=False)
            exu.SolveDynamic(mbs, settings(spec, n, sparse=sparse), solverType=solver)
        return run

    cpu1, wall1 = best_time(solve(steps), repeats=1)
    cpu2, wall2 = best_time(solve(2 * steps), repeats=1)
    return (cpu2 - cpu1) / steps, (wall2 - wall1) / steps, steps


def measure(entry, spec, mode):
    if mode == "time":
        per_step, wall_per_step, steps = timing(entry, spec, sparse=False)
        sparse_per_step, sparse_wall_per_step, _ = timing(entry, spec, sparse=True)
        return {"time_per_step_s": per_step, "wall_time_per_step_s": wall_per_step, "timing_steps": steps,
                "sparse_time_per_step_s": sparse_per_step, "sparse_wall_time_per_step_s": sparse_wall_per_step}

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
    out = {"accuracy_duration": entry["accuracy_duration"],
           "energy_drift_abs": drift, "energy_drift_rel": drift / energy_scale(entry, -g[2]),
           "constraint_violation": violation, "constraint_violation_note": "joint position rows only"}
    if entry["kind"] == "pendulum":
        p, v = mbs.GetSensorStoredData(items["sensors"][0]["p"]), mbs.GetSensorStoredData(items["sensors"][0]["v"])
        x, z, vx, vz = p[:, 1], p[:, 3], v[:, 1], v[:, 3]
        theta = np.arctan2(x, -z)
        rate = (vx * -z + x * vz) / (x * x + z * z)
        out.update(period_measures(entry, t, theta, rate))
    return out


def build_tree(entry, spec, sensors):
    """A MainSystem holding the model as one ObjectKinematicTree (joint coordinates)."""
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    links = []
    if entry["kind"] == "pendulum":
        inertia = RigidBodyInertia(mass=entry["mass"], inertiaTensor=np.diag([1e-12] * 3),
                                   com=[0.0, 0.0, -entry["length"]], inertiaTensorAtCOM=True)
        links.append(TreeLink(linkInertia=inertia, jointType=exu.JointType.RevoluteY, graphicsDataList=[]))
        # RevoluteY turns +x towards -z: q = -theta0 puts the bob at x = L sin(theta0).
        q0 = [-entry["initial_angle"]]
    else:
        for k in range(entry["links"]):
            length, mass = entry["link_length"][k], entry["link_mass"][k]
            inertia = RigidBodyInertia(mass=mass, inertiaTensor=np.diag(entry["link_inertia"][k]),
                                       com=[length / 2.0, 0.0, 0.0], inertiaTensorAtCOM=True)
            ht = HTtranslate([0.0 if k == 0 else entry["link_length"][k - 1], 0.0, 0.0])
            links.append(TreeLink(linkInertia=inertia, jointType=exu.JointType.RevoluteY, jointHT=ht,
                                  parent=k - 1, graphicsDataList=[]))
        q0 = list(entry["initial_angles"])
    tree = mbs.CreateKinematicTree(listOfTreeLinks=links, initialCoordinates=q0, gravity=spec["gravity"],
                                   show=False)
    out = {}
    if sensors:
        node = mbs.GetObject(tree)["nodeNumber"]
        out["q"] = mbs.AddSensor(SensorNode(nodeNumber=node, storeInternal=True,
                                            outputVariableType=exu.OutputVariableType.Coordinates))
        out["v"] = mbs.AddSensor(SensorNode(nodeNumber=node, storeInternal=True,
                                            outputVariableType=exu.OutputVariableType.Coordinates_t))
    mbs.Assemble()
    return sc, mbs, out


def tree_energy(entry, g, q, v):
    """Energy of sampled joint coordinates q, rates v (rows: samples) of the planar chain about y."""
    if entry["kind"] == "pendulum":
        m, length = entry["mass"], entry["length"]
        return 0.5 * m * length * length * v[:, 0] ** 2 - m * g * length * np.cos(q[:, 0])
    phi, w = np.cumsum(q, axis=1), np.cumsum(v, axis=1)
    e = np.zeros(q.shape[0])
    base_x, base_z = np.zeros(q.shape[0]), np.zeros(q.shape[0])
    base_vx, base_vz = np.zeros(q.shape[0]), np.zeros(q.shape[0])
    for k in range(q.shape[1]):
        length, mass, iyy = entry["link_length"][k], entry["link_mass"][k], entry["link_inertia"][k][1]
        c, s = np.cos(phi[:, k]), np.sin(phi[:, k])
        # Link axis (cos phi, 0, -sin phi); its rate phi_dot (-sin phi, 0, -cos phi).
        cz = base_z - 0.5 * length * s
        cvx, cvz = base_vx - 0.5 * length * w[:, k] * s, base_vz - 0.5 * length * w[:, k] * c
        e += 0.5 * mass * (cvx ** 2 + cvz ** 2) + 0.5 * iyy * w[:, k] ** 2 + mass * g * cz
        base_x, base_z = base_x + length * c, base_z - length * s
        base_vx, base_vz = base_vx - length * w[:, k] * s, base_vz - length * w[:, k] * c
    return e


TREE_SOLVERS = {"rk4": exu.DynamicSolverType.RK44, "generalized_alpha": exu.DynamicSolverType.GeneralizedAlpha}


def measure_tree(entry, spec, mode, integrator):
    solver = TREE_SOLVERS[integrator]
    if mode == "time":
        per_step, wall_per_step, steps = timing(entry, spec, sparse=False, builder=build_tree, solver=solver,
                                                steps=entry["timing_steps"])
        return {"time_per_step_s": per_step, "wall_time_per_step_s": wall_per_step, "timing_steps": steps}
    total = int(round(entry["accuracy_duration"] / spec["dt"]))
    every = 1 if entry["kind"] == "pendulum" else 10
    _, mbs, items = build_tree(entry, spec, sensors=True)
    exu.SolveDynamic(mbs, settings(spec, total, sample_every=every), solverType=solver)
    q, v = mbs.GetSensorStoredData(items["q"]), mbs.GetSensorStoredData(items["v"])
    t, q, v = q[:, 0], q[:, 1:], v[:, 1:]
    g = -spec["gravity"][2]
    energy = tree_energy(entry, g, q, v)
    drift = float(np.max(np.abs(energy - energy[0])))
    out = {"accuracy_duration": entry["accuracy_duration"], "energy_drift_abs": drift,
           "energy_drift_rel": drift / energy_scale(entry, g), "constraint_violation": 0.0}
    if entry["kind"] == "pendulum":
        out.update(period_measures(entry, t, -q[:, 0], -v[:, 0]))
    return out


def main(mode, models_path, out_path):
    spec = load_models(models_path)
    results = {}
    for entry in spec["models"]:
        if entry["kind"] not in ("pendulum", "revolute_chain"):
            continue  # the floating-base tree is compared with MuJoCo and Pinocchio only
        print(f"exudyn {mode}: {entry['name']}", file=sys.stderr)
        results[entry["name"]] = {"cartesian": {"generalized_alpha": measure(entry, spec, mode)},
                                  "tree": {i: measure_tree(entry, spec, mode, i) for i in TREE_SOLVERS}}
    out = {"engine": "exudyn", "version": exu.config.Version() if hasattr(exu, "config") else exu.__version__,
           "formulations": {
               "cartesian": "redundant coordinates (Euler parameters), index-3 DAE, implicit generalized-alpha (rho_inf 0.9), Newton; default dense LU (sparse_*: EigenSparse)",
               "tree": "ObjectKinematicTree (joint coordinates); explicit RK44 and default generalized-alpha"},
           "models": results}
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:4])
