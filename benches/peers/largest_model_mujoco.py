"""MuJoCo's side of the largest-model comparison (benches/peers/largest_model.sh): the same MJCF
file loaded (`MjModel.from_xml_path`: parse and compile, CPU time best of `repeats`, beside our
import), then 1 s of RK4 at 1 ms from our start (joints matched by name, q measured from qpos0)
with contacts, limits, actuation, joint damping, stiffness, friction loss and armature off (the
elements our run removes; the importer leaves armature out) and fluid forces off, gravity as
ours: CPU time per step, best of `repeats` runs of one `mj_step(nstep=1000)` call. Prints one
JSON line, with the largest difference between the two engines' joint positions after 1 s.
With `--summary` it reads the rounds' lines (ours.N.json, mujoco.N.json in a folder) and prints
the best of every time over the rounds and the ratios ours / MuJoCo as one JSON line.

    python largest_model_mujoco.py OURS.json [repeats]
    python largest_model_mujoco.py --summary FOLDER
"""

import glob
import json
import os
import sys

import mujoco
import numpy as np

from common import best_time

# The MuJoCo comparison helpers .ci/import's scripts share (joints by our names, passive off).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".ci"))
from mujoco_joints import addresses, without_joint_passive_forces  # noqa: E402


def summary(folder):
    def best(engine, key):
        return min(json.load(open(f))[key] for f in glob.glob(os.path.join(folder, f"{engine}.*.json")))

    ours = json.load(open(glob.glob(os.path.join(folder, "ours.*.json"))[0]))
    theirs = json.load(open(glob.glob(os.path.join(folder, "mujoco.*.json"))[0]))
    rounds = len(glob.glob(os.path.join(folder, "ours.*.json")))
    step, their_step = best("ours", "time_per_step_s"), best("mujoco", "time_per_step_s")
    imported, compiled = best("ours", "import_cpu_s"), best("ours", "import_compile_cpu_s")
    loaded = best("mujoco", "load_cpu_s")
    print(json.dumps({"model": ours["model"], "joints": len(ours["joints"]), "rounds": rounds,
                      "repeats": ours["repeats"], "ferrodyn_import_cpu_s": imported,
                      "ferrodyn_import_compile_cpu_s": compiled, "mujoco_load_cpu_s": loaded,
                      "ferrodyn_step_cpu_s": step, "mujoco_step_cpu_s": their_step,
                      "step_ratio_ferrodyn_over_mujoco": step / their_step,
                      "import_compile_ratio_ferrodyn_over_mujoco_load": compiled / loaded,
                      "engine": theirs["engine"],
                      "max_joint_difference_after_1s": theirs["max_joint_difference_after_1s"],
                      "joints_moved_up_to": theirs["joints_moved_up_to"]}))


def main():
    if sys.argv[1] == "--summary":
        summary(sys.argv[2])
        return
    ours = json.loads(open(sys.argv[1]).read())
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    path = ours["model"]
    load_cpu, _ = best_time(lambda: mujoco.MjModel.from_xml_path(path), repeats)

    model = mujoco.MjModel.from_xml_path(path)
    model.opt.disableflags |= (mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_LIMIT
                               | mujoco.mjtDisableBit.mjDSBL_ACTUATION)
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.timestep = ours["step"]
    model.opt.gravity[:] = ours["gravity"]
    without_joint_passive_forces(model)
    found = addresses(model, ours["joints"])
    if found is None or model.nv != len(ours["joints"]):
        sys.exit(f"{path}: joints {ours['joints']} not all in MuJoCo's model (nv {model.nv})")
    qadr, vadr = found
    data = mujoco.MjData(model)
    mujoco.mj_setConst(model, data)

    def run():
        mujoco.mj_resetData(model, data)
        data.qpos[qadr] += ours["q0"]
        data.qvel[vadr] = ours["v0"]
        mujoco.mj_step(model, data, nstep=ours["steps"])

    step_cpu = best_time(run, repeats)[0] / ours["steps"]
    apart = float(np.abs(data.qpos[qadr] - model.qpos0[qadr] - np.array(ours["q"])).max())
    travel = float(np.abs(np.array(ours["q"]) - np.array(ours["q0"])).max())
    print(json.dumps({"engine": f"MuJoCo {mujoco.__version__}", "model": path, "joints": model.nv,
                      "load_cpu_s": load_cpu, "time_per_step_s": step_cpu,
                      "max_joint_difference_after_1s": apart, "joints_moved_up_to": travel,
                      "repeats": repeats}))


if __name__ == "__main__":
    main()
