#!/usr/bin/env python3
"""The calibration chains `ferrodyn check --target` prices trees by (host/src/export/target.rs).

Writes into DIR (default: the current folder) 3-link chains that differ from an aligned
revolute chain (`aligned.toml`: hinges about y, x, y, joint origins and CGs along x, principal
inertias) in one thing each, and the aligned 6-link chain. Each moves in all three dimensions
(gravity and initial rates along no axis), so that soft-float arithmetic meets no zero
operands. Measure one with the documented commands (docs/export.md):

    ferrodyn export firmware DIR/skew_axes.toml --part mps2-an386 --precision f64 -o fw
    cd fw && cargo run --release      # prints `per step: N instructions`

Usage: calibration_chains.py [DIR]
"""

import math
import sys
from pathlib import Path

Y, X, Z = (0, 1, 0), (1, 0, 0), (0, 0, 1)
PRINCIPAL = "Ixx = 2e-4, Iyy = 0.01, Izz = 0.0101"


def chain(n=3, axes=(Y, X, Y, X, Y, X), step=(0.25, 0, 0), cg=(0.125, 0, 0),
          inertia=PRINCIPAL, kinds=None):
    """The TOML text of an n-link chain; `kinds[k]` the type of joint k (default revolute;
    None: link k floats). Offsets are dyadic, so that components meant to be zero are."""
    kinds = kinds or {}
    add = lambda a, b: tuple(x + y for x, y in zip(a, b))
    sub = lambda a, b: tuple(x - y for x, y in zip(a, b))
    vec = lambda v: "[" + ", ".join(repr(float(c)) for c in v) + "]"
    out = ['[simulation]\nend_time = 0.2\nstep = 1e-3\nintegrator = "rk4"\n'
           'gravity = [0.5, -0.3, -9.81]\n']
    anchors, a = [], (0.0, 0.0, 0.0)
    for _ in range(n):
        anchors.append(a)
        a = add(a, step)
    omega, w = [], (0.0, 0.0, 0.0)
    for k in range(n):
        length = math.sqrt(sum(c * c for c in axes[k]))
        if kinds.get(k, "revolute") != "prismatic":
            w = add(w, tuple(0.5 * c / length for c in axes[k]))
        omega.append(w)
    for k in range(n):
        out.append(f'[[body]]\nid = {k + 1}\nname = "l{k + 1}"\nmass = 1.0\n'
                   f'inertia = {{ {inertia} }}\npos = {vec(add(anchors[k], cg))}\n'
                   f'angular_velocity = {vec(omega[k])}\n')
    for k in range(n):
        kind = kinds.get(k, "revolute")
        if kind is None:
            continue
        parent = "ground" if k == 0 else f"l{k}"
        parent_pos = (0.0, 0.0, 0.0) if k == 0 else add(anchors[k - 1], cg)
        origin_i = sub(anchors[k], parent_pos)
        origin_j = sub(anchors[k], add(anchors[k], cg))
        axis = "" if kind == "spherical" else f", axis = {vec(axes[k])}"
        out.append(f'[[joint]]\nname = "j{k + 1}"\ntype = "{kind}"\nbody_i = "{parent}"\n'
                   f'body_j = "l{k + 1}"\nframe_i = {{ origin = {vec(origin_i)}{axis} }}\n'
                   f'frame_j = {{ origin = {vec(origin_j)}{axis} }}\n')
    return "\n".join(out)


def universal_at_root():
    """The aligned chain with a universal joint at the root, its frames' z along z."""
    text = chain(kinds={0: "universal"})
    at = text.index('name = "j1"')
    end = text.index("[[joint]]", at)
    root = text[at:end].replace("axis = [0.0, 1.0, 0.0]", "axis = [0.0, 0.0, 1.0]")
    return text[:at] + root + text[end:]


CHAINS = {
    "aligned": chain(),
    "aligned6": chain(n=6),
    "skew_axes": chain(axes=((0, 0.6, 0.8), (0.8, 0, 0.6), (0, 0.8, 0.6))),
    "skew_origins": chain(step=(0.25, 0.03125, 0.015625)),
    "skew_cgs": chain(cg=(0.125, 0.015625, 0.0078125)),
    "general_inertias": chain(inertia=PRINCIPAL + ", Ixy = 0.0001"),
    "symmetric_inertias": chain(inertia="Ixx = 2e-4, Iyy = 0.01, Izz = 0.01"),
    "prismatic": chain(axes=(Y, Z, X), kinds={1: "prismatic"}),
    "spherical": chain(kinds={0: "spherical"}),
    # The universal joint's first axis is its frames' x axis: frames about z at the root.
    "universal": universal_at_root(),
    "cylindrical": chain(kinds={0: "cylindrical"}),
    "free": chain(kinds={0: None}),
}

if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in CHAINS.items():
        (folder / f"{name}.toml").write_text(text)
        print(folder / f"{name}.toml")
