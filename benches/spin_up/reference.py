"""Independent references for the Kane-Ryan-Banerjee (1987) spin-up beam.

A 10 m aluminium-like beam (E = 7e10 Pa, rho = 3000 kg/m^3, A = 4e-4 m^2, I = 2e-7 m^4) is
clamped at the rotation axis of a hub whose angle follows the spin-up profile
theta(t) = (Ws/Ts)[t^2/2 + (Ts/2pi)^2 (cos(2pi t/Ts) - 1)] for t < Ts, Ws (t - Ts/2) after,
with Ts = 15 s and Ws = 6 rad/s; no gravity. The output is the tip's transverse deflection
u_y(t) in the hub frame (the beam lies along the hub's x axis, rotation about z).

Methods, none sharing code with Ferrodyn:
  exudyn  - Exudyn's ANCFCable2D elements (extensible, geometrically exact Euler-Bernoulli
            cable), root position held at the axis and root slope driven to (cos th, sin th) by
            coordinate constraints with time-dependent offsets; Exudyn's implicit
            generalized-alpha solver.
  chain   - a discrete elastica in numpy/scipy: N rigid uniform links joined by rotational
            springs EI/l (exact planar kinematics, inextensible), written relative to the hub,
            integrated by scipy's Radau; converges to the inextensible Kirchhoff rod as N grows.
  linear  - the conventional linear theory: modes of the non-rotating cantilever, driven by
            the hub's angular acceleration, with the centrifugal softening term but WITHOUT the
            geometric (centrifugal) stiffening. With Ws above the first bending frequency
            (3.80 rad/s) its first mode loses all stiffness and diverges.

usage: reference.py [--quick] [--no-exudyn] [--elements N]
Writes reference.csv (time,tip_uy[,tip_uy_chain]) and linear.csv (time,tip_uy) next to itself.
"""

import argparse
import math
import os
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

L, E, RHO, AREA, INERTIA = 10.0, 7e10, 3000.0, 4e-4, 2e-7
TS, WS, T_END = 15.0, 6.0, 20.0
EI, EA, MU = E * INERTIA, E * AREA, RHO * AREA
SAMPLE = 0.01
HERE = os.path.dirname(os.path.abspath(__file__))


def hub_angle(t):
    """theta, theta', theta'' of the spin-up profile at time t (scalar)."""
    if t < TS:
        w = 2.0 * math.pi / TS
        th = WS / TS * (t * t / 2.0 + (TS / (2.0 * math.pi)) ** 2 * (math.cos(w * t) - 1.0))
        thd = WS / TS * (t - math.sin(w * t) / w)
        thdd = WS / TS * (1.0 - math.cos(w * t))
        return th, thd, thdd
    return WS * (t - TS / 2.0), WS, 0.0


def sample_times():
    return np.round(np.arange(0.0, T_END + 0.5 * SAMPLE, SAMPLE), 10)


# ---------------------------------------------------------------------------------------------
# (a) Exudyn ANCF cable
# ---------------------------------------------------------------------------------------------
def exudyn_tip(n_elements, dt, spectral_radius=0.9):
    """Tip u_y in the hub frame at sample_times() from Exudyn's ANCFCable2D model."""
    import exudyn as exu
    from exudyn.itemInterface import (MarkerNodeCoordinate, NodePoint2DSlope1, NodePointGround,
                                      ObjectANCFCable2D, ObjectConnectorCoordinate, ObjectGround,
                                      SensorNode)

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    le = L / n_elements
    nodes = [mbs.AddNode(NodePoint2DSlope1(referenceCoordinates=[i * le, 0.0, 1.0, 0.0]))
             for i in range(n_elements + 1)]
    for i in range(n_elements):
        mbs.AddObject(ObjectANCFCable2D(nodeNumbers=[nodes[i], nodes[i + 1]], physicsLength=le,
                                        physicsMassPerLength=MU, physicsBendingStiffness=EI,
                                        physicsAxialStiffness=EA))
    mbs.AddObject(ObjectGround())
    ground_node = mbs.AddNode(NodePointGround())
    ground_coord = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ground_node, coordinate=0))

    # Root clamp: position at the axis, slope along the hub's x axis (coordinate constraints act on
    # the displacement part of the coordinates, without the reference). Driving the slope vector to
    # the unit vector also fixes the root's axial strain to zero; the centrifugal strain there is
    # rho*W^2*L^2/(2E) = 7.7e-5 at most, far below what matters for u_y.
    offsets = [0, 0,
               lambda mbs, t, item, off: math.cos(hub_angle(t)[0]) - 1.0,  # minus the reference
               lambda mbs, t, item, off: math.sin(hub_angle(t)[0])]
    for c in range(4):
        m = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=c))
        mbs.AddObject(ObjectConnectorCoordinate(markerNumbers=[ground_coord, m],
                                                offsetUserFunction=offsets[c]))
    sensor = mbs.AddSensor(SensorNode(nodeNumber=nodes[-1], storeInternal=True,
                                      outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()

    s = exu.SimulationSettings()
    s.timeIntegration.numberOfSteps = int(round(T_END / dt))
    s.timeIntegration.endTime = T_END
    s.timeIntegration.verboseMode = 0
    s.timeIntegration.generalizedAlpha.spectralRadius = spectral_radius
    s.solution.file.write = False
    s.solution.file.writeInitialValues = False
    s.solution.sensors.writePeriod = SAMPLE
    s.show.statistics = False
    s.show.computationTime = False
    ok = exu.SolveDynamic(mbs, s, showHints=True)
    if not ok:
        raise RuntimeError("Exudyn did not converge")
    data = mbs.GetSensorStoredData(sensor)  # columns t, x, y, z (global)
    t = data[:, 0]
    th = np.array([hub_angle(ti)[0] for ti in t])
    uy = -np.sin(th) * data[:, 1] + np.cos(th) * data[:, 2]
    return np.interp(sample_times(), t, uy)


# ---------------------------------------------------------------------------------------------
# (b) discrete elastica (rigid links + rotational springs) in the hub frame
# ---------------------------------------------------------------------------------------------
class Chain:
    """A discrete elastica with n rotational springs EI/l at x = (j + 1/2) l, l = L/n.

    The springs sit at the midpoints of n equal cells (midpoint rule for the bending energy, so
    the error falls as 1/n^2): a rigid half link [0, l/2] moves with the hub, then n - 1 links of
    length l and a last half link. phi_k is link k's angle relative to the hub. The kinetic energy
    in the inertial frame with absolute angles psi = theta + phi gives the classical chain terms
    M_ij = B_ij cos(psi_i - psi_j) and sum_j B_ij sin(psi_i - psi_j) psi_j'^2.
    """

    def __init__(self, n):
        self.n = n
        cell = L / n
        lengths = np.array([cell / 2.0] + [cell] * (n - 1) + [cell / 2.0])  # hub segment first
        masses = MU * lengths
        # c[k, j]: lever of link j's rotation on link k's centre of mass
        c = np.tril(np.broadcast_to(lengths, (n + 1, n + 1)), k=-1) + np.diag(lengths / 2.0)
        self.b = c.T @ (masses[:, None] * c) + np.diag(masses * lengths ** 2 / 12.0)
        self.lengths = lengths[1:]
        k = EI / cell
        self.K = k * (2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1))
        self.K[-1, -1] = k  # the free end has no spring beyond it

    def rhs(self, t, y):
        n = self.n
        _, thd, thdd = hub_angle(t)
        phi = np.concatenate([[0.0], y[:n]])  # the hub segment never bends
        psid = thd + np.concatenate([[0.0], y[n:]])
        d = phi[:, None] - phi[None, :]  # psi_i - psi_j = phi_i - phi_j
        mass = self.b * np.cos(d)
        quad = (self.b * np.sin(d)) @ (psid * psid)
        # rows of the moving links; every link (and the hub segment) carries theta''
        f = -quad[1:] - self.K @ y[:n] - mass[1:].sum(axis=1) * thdd
        return np.concatenate([y[n:], np.linalg.solve(mass[1:, 1:], f)])

    def tip_uy(self, y):
        return self.lengths @ np.sin(y[: self.n])


def chain_tip(n_links, rtol=1e-8):
    chain = Chain(n_links)
    ts = sample_times()
    sol = solve_ivp(chain.rhs, (0.0, T_END), np.zeros(2 * n_links), method="Radau", t_eval=ts,
                    rtol=rtol, atol=rtol * 1e-3)
    if not sol.success:
        raise RuntimeError(sol.message)
    return chain.tip_uy(sol.y)


# ---------------------------------------------------------------------------------------------
# (c) linear theory without geometric stiffening
# ---------------------------------------------------------------------------------------------
def linear_tip(n_modes=4):
    """q_k'' + (w_k^2 - theta'^2) q_k = -theta'' G_k with mass-normalised cantilever modes."""
    roots = [1.87510407, 4.69409113, 7.85475744, 10.99554073, 14.13716839, 17.27875953]
    x = np.linspace(0.0, L, 4001)
    omega2, gamma, tip = [], [], []
    for bl in roots[:n_modes]:
        b = bl / L
        sigma = (math.cosh(bl) + math.cos(bl)) / (math.sinh(bl) + math.sin(bl))
        shape = np.cosh(b * x) - np.cos(b * x) - sigma * (np.sinh(b * x) - np.sin(b * x))
        shape /= math.sqrt(np.trapezoid(MU * shape * shape, x))
        omega2.append(EI / MU * b ** 4)
        gamma.append(np.trapezoid(MU * x * shape, x))
        tip.append(shape[-1])
    omega2, gamma, tip = map(np.array, (omega2, gamma, tip))

    def rhs(t, y):
        _, thd, thdd = hub_angle(t)
        q, qd = y[:n_modes], y[n_modes:]
        return np.concatenate([qd, -(omega2 - thd * thd) * q - thdd * gamma])

    sol = solve_ivp(rhs, (0.0, T_END), np.zeros(2 * n_modes), method="DOP853",
                    t_eval=sample_times(), rtol=1e-10, atol=1e-12)
    return tip @ sol.y[:n_modes]


# ---------------------------------------------------------------------------------------------
def summary(name, uy, seconds=None):
    ts = sample_times()
    k = int(np.argmax(np.abs(uy)))
    extra = f"  ({seconds:.1f} s)" if seconds is not None else ""
    print(f"{name:<28} max|u_y| = {abs(uy[k]):.5f} m at t = {ts[k]:5.2f} s, "
          f"min u_y = {uy.min():+.5f}, u_y(20 s) = {uy[-1]:+.5f} m{extra}", flush=True)


def timed(f, *args, **kw):
    t0 = time.perf_counter()
    out = f(*args, **kw)
    return out, time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="one resolution per method, no convergence study")
    p.add_argument("--no-exudyn", action="store_true")
    p.add_argument("--elements", type=int, default=16,
                   help="ANCF elements of the Exudyn result (the mesh check uses half as many)")
    args = p.parse_args()
    ts = sample_times()

    lin, sec = timed(linear_tip, 4)
    summary("linear, 4 modes", lin, sec)
    lin6, _ = timed(linear_tip, 6)
    print(f"  linear: 4 vs 6 modes, max relative difference {np.abs(lin - lin6).max() / np.abs(lin6).max():.1e}; "
          f"|u_y| at 10/15/20 s = {abs(lin[1000]):.3g} / {abs(lin[1500]):.3g} / {abs(lin[-1]):.3g} m")

    chains = {}
    for n in ([32] if args.quick else [8, 16, 32]):
        chains[n], sec = timed(chain_tip, n)
        summary(f"chain, {n} springs", chains[n], sec)
    best_n = max(chains)
    chain = chains[best_n]
    if len(chains) == 3:
        c8, c16, c32 = chains[8], chains[16], chains[32]
        print(f"  chain: max|16-8| = {np.abs(c16 - c8).max():.2e}, max|32-16| = "
              f"{np.abs(c32 - c16).max():.2e} m (ratio {np.abs(c16 - c8).max() / np.abs(c32 - c16).max():.2f})")
        # second-order convergence in 1/n: extrapolate to the continuum
        chain = c32 + (c32 - c16) / 3.0
        summary("chain, Richardson 16/32", chain)
        tight, sec = timed(chain_tip, 8, rtol=1e-10)
        print(f"  chain: rtol 1e-8 vs 1e-10 at 8 springs, max diff = {np.abs(tight - c8).max():.2e} m ({sec:.1f} s)")

    ancf = None
    if not args.no_exudyn:
        runs = {}
        # Exudyn's time grows steeply with the elements here (8: 30 s, 16: 200 s, 32 at 1e-3 s or
        # 5e-4 s: unfinished after 15 min), and 8 -> 16 changes u_y by at most 1.4e-4 m
        n = args.elements
        grid = [(n, 5e-4)] if args.quick else [(n // 2, 5e-4), (n // 2, 2.5e-4), (n, 5e-4)]
        for n, dt in grid:
            runs[(n, dt)], sec = timed(exudyn_tip, n, dt)
            summary(f"exudyn, {n} el, dt {dt:g}", runs[(n, dt)], sec)
        ancf = runs[(n, 5e-4)]
        if not args.quick:
            print(f"  exudyn: max|{n} el - {n // 2} el| = {np.abs(runs[(n, 5e-4)] - runs[(n // 2, 5e-4)]).max():.2e} m, "
                  f"max|dt/2 - dt| ({n // 2} el) = {np.abs(runs[(n // 2, 2.5e-4)] - runs[(n // 2, 5e-4)]).max():.2e} m")
        d = ancf - chain
        print(f"  exudyn vs chain: max|diff| = {np.abs(d).max():.2e} m "
              f"({np.abs(d).max() / np.abs(chain).max() * 100:.2f} % of the peak), at 20 s {d[-1]:+.2e} m")

    best = ancf if ancf is not None else chain
    cols = [ts, best] + ([chain] if ancf is not None else [])
    header = "time,tip_uy" + (",tip_uy_chain" if ancf is not None else "")
    np.savetxt(os.path.join(HERE, "reference.csv"), np.column_stack(cols), delimiter=",",
               header=header, comments="", fmt=["%.2f"] + ["%.7e"] * (len(cols) - 1))
    np.savetxt(os.path.join(HERE, "linear.csv"), np.column_stack([ts, lin]), delimiter=",",
               header="time,tip_uy", comments="", fmt=["%.2f", "%.7e"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
