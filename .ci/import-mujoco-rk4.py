"""Compares 1 s of free motion of imported models (written by
host/tests/suite/import_free_motion.rs: zero gravity, RK4 at 1 ms, no damping, limits or contact)
with MuJoCo's RK4 on the same file: a URDF loaded by MuJoCo's own URDF reader (visual and
collision geometry stripped first: the meshes are not needed and MuJoCo would look for them),
an MJCF file as it is, with actuation, springs, dampers and fluid forces off and the joints'
armature on, as imported (the armature the importer leaves out, free joints' and tendons', off;
mj_setConst recomputes the constants armature enters). Joints matched by name, coordinates measured from
qpos0 (a joint's `ref`). Fails above 1e-6 (rad, or m for a slide) in any joint.

A floating base (the case names its root body `base`): MuJoCo's URDF reader welds the root to
the world, so the URDF is loaded into an MjSpec and the root body given a free joint before
compiling. Its qpos (origin position, quaternion w x y z: body -> world) and qvel (origin
velocity in world axes, angular velocity in body axes) are the kernel's free-joint coordinates
as they are; position and quaternion (sign-aligned: q and -q are one turn) fail above 1e-6."""
import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

from mujoco_joints import addresses, without_joint_passive_forces

TOLERANCE = 1e-6
failed = []
for line in open(sys.argv[1]):
    case = json.loads(line)
    name = "/".join(case["model"].split("/")[-3:])
    if case["model"].endswith(".xml"):
        model = mujoco.MjModel.from_xml_path(case["model"])
        model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ACTUATION
    else:
        tree = ET.parse(case["model"])
        for link in tree.getroot().iter("link"):
            for tag in ("visual", "collision"):
                for e in link.findall(tag):
                    link.remove(e)
        with tempfile.TemporaryDirectory() as folder:
            stripped = os.path.join(folder, "model.urdf")
            tree.write(stripped)
            spec = mujoco.MjSpec.from_file(stripped)
            if "base" in case:
                spec.body(case["base"]).add_freejoint(name="floating_base")
            model = spec.compile()
    model.opt.gravity[:] = 0.0
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.timestep = case["step"]
    # Equalities off: MuJoCo's URDF reader turns a <mimic> into a joint equality, a soft one
    # (solref), which cannot agree with a rigid coupling to 1e-6; the test removes the coupling
    # on our side too, so both run the mimicking joint free.
    model.opt.disableflags |= (mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_LIMIT
                               | mujoco.mjtDisableBit.mjDSBL_EQUALITY)
    without_joint_passive_forces(model)
    found = addresses(model, case["joints"])
    free = 6 if "base" in case else 0
    if found is None or model.nv != len(case["joints"]) + free:
        failed.append(f"{name}: joints {case['joints']} not all in MuJoCo's model (nv {model.nv})")
        continue
    qadr, vadr = found
    data = mujoco.MjData(model)
    mujoco.mj_setConst(model, data)
    data.qpos[:] = model.qpos0
    data.qpos[qadr] += case["q0"]
    data.qvel[vadr] = case["v0"]
    if free:
        base = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "floating_base")
        bq, bv = model.jnt_qposadr[base], model.jnt_dofadr[base]
        data.qpos[bq : bq + 7] = case["base_q0"]
        data.qvel[bv : bv + 6] = case["base_v0"]
    for _ in range(case["steps"]):
        mujoco.mj_step(model, data)
    diff = np.abs(data.qpos[qadr] - model.qpos0[qadr] - np.array(case["q"])).max()
    travel = np.abs(np.array(case["q"]) - np.array(case["q0"])).max()
    base = ""
    if free:
        ours = np.array(case["base_q"])
        position = np.abs(data.qpos[bq : bq + 3] - ours[:3]).max()
        theirs = data.qpos[bq + 3 : bq + 7]
        turn = min(np.abs(theirs - ours[3:]).max(), np.abs(theirs + ours[3:]).max())
        moved = np.linalg.norm(ours[:3] - np.array(case["base_q0"][:3]))
        base = f"; free base: |Δposition| {position:.1e} m, |Δquaternion| {turn:.1e} (it moved {moved:.2f} m)"
        if max(position, turn) > TOLERANCE:
            failed.append(f"{name}: base position {position:.1e} m, quaternion {turn:.1e}")
    print(f"{name}: {len(qadr)} joints, {case['steps']} RK4 steps of {case['step']} s: max |Δq| {diff:.1e} rad (joints moved up to {travel:.2f} rad){base}")
    if diff > TOLERANCE:
        failed.append(f"{name}: {diff:.1e} rad")
print(f"free motion against MuJoCo {mujoco.__version__} RK4: {len(failed)} above 1e-6 rad")
if failed:
    print("  " + "\n  ".join(failed))
    sys.exit(1)
