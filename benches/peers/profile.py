"""Per-stage instruction counts from callgrind_annotate --inclusive output (see profile.sh).

usage: profile.py LINKS:STEPS:FILE ...
"""

import re
import sys

LINE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+[^:]*:(.+?)(?: \[[^\]]*\])?$")

# The function whose inclusive count is one whole step.
WHOLE_STEP = "rigid::step::advance"
# (label, function-name suffix); inclusive counts, the largest line of each name.
STAGES = [
    ("whole step", WHOLE_STEP),
    ("4 derivative evaluations (RK4 stages)", "OdeSystem<R>>::derivative"),
    ("projection onto Φ = 0, Φ̇ = 0 after the step", "OdeSystem<R>>::accept_step"),
    ("constraint rows Φ, Φ_q, γ (evaluate_joint)", "RigidSystem<R>::constraints"),
    ("Schur complement Φ_q M⁻¹ Φ_qᵀ: build + LDLᵀ (4 per step)", "RigidSystem<R>::factor_constraint_matrix"),
    ("  of which LDLᵀ factorization (skyline)", "skyline::factorize_semidefinite"),
    ("triangular solves (skyline)", "skyline::solve"),
]


def counts(path):
    best = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            n, name = int(m.group(1).replace(",", "")), m.group(2).strip()
            for _, suffix in STAGES:
                if name.endswith(suffix):
                    best[suffix] = max(best.get(suffix, 0), n)
    return best


def main(args):
    runs = []
    for a in args:
        links, steps, path = a.split(":", 2)
        runs.append((int(links), int(steps), counts(path)))
    head = " | ".join(f"{links} links (instr/step, %)" for links, _, _ in runs)
    print("## Profile: where our chain step goes (callgrind)\n")
    print("`bash benches/peers/profile.sh`: valgrind callgrind on `peer_models profile LINKS STEPS` (RK4, "
          "dt = 1e-3, from rest), inclusive instruction counts per stage divided by the steps. Instruction "
          "counts do not depend on the machine's load.\n")
    print(f"| stage | {head} |")
    print("|---|" + "---:|" * len(runs))
    for label, suffix in STAGES:
        cells = []
        for _, steps, c in runs:
            total = c.get(WHOLE_STEP, 0)
            v = c.get(suffix)
            cells.append("—" if v is None else f"{v / steps:,.0f} ({100 * v / total:.0f}%)")
        print(f"| {label} | " + " | ".join(cells) + " |")
    first, last = runs[0], runs[-1]
    for (l0, s0, c0), (l1, s1, c1) in [(r, q) for r in runs for q in runs if r[0] == 20 and q[0] == 100]:
        ratio = (c1[WHOLE_STEP] / s1) / (c0[WHOLE_STEP] / s0)
        print(f"\nInstructions per step grow {ratio:.2f}× from {l0} to {l1} links (linear in the links: "
              "the Schur complement is banded, each joint's 5 rows couple only with its neighbours').")
    del first, last
    for links, steps, c in runs:
        if links == 20:
            f = c["skyline::factorize_semidefinite"] / steps / 4
            print(f"\nFor 20 links we carry 7 × 20 = 140 coordinates and 5 × 20 = 100 constraint rows, and per step "
                  f"evaluate all 100 rows 5 times (4 RK4 stages + the projection), build M⁻¹Φ_qᵀ and the banded "
                  f"100 × 100 Schur complement, and factorize it 4 times (the first stage reuses the projection's "
                  f"factor, made at the same poses; {f:,.0f} instructions each, "
                  f"{f / 100:,.0f} per row for about 40 multiply-adds per row: a chain joint's rows are factored "
                  "as dense fixed-size blocks, so the rest is loading and storing the blocks and the pivot tests: see "
                  "docs/performance.md). MuJoCo integrates the 20 hinge angles: a 20 × 20 mass matrix by the "
                  "composite-rigid-body algorithm and its LDLᵀ, no constraint rows, no projection.")


if __name__ == "__main__":
    main(sys.argv[1:])
