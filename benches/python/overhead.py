"""Overhead of the Python package, by hand (not in CI): CPU time of
  1. ferrodyn.step(nstep=1) per call minus the step's own time (from nstep=10000), beside
     mujoco.mj_step's per-call overhead on MuJoCo's own model of the same chain;
  2. a 20-link chain stepped 10,000 times with nstep=10000 against the same steps in Rust
     (`ferrodyn run`'s µs/step over the same scene);
  3. Batch of 1,000 chain5 × 1,000 steps against mujoco.rollout on the same thread count.
Run: python benches/python/overhead.py [--threads N]   (mujoco optional: pip install mujoco)"""

import argparse
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import ferrodyn

REPO = Path(__file__).resolve().parents[2]
SCENES = REPO / "scenes"


def cpu(call, repeat=1):
    """CPU seconds of the process for `call()` (all threads), the best of `repeat`."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best


def chain_mjcf(links):
    """MuJoCo's model of the chain: unit rods (1 kg, radius 10 mm) on hinges about y, released
    along +x, RK4 at 1 ms (benches/peers builds the same chain)."""
    body = ""
    for k in reversed(range(links)):
        pos = "0 0 0" if k == 0 else "1 0 0"
        body = (
            f'<body pos="{pos}"><joint type="hinge" axis="0 1 0"/>'
            f'<inertial pos="0.5 0 0" mass="1" diaginertia="5e-05 0.08335833333333333 0.08335833333333333"/>'
            f"{body}</body>"
        )
    return (
        '<mujoco><option timestep="0.001" integrator="RK4"/>'
        f"<worldbody>{body}</worldbody></mujoco>"
    )


def ferrodyn_overhead(model, calls=20000):
    data = model.new_data()
    per_step = cpu(lambda: ferrodyn.step(model, data, 10000), 3) / 10000
    per_call = cpu(lambda: [ferrodyn.step(model, data) for _ in range(calls)], 3) / calls
    return per_call, per_step


def mujoco_overhead(mujoco, m, calls=20000):
    d = mujoco.MjData(m)
    per_step = cpu(lambda: mujoco.mj_step(m, d, nstep=10000), 3) / 10000
    per_call = cpu(lambda: [mujoco.mj_step(m, d) for _ in range(calls)], 3) / calls
    return per_call, per_step


def rust_loop_us(scene, end, dt):
    """CPU µs per step of `ferrodyn run` over SCENE with no output files (its drive loop: the
    same Simulation::step): the CPU time of a run to END less that of a one-step run (start-up,
    loading, compiling), per step."""
    cli = Path(os.environ.get("FERRODYN_CLI", REPO / "target" / "release" / "ferrodyn"))
    if not cli.is_file():
        return None
    quiet = "\n[output]\nstates = false\nenergy = false\nreactions = false\nplots = false\n"

    def child_cpu(until):
        with tempfile.TemporaryDirectory() as out:
            path = Path(out) / "scene.toml"
            path.write_text(scene.read_text() + quiet)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [str(cli), "run", str(path), "--end", str(until), "--out", out, "--force",
                 "--output-interval", str(until)],
                capture_output=True, check=True,
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    steps = round(end / dt)
    full = min(child_cpu(end) for _ in range(3))
    one = min(child_cpu(dt) for _ in range(3))
    return 1e6 * (full - one) / (steps - 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    try:
        import mujoco
    except ImportError:
        mujoco = None
        print("(mujoco not installed: its columns are left out)")

    chain5 = ferrodyn.load(SCENES / "chain5.toml")
    per_call, per_step = ferrodyn_overhead(chain5)
    print(f"1. chain5 step(nstep=1): {1e6 * per_call:.3f} µs/call, step {1e6 * per_step:.3f} µs "
          f"-> overhead {1e6 * (per_call - per_step):.3f} µs")
    if mujoco:
        m = mujoco.MjModel.from_xml_string(chain_mjcf(5))
        mc, ms = mujoco_overhead(mujoco, m)
        print(f"   mujoco mj_step: {1e6 * mc:.3f} µs/call, step {1e6 * ms:.3f} µs -> overhead {1e6 * (mc - ms):.3f} µs")

    chain20 = ferrodyn.load(SCENES / "chain20.toml")
    data = chain20.new_data()
    seconds = cpu(lambda: ferrodyn.step(chain20, data, 10000))
    rust = rust_loop_us(SCENES / "chain20.toml", 10.0, chain20.timestep)
    line = f"2. chain20 nstep=10000: {1e6 * seconds / 10000:.3f} µs/step"
    if rust:
        line += f"; ferrodyn run (Rust loop) {rust:.3f} µs/step -> ratio {1e6 * seconds / 10000 / rust:.3f}"
    print(line)

    n, nstep = 1000, 1000
    initial = np.zeros((n, 10))
    initial[:, 5] = np.linspace(0, 1, n)
    start, cpu_start = time.perf_counter(), time.process_time()
    ferrodyn.rollout(chain5, initial, nstep=nstep, threads=args.threads)
    ours, ours_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(f"3. rollout 1000 chain5 x 1000 steps on {args.threads} threads: {ours:.3f} s wall, {ours_cpu:.3f} s CPU")
    if mujoco:
        from mujoco import rollout as mj_rollout

        m = mujoco.MjModel.from_xml_string(chain_mjcf(5))
        datas = [mujoco.MjData(m) for _ in range(args.threads)]
        state = np.zeros((n, mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)))
        state[:, 1 + m.nq] = np.linspace(0, 1, n)
        start, cpu_start = time.perf_counter(), time.process_time()
        mj_rollout.rollout(m, datas, state, nstep=nstep)
        theirs, theirs_cpu = time.perf_counter() - start, time.process_time() - cpu_start
        print(f"   mujoco.rollout: {theirs:.3f} s wall, {theirs_cpu:.3f} s CPU -> ours / theirs = "
              f"{ours / theirs:.2f} (wall), {ours_cpu / theirs_cpu:.2f} (CPU)")


if __name__ == "__main__":
    main()
