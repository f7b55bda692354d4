"""Compare a Ferrodyn run of the spin-up beam with the independent reference.

Reads our run's sensors.csv (a `time` column and the tip's transverse deflection in the hub
frame, by default `tip_transverse_uy`), reference.csv and linear.csv (written by reference.py,
next to this script), prints the peak |u_y| with its time and the final u_y of both and their
differences, and plots ours, the reference and the linear theory without geometric stiffening.

usage: compare.py [SENSORS_CSV] [--column NAME] [--reference CSV] [--linear CSV] [--plot PNG]
Without SENSORS_CSV only the reference and the linear theory are plotted.
"""

import argparse
import csv
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_columns(path):
    """{header: float array} of a CSV file with one header line."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = [h.strip() for h in rows[0]]
    data = np.array([[float(v) for v in r] for r in rows[1:] if r], dtype=float)
    return {h: data[:, i] for i, h in enumerate(header)}


def peak(t, u):
    k = int(np.argmax(np.abs(u)))
    return u[k], t[k]


def report(name, t, u):
    value, at = peak(t, u)
    print(f"{name:<10} max|u_y| = {abs(value):.5f} m (u_y = {value:+.5f}) at t = {at:.2f} s, "
          f"final u_y({t[-1]:.2f} s) = {u[-1]:+.5f} m")
    return value, at


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("sensors", nargs="?", help="our run's sensors.csv")
    p.add_argument("--column", default="tip_transverse_uy", help="our tip u_y column (m)")
    p.add_argument("--reference", default=os.path.join(HERE, "reference.csv"))
    p.add_argument("--linear", default=os.path.join(HERE, "linear.csv"))
    p.add_argument("--plot", default=os.path.join(ROOT, "docs", "figures", "spin_up.png"))
    args = p.parse_args()

    ref = read_columns(args.reference)
    lin = read_columns(args.linear)
    t_ref, u_ref = ref["time"], ref["tip_uy"]
    ref_peak, ref_at = report("reference", t_ref, u_ref)

    ours = None
    if args.sensors:
        cols = read_columns(args.sensors)
        if args.column not in cols:
            sys.exit(f"{args.sensors} has no column {args.column!r}; it has: {', '.join(cols)}")
        t, u = cols["time"], cols[args.column]
        ours = (t, u)
        our_peak, our_at = report("ours", t, u)
        scale = abs(ref_peak)
        # compare on the common time span at our output times
        span = t <= t_ref[-1] + 1e-9
        diff = u[span] - np.interp(t[span], t_ref, u_ref)
        print(f"difference: peak {(abs(our_peak) - abs(ref_peak)) / abs(ref_peak) * 100:+.2f} %, "
              f"peak time {our_at - ref_at:+.2f} s, final u_y {u[-1] - np.interp(t[-1], t_ref, u_ref):+.2e} m "
              f"({(u[-1] - np.interp(t[-1], t_ref, u_ref)) / scale * 100:+.2f} % of the reference peak), "
              f"max |u_ours - u_ref| = {np.abs(diff).max():.2e} m "
              f"({np.abs(diff).max() / scale * 100:.2f} % of the peak) over 0-{t[span][-1]:.2f} s")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    limit = 1.6 * abs(ref_peak)
    t_lin, u_lin = lin["time"], lin["tip_uy"]
    shown = np.abs(u_lin) <= limit
    last = np.argmax(~shown) if (~shown).any() else len(u_lin)
    ax.plot(t_lin[:last], u_lin[:last], ":", color="tab:red",
            label=f"linear theory without geometric stiffening (|u_y| = {abs(u_lin[-1]):.1e} m at 20 s)")
    best = "Exudyn ANCF cable" if "tip_uy_chain" in ref else "discrete elastica, numpy/scipy"
    ax.plot(t_ref, u_ref, "-", color="black", lw=2, label=f"reference ({best})")
    if "tip_uy_chain" in ref:
        ax.plot(t_ref, ref["tip_uy_chain"], "--", color="tab:green", lw=1.2,
                label="reference (discrete elastica, numpy/scipy)")
    if ours is not None:
        ax.plot(*ours, "-", color="tab:blue", lw=1.2, label="Ferrodyn")
    ax.axvline(15.0, color="grey", lw=0.8)
    ax.text(15.1, 0.9 * limit, "end of spin-up (Ts = 15 s)", fontsize=8, color="grey", va="top")
    ax.set_ylim(-limit, limit)
    ax.set_xlim(0.0, t_ref[-1])
    ax.set_xlabel("time t (s)")
    ax.set_ylabel("tip transverse deflection u_y in the hub frame (m)")
    ax.set_title("Spin-up beam (Kane, Ryan & Banerjee 1987): L = 10 m, Ωs = 6 rad/s, Ts = 15 s")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.plot)), exist_ok=True)
    fig.savefig(args.plot, dpi=120)
    print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
