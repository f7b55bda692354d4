"""Compares the fixed tendons of imported MJCF models (written by
host/tests/suite/import_tendons.rs) with MuJoCo on the same files: at each random state the
tendons' generalized force M (a - a0) (the kernel's accelerations with and without the tendons)
against MuJoCo's qfrc_passive with only the tendons' springs and dampers (joint springs and
dampers, fluid forces and gravity off; joint armature as imported), and 1 s of motion at RK4 1 ms against MuJoCo's
RK4 (contacts, limits and actuation off). Joints matched by name, coordinates from qpos0 (a
joint's `ref`). Fails above 1e-9 relative (forces) or 1e-6 (rad, or m) in any joint."""
import json
import sys

import mujoco
import numpy as np

from mujoco_joints import addresses, without_joint_passive_forces

FORCE_TOLERANCE = 1e-9
MOTION_TOLERANCE = 1e-6
failed = []
for line in open(sys.argv[1]):
    case = json.loads(line)
    name = "/".join(case["model"].split("/")[-2:])
    model = mujoco.MjModel.from_xml_path(case["model"])
    model.opt.disableflags |= (
        mujoco.mjtDisableBit.mjDSBL_ACTUATION
        | mujoco.mjtDisableBit.mjDSBL_CONTACT
        | mujoco.mjtDisableBit.mjDSBL_LIMIT
    )
    model.opt.gravity[:] = 0.0
    without_joint_passive_forces(model)
    found = addresses(model, case["joints"])
    if found is None or model.nv != len(case["joints"]):
        failed.append(f"{name}: joints {case['joints']} not all in MuJoCo's model (nv {model.nv})")
        continue
    qadr, vadr = found
    data = mujoco.MjData(model)
    mujoco.mj_setConst(model, data)
    worst, scale = 0.0, 0.0
    for state in case["states"]:
        data.qpos[:] = model.qpos0
        data.qpos[qadr] += state["q"]
        data.qvel[:] = 0.0
        data.qvel[vadr] = state["v"]
        mujoco.mj_forward(model, data)
        full = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, full)
        mass = full[np.ix_(vadr, vadr)]
        ours = mass @ np.array(state["da"])
        theirs = data.qfrc_passive[vadr]
        scale = max(scale, np.abs(theirs).max())
        worst = max(worst, np.abs(ours - theirs).max() / max(np.abs(theirs).max(), 1e-300))
    print(f"{name}: {len(qadr)} joints, {model.ntendon} tendons: tendon forces at {len(case['states'])} states (up to {scale:.2f}) worst relative difference {worst:.1e}")
    if worst > FORCE_TOLERANCE:
        failed.append(f"{name}: tendon forces off by {worst:.1e} relative")
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.timestep = case["step"]
    mujoco.mj_resetData(model, data)
    data.qpos[:] = model.qpos0
    data.qpos[qadr] += case["q0"]
    data.qvel[vadr] = case["v0"]
    for _ in range(case["steps"]):
        mujoco.mj_step(model, data)
    diff = np.abs(data.qpos[qadr] - model.qpos0[qadr] - np.array(case["q"])).max()
    travel = np.abs(np.array(case["q"]) - np.array(case["q0"])).max()
    print(f"{name}: {case['steps']} RK4 steps of {case['step']} s: max |Δq| {diff:.1e} (joints moved up to {travel:.2f})")
    if diff > MOTION_TOLERANCE:
        failed.append(f"{name}: motion off by {diff:.1e}")
print(f"tendons against MuJoCo {mujoco.__version__}: {len(failed)} failures")
if failed:
    print("  " + "\n  ".join(failed))
    sys.exit(1)
