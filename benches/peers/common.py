"""Shared helpers of the peer scripts: the models JSON, accuracy measures, timing."""

import json
import math
import time

import numpy as np


def load_models(path):
    """The JSON written by `cargo run --release --features examples --example peer_models -- models PATH`."""
    with open(path) as f:
        return json.load(f)


def energy_scale(entry, g):
    """Energy released when the model hangs straight down from its initial rest position:
    the scale of the relative energy drift (same definition as examples/peer_models.rs; a
    model may give its own)."""
    if "energy_scale" in entry:
        return entry["energy_scale"]
    if entry["kind"] == "pendulum":
        return entry["mass"] * g * entry["length"] * (1.0 - math.cos(entry["initial_angle"]))
    n = entry["links"]
    return g * n * n / 2.0


def upward_crossings(t, x, v):
    """Upward zero crossings of x(t) by cubic Hermite interpolation with the rate v
    (same as examples/peer_models.rs)."""
    out = []
    for i in range(len(t) - 1):
        x0, x1 = x[i], x[i + 1]
        if x0 < 0.0 and x1 >= 0.0:
            h = t[i + 1] - t[i]
            v0, v1 = v[i] * h, v[i + 1] * h

            def p(s):
                s2, s3 = s * s, s * s * s
                return ((2 * s3 - 3 * s2 + 1) * x0 + (s3 - 2 * s2 + s) * v0
                        + (-2 * s3 + 3 * s2) * x1 + (s3 - s2) * v1)

            def dp(s):
                s2 = s * s
                return ((6 * s2 - 6 * s) * x0 + (3 * s2 - 4 * s + 1) * v0
                        + (-6 * s2 + 6 * s) * x1 + (3 * s2 - 2 * s) * v1)

            s = x0 / (x0 - x1)
            for _ in range(20):
                s -= p(s) / dp(s)
            out.append(t[i] + s * h)
    return out


def period_measures(entry, t, theta, rate):
    """Mean period from upward crossings and its relative error vs the exact period."""
    c = upward_crossings(np.asarray(t), np.asarray(theta), np.asarray(rate))
    if len(c) < 2:
        return {}
    period = (c[-1] - c[0]) / (len(c) - 1)
    exact = entry["exact_period"]
    return {"period": period, "period_error_rel": abs(period - exact) / exact}


def best_time(run, repeats=3):
    """Smallest CPU time and smallest wall time (s) of `repeats` calls of run(). CPU time is
    the primary figure on a shared machine (ours measures the same, CLOCK_PROCESS_CPUTIME_ID)."""
    best, best_wall = math.inf, math.inf
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        run()
        best = min(best, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best, best_wall
