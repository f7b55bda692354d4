#!/usr/bin/env python3
"""Writes bennett.toml: a Bennett linkage, the classic over-constrained spatial 4R loop.

Four revolute joints, links in Denavit–Hartenberg form (joint angle θ_i about z, then a_i along
x and twist α_i about x), lengths a, b, a, b and twists α, −β, α, −β with a / sin α = b / sin β
(Bennett 1903). Link 4 is the ground, links 1–3 move. The loop closes for every θ1 with
θ3 = θ1, θ4 = θ2 and tan(θ1/2) tan(θ2/2) = sin((β' + α)/2) / sin((β' − α)/2), β' = π − β;
the script checks the closure to round-off. Grübler: 6·3 − 4·5 = −2, yet the loop moves with
one degree of freedom: 3 of the 20 rows are redundant, and which 3 changes along the motion
(the linkage folds flat at θ1 = 0 and θ1 = π). Links are uniform rods of 2 kg/m along their
common normals. Run from this folder: python3 gen_bennett.py > bennett.toml
"""
import math
import sys

A, B = 0.2, 0.3
ALPHA = math.radians(30.0)
BETA = math.asin(B * math.sin(ALPHA) / A)
THETA1 = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
DENSITY = 2.0


def matmul(p, q):
    return [[sum(p[i][k] * q[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def dh(theta, a, alpha):
    """Rz(θ) · Tx(a) · Rx(α) as a 4×4 transform."""
    ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
    return [
        [ct, -st * ca, st * sa, a * ct],
        [st, ct * ca, -ct * sa, a * st],
        [0.0, sa, ca, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]


def inverse(t):
    r = [[t[j][i] for j in range(3)] for i in range(3)]
    p = [-sum(r[i][k] * t[k][3] for k in range(3)) for i in range(3)]
    return [r[0] + [p[0]], r[1] + [p[1]], r[2] + [p[2]], [0.0, 0.0, 0.0, 1.0]]


def quaternion(t):
    """[w, x, y, z] of the rotation part (Shepperd's method)."""
    m = t
    trace = m[0][0] + m[1][1] + m[2][2]
    if trace > 0:
        s = 2.0 * math.sqrt(1.0 + trace)
        return [s / 4, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s]
    i = max(range(3), key=lambda k: m[k][k])
    j, k = (i + 1) % 3, (i + 2) % 3
    s = 2.0 * math.sqrt(1.0 + m[i][i] - m[j][j] - m[k][k])
    q = [0.0] * 4
    q[0] = (m[k][j] - m[j][k]) / s
    q[1 + i] = s / 4
    q[1 + j] = (m[j][i] + m[i][j]) / s
    q[1 + k] = (m[k][i] + m[i][k]) / s
    return q


beta_prime = math.pi - BETA
ratio = math.sin((beta_prime + ALPHA) / 2) / math.sin((beta_prime - ALPHA) / 2)
theta2 = 2.0 * math.atan2(ratio, math.tan(THETA1 / 2))
thetas = [THETA1, theta2, THETA1, theta2]
links = [(A, ALPHA), (B, -BETA), (A, ALPHA), (B, -BETA)]
frames = [[[float(i == j) for j in range(4)] for i in range(4)]]
for theta, (a, alpha) in zip(thetas, links):
    frames.append(matmul(frames[-1], dh(theta, a, alpha)))
closure = max(abs(frames[4][i][j] - float(i == j)) for i in range(3) for j in range(4))
assert closure < 1e-14, f"the loop does not close: {closure}"

f = repr
print(f"""# A Bennett linkage: the classic over-constrained spatial 4R loop (written by gen_bennett.py).
# Links a = {A} m and b = {B} m, twists 30° and −{math.degrees(BETA):.4f}° (a / sin α = b / sin β),
# uniform rods of {DENSITY} kg/m, released from rest at θ1 = {THETA1} rad under gravity −z. Grübler
# 6·3 − 4·5 = −2, yet it moves with one degree of freedom: 3 rows are redundant, and which 3
# changes as it swings through the poses where it folds flat (θ1 = 0 and π). The solver chooses
# them anew when the rows it keeps become nearly dependent (docs/cli.md, redundant constraints).

[simulation]
end_time = 10.0
step = 1e-3
integrator = "rk4"
gravity = [0.0, 0.0, -9.81]
output_interval = 1e-2
""")
names = ["link1", "link2", "link3"]
for i in range(1, 4):
    length = links[i - 1][0]
    mass = DENSITY * length
    inertia = mass * length * length / 12.0
    frame = frames[i]
    print(f"""[[body]]
id = {i}
name = "{names[i - 1]}"
mass = {f(mass)}
cg = [{f(-length / 2)}, 0.0, 0.0]
inertia = {{ Ixx = 1e-6, Iyy = {f(inertia)}, Izz = {f(inertia)} }}
pos = [{f(frame[0][3])}, {f(frame[1][3])}, {f(frame[2][3])}]
orient = {{ quaternion = [{", ".join(f(v) for v in quaternion(frame))}] }}
""")


def joint_frame(origin, axis):
    return "{ origin = [%r, %r, %r], axis = [%r, %r, %r] }" % (*origin, *axis)


for k in range(1, 5):
    # Joint k turns about z of frame k − 1: on link k − 1 (or the ground) at that frame's origin,
    # on link k at the same point and axis seen from frame k.
    back = inverse(dh(thetas[k - 1], *links[k - 1]))
    origin_j = [back[i][3] for i in range(3)]
    axis_j = [back[i][2] for i in range(3)]
    if k < 4:
        side_i = "ground" if k == 1 else names[k - 2]
        frame_i, side_j, frame_j = joint_frame([0.0] * 3, [0.0, 0.0, 1.0]), names[k - 1], joint_frame(origin_j, axis_j)
    else:
        side_i, frame_i = names[2], joint_frame([0.0] * 3, [0.0, 0.0, 1.0])
        side_j = "ground"
        frame_j = joint_frame([frames[3][i][3] for i in range(3)], [frames[3][i][2] for i in range(3)])
    print(f"""[[joint]]
name = "j{k}"
type = "revolute"
body_i = "{side_i}"
body_j = "{side_j}"
frame_i = {frame_i}
frame_j = {frame_j}
""")
print("""[output]
states = true
energy = true
reactions = true""")
