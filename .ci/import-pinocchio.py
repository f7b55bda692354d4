"""Compares the joint-space mass matrix and bias forces of imported URDF robots (written by
host/tests/suite/import_dynamics.rs) with Pinocchio's crba and rnea on the same URDF files, joints
matched by name (Pinocchio orders its coordinates its own way; a continuous joint's q is
(cos θ, sin θ) there). Fails above 1e-9 relative (max |Δ| over max |reference|)."""
import json
import sys

import numpy as np
import pinocchio as pin

TOLERANCE = 1e-9
worst_m = worst_b = 0.0
failed = []
count = 0
for line in open(sys.argv[1]):
    case = json.loads(line)
    if not case["model"].endswith(".urdf"):
        continue  # MJCF: .ci/import-mujoco.py
    model = pin.buildModelFromUrdf(case["model"])
    data = model.createData()
    ids = [model.getJointId(name) for name in case["joints"]]
    if model.nv != len(ids) or any(i >= model.njoints for i in ids):
        failed.append(f"{case['model']}: Pinocchio has {model.nv} velocities, ours {len(ids)}")
        continue
    cols = [model.joints[i].idx_v for i in ids]
    model_m = model_b = 0.0
    for s in case["samples"]:
        q = pin.neutral(model)
        for i, angle in zip(ids, s["q"]):
            j = model.joints[i]
            if j.nq == 2:
                q[j.idx_q : j.idx_q + 2] = [np.cos(angle), np.sin(angle)]
            else:
                q[j.idx_q] = angle
        v = np.zeros(model.nv)
        v[cols] = s["v"]
        m = pin.crba(model, data, q)
        m = np.triu(m) + np.triu(m, 1).T
        b = pin.rnea(model, data, q, v, np.zeros(model.nv))
        m_ref, b_ref = m[np.ix_(cols, cols)], b[cols]
        em = np.abs(np.array(s["M"]) - m_ref).max() / np.abs(m_ref).max()
        eb = np.abs(np.array(s["b"]) - b_ref).max() / max(np.abs(b_ref).max(), 1e-300)
        model_m, model_b = max(model_m, em), max(model_b, eb)
    count += 1
    name = "/".join(case["model"].split("/")[-3:])
    print(f"{name}: {len(ids)} joints, {len(case['samples'])} configurations: M {model_m:.1e}, b {model_b:.1e}")
    worst_m, worst_b = max(worst_m, model_m), max(worst_b, model_b)
    if max(model_m, model_b) > TOLERANCE:
        failed.append(f"{name}: M {model_m:.1e}, b {model_b:.1e}")
print(f"{count} fixed-base models against Pinocchio {pin.__version__}: worst relative difference M {worst_m:.1e}, b {worst_b:.1e}")
if failed:
    print("above 1e-9:\n  " + "\n  ".join(failed))
    sys.exit(1)
