"""The four-bar of scenes/four_bar.toml in MuJoCo (benches/peers/four_bar.sh): a chain of three
hinges about z (crank 0.1 m, coupler 0.3 m, rocker 0.25 m, the scene's masses and inertias
about the rods' centres) closed on the ground pivot at (0.3, 0, 0) by an equality `connect`,
RK4 at 1 ms, gravity -y, released from rest with the crank at 60 degrees. The bodies are placed
in the scene's initial (closed) pose, so qpos = 0 is closed and the connect's world anchor is
the ground pivot.

MuJoCo's equality constraints are soft: the solver reference solref = (timeconst, dampratio)
pulls the violation back like a spring-damper, so the loop opens under load. Run with the
default solref (0.02, 1) and with timeconst at its floor 2 x timestep (0.002, 1: MuJoCo's
documented lower limit while the `refsafe` flag is on). One JSON line per run: CPU time per
step (best of `repeats` runs of 2000 steps inside one mj_step call) and the closure error
|rocker end - ground pivot| after 2 s (m).

    python four_bar_mujoco.py [repeats]
"""

import json
import math
import sys
import time

import mujoco

DT = 1e-3
STEPS = 2000
# Absolute angles of the links in the scene's initial pose (rad): crank, coupler, and the
# rocker's direction from the coupler pin to its ground pivot (its body yaw + pi).
CRANK, COUPLER, ROCKER = 1.0471975511965976, 0.5759611339397938, 1.5643932228659467 + math.pi
# (length, mass, Ixx, Iyy, Izz about the centre) from scenes/four_bar.toml.
LINKS = [(0.1, 0.2, 2.5e-6, 1.6791666666666672e-4, 1.6791666666666672e-4),
         (0.3, 0.6, 7.5e-6, 4.50375e-3, 4.50375e-3),
         (0.25, 0.5, 6.25e-6, 2.607291666666667e-3, 2.607291666666667e-3)]
PIVOT = (0.3, 0.0, 0.0)


def mjcf(solref):
    yaws = [CRANK, COUPLER - CRANK, ROCKER - COUPLER]
    body, close = "", ""
    previous = 0.0
    for name, yaw, (length, mass, ixx, iyy, izz) in zip(["crank", "coupler", "rocker"], yaws, LINKS):
        body += (f'<body name="{name}" pos="{previous!r} 0 0" euler="0 0 {yaw!r}">'
                 f'<joint type="hinge" axis="0 0 1"/>'
                 f'<inertial pos="{length / 2!r} 0 0" mass="{mass!r}" diaginertia="{ixx!r} {iyy!r} {izz!r}"/>')
        close += "</body>"
        previous = length
    ref = "" if solref is None else f' solref="{solref[0]!r} {solref[1]!r}"'
    return (f'<mujoco><compiler angle="radian"/>'
            f'<option timestep="{DT!r}" integrator="RK4" gravity="0 -9.81 0"/>'
            f'<worldbody>{body}{close}</worldbody>'
            f'<equality><connect body1="rocker" body2="world" anchor="{LINKS[2][0]!r} 0 0"{ref}/></equality>'
            f'</mujoco>')


def run(solref, repeats):
    model = mujoco.MjModel.from_xml_string(mjcf(solref))
    data = mujoco.MjData(model)
    rocker = model.body("rocker").id
    best = math.inf
    for _ in range(repeats):
        mujoco.mj_resetData(model, data)
        cpu = time.process_time()
        mujoco.mj_step(model, data, nstep=STEPS)
        best = min(best, time.process_time() - cpu)
    end = data.xpos[rocker] + data.xmat[rocker].reshape(3, 3) @ [LINKS[2][0], 0.0, 0.0]
    closure = math.dist(end, PIVOT)
    crank = float(data.qpos[0]) + CRANK
    # At t = 0 the loop is closed: the same point from the reset state.
    mujoco.mj_resetData(model, data)
    mujoco.mj_forward(model, data)
    start = data.xpos[rocker] + data.xmat[rocker].reshape(3, 3) @ [LINKS[2][0], 0.0, 0.0]
    return {"engine": f"MuJoCo {mujoco.__version__}",
            "solref": "default (0.02, 1)" if solref is None else f"({solref[0]}, {solref[1]})",
            "time_per_step_s": best / STEPS, "closure_after_2s": closure,
            "closure_at_0": math.dist(start, PIVOT), "crank_angle_after_2s": crank}


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for solref in [None, (2 * DT, 1.0)]:
        print(json.dumps(run(solref, repeats)))


if __name__ == "__main__":
    main()
