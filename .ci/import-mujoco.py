"""Compares the joint-space mass matrix and bias forces of imported MJCF models (written by
host/tests/suite/import_dynamics.rs) with MuJoCo's on the same files: mj_fullM and qfrc_bias
(C v + g, without the passive forces) after mj_forward, joints matched by name (a model with an
unnamed joint is matched in order). Our q is measured from the configuration the model is written
in, MuJoCo's from qpos0 (a joint's `ref`). The joints' armature is imported (the tree's rotor
inertia on the mass matrix's diagonal) and stays on here; the armature the importer leaves out
(free joints', tendons': noted) is set to 0, and mj_setConst recomputes the constants that hold
it (dof_M0: the mass matrix of MuJoCo's "simple" bodies, slide joints on the world, is that
constant). Fails above 1e-9 relative (max |Δ| over max |reference|)."""
import json
import sys

import mujoco
import numpy as np

from mujoco_joints import unmodelled_armature_off

TOLERANCE = 1e-9
worst_m = worst_b = 0.0
failed = []
count = 0
for line in open(sys.argv[1]):
    case = json.loads(line)
    if not case["model"].endswith(".xml"):
        continue  # URDF: .ci/import-pinocchio.py
    name = "/".join(case["model"].split("/")[-3:])
    model = mujoco.MjModel.from_xml_path(case["model"])
    ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in case["joints"]]
    if any(i < 0 for i in ids):
        ids = list(range(model.njnt))
    if model.nv != len(ids):
        failed.append(f"{name}: MuJoCo has {model.nv} velocities, ours {len(ids)}")
        continue
    unmodelled_armature_off(model)
    armature = float(np.abs(model.dof_armature).max()) if model.nv else 0.0
    data = mujoco.MjData(model)
    mujoco.mj_setConst(model, data)
    qadr = [model.jnt_qposadr[i] for i in ids]
    vadr = [model.jnt_dofadr[i] for i in ids]
    model_m = model_b = 0.0
    for s in case["samples"]:
        data.qpos[:] = model.qpos0
        data.qpos[qadr] += s["q"]
        data.qvel[:] = 0.0
        data.qvel[vadr] = s["v"]
        mujoco.mj_forward(model, data)
        m = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, m)
        m_ref, b_ref = m[np.ix_(vadr, vadr)], data.qfrc_bias[vadr]
        em = np.abs(np.array(s["M"]) - m_ref).max() / np.abs(m_ref).max()
        # b relative to its own size, or to the weights' scale |M| |g| where it vanishes (a
        # point mass sliding across gravity: b = 0 in MuJoCo, 1e-16 here).
        b_scale = max(np.abs(b_ref).max(), np.abs(m_ref).max() * np.linalg.norm(model.opt.gravity), 1e-300)
        eb = np.abs(np.array(s["b"]) - b_ref).max() / b_scale
        model_m, model_b = max(model_m, em), max(model_b, eb)
    count += 1
    note = f" (armature up to {armature:g})" if armature else ""
    print(f"{name}: {len(ids)} joints, {len(case['samples'])} configurations: M {model_m:.1e}, b {model_b:.1e}{note}")
    worst_m, worst_b = max(worst_m, model_m), max(worst_b, model_b)
    if max(model_m, model_b) > TOLERANCE:
        failed.append(f"{name}: M {model_m:.1e}, b {model_b:.1e}")
print(f"{count} fixed-base MJCF models against MuJoCo {mujoco.__version__}: worst relative difference M {worst_m:.1e}, b {worst_b:.1e}")
if failed:
    print("above 1e-9:\n  " + "\n  ".join(failed))
    sys.exit(1)
