"""The benchmark models in MuJoCo: generalized coordinates (one hinge per link), its RK4 and its
semi-implicit Euler, dt from the models JSON. `time`: one timing run per model and integrator
(CPU time); `accuracy`: energy drift and period. Writes the MJCF files to models/ and the results
as JSON.

usage: run_mujoco.py time|accuracy MODELS.json OUT.json
"""

import os
import sys

import mujoco
import numpy as np

from common import best_time, energy_scale, load_models, period_measures

HERE = os.path.dirname(os.path.abspath(__file__))
INTEGRATORS = {"rk4": mujoco.mjtIntegrator.mjINT_RK4,
               "semi_implicit_euler": mujoco.mjtIntegrator.mjINT_EULER}


def mjcf(entry, spec):
    """MJCF text of one model: no contact, no damping, no armature, energy computed on demand."""
    g = spec["gravity"]
    head = (f'<mujoco model="{entry["name"]}">\n'
            f'  <option timestep="{spec["dt"]!r}" integrator="RK4" gravity="{g[0]!r} {g[1]!r} {g[2]!r}">\n'
            '    <flag contact="disable"/>\n  </option>\n  <worldbody>\n')
    body = ""
    if entry["kind"] == "floating_tree":
        body = floating_bodies(entry)
    elif entry["kind"] == "pendulum":
        # Hinge about -y at the origin: q = +θ0 puts the bob at x = L sin θ0, z = -L cos θ0.
        # A point mass: the inertia about the CG is negligible (MuJoCo needs it positive).
        body = (f'    <body name="bob">\n'
                f'      <joint name="hinge" type="hinge" axis="0 -1 0" pos="0 0 0"/>\n'
                f'      <inertial pos="0 0 {-entry["length"]!r}" mass="{entry["mass"]!r}" diaginertia="1e-12 1e-12 1e-12"/>\n'
                f'    </body>\n')
    else:
        x, indent, closes = 0.0, "    ", ""
        for k in range(entry["links"]):
            length, mass = entry["link_length"][k], entry["link_mass"][k]
            ixx, iyy, izz = entry["link_inertia"][k]
            a = entry["hinge_axis"]
            body += (f'{indent}<body name="link{k}" pos="{x!r} 0 0">\n'
                     f'{indent}  <joint name="j{k}" type="hinge" axis="{a[0]!r} {a[1]!r} {a[2]!r}" pos="0 0 0"/>\n'
                     f'{indent}  <inertial pos="{length / 2!r} 0 0" mass="{mass!r}" diaginertia="{ixx!r} {iyy!r} {izz!r}"/>\n')
            closes = f"{indent}</body>\n" + closes
            x, indent = length, indent + "  "
        body += closes
    return head + body + "  </worldbody>\n</mujoco>\n"


def floating_bodies(entry):
    """The base on a free joint and its hinged links, nested by parent."""
    def v(x):
        return " ".join(repr(float(c)) for c in x)

    def children(parent, indent):
        text = ""
        for k, h in enumerate(entry["hinges"]):
            if h["parent"] == parent:
                text += (f'{indent}<body name="h{k}" pos="{v(h["origin"])}">\n'
                         f'{indent}  <joint name="j{k}" type="hinge" axis="{v(h["axis"])}" pos="0 0 0"/>\n'
                         f'{indent}  <inertial pos="{v(h["cg"])}" mass="{h["mass"]!r}" diaginertia="{v(h["inertia"])}"/>\n'
                         + children(k, indent + "  ") + f"{indent}</body>\n")
        return text

    base = entry["base"]
    return ('    <body name="base" pos="0 0 0">\n      <freejoint name="base"/>\n'
            f'      <inertial pos="0 0 0" mass="{base["mass"]!r}" diaginertia="{v(base["inertia"])}"/>\n'
            + children(-1, "      ") + "    </body>\n")


def initial_qpos(entry):
    if entry["kind"] == "floating_tree":
        return np.array([0, 0, 0, 1, 0, 0, 0] + [0.0] * len(entry["hinges"]))
    if entry["kind"] == "pendulum":
        return np.array([entry["initial_angle"]])
    return np.array(entry["initial_angles"], dtype=float)


def measure(model, entry, spec, integrator, mode):
    model.opt.integrator = INTEGRATORS[integrator]
    data = mujoco.MjData(model)
    q0 = initial_qpos(entry)
    steps = entry["timing_steps"]

    def reset():
        mujoco.mj_resetData(model, data)
        data.qpos[:] = q0

    if mode == "time":
        # Timing: energy off, `steps` steps inside one C call (no Python per step), one run
        # (run.sh repeats it in rounds alternating with the other engines).
        model.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_ENERGY)

        def timed():
            reset()
            mujoco.mj_step(model, data, nstep=steps)

        cpu, wall = best_time(timed, repeats=1)
        return {"time_per_step_s": cpu / steps, "wall_time_per_step_s": wall / steps, "timing_steps": steps}

    # Accuracy: the energy of every reached state. With the energy flag, mj_step leaves in
    # d.energy the energy computed by its last call of the forward dynamics: for Euler that is
    # the state the step started from, for RK4 the state of its last stage (neither is the state
    # reached). So mj_forward is called on the reached state before reading d.energy; the
    # unforwarded reading is kept (energy_drift_rel_unforwarded) to show the difference.
    model.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    reset()
    mujoco.mj_forward(model, data)
    e0 = data.energy.sum()
    total = int(round(entry["accuracy_duration"] / spec["dt"]))
    drift, drift_unforwarded = 0.0, 0.0
    t, theta, rate = [], [], []
    for _ in range(total + 1):
        t.append(data.time)
        theta.append(data.qpos[0])
        rate.append(data.qvel[0])
        mujoco.mj_step(model, data)
        drift_unforwarded = max(drift_unforwarded, abs(data.energy.sum() - e0))
        mujoco.mj_forward(model, data)
        drift = max(drift, abs(data.energy.sum() - e0))
    g = -spec["gravity"][2]
    scale = energy_scale(entry, g)
    out = {"accuracy_duration": entry["accuracy_duration"],
           "energy_drift_abs": drift, "energy_drift_rel": drift / scale,
           "energy_drift_rel_unforwarded": drift_unforwarded / scale,
           "constraint_violation": 0.0, "constraint_velocity_violation": 0.0}
    if entry["kind"] == "pendulum":
        out.update(period_measures(entry, t, theta, rate))
    return out


def main(mode, models_path, out_path):
    spec = load_models(models_path)
    os.makedirs(os.path.join(HERE, "models"), exist_ok=True)
    results = {}
    for entry in spec["models"]:
        print(f"mujoco {mode}: {entry['name']}", file=sys.stderr)
        text = mjcf(entry, spec)
        with open(os.path.join(HERE, "models", f"{entry['name']}.xml"), "w") as f:
            f.write(text)
        model = mujoco.MjModel.from_xml_string(text)
        results[entry["name"]] = {"tree": {i: measure(model, entry, spec, i, mode) for i in INTEGRATORS}}
    out = {"engine": "mujoco", "version": mujoco.__version__,
           "formulations": {"tree": "generalized coordinates (hinge chain), CRB mass matrix + LDL"},
           "models": results}
    import json
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:4])
