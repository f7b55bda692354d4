"""A PD controller in Python closing the loop on the HIL arm at 1 kHz: every millisecond it
reads the encoder, computes the motor torque and writes it to the torque input (µN·m), as the
HIL rig's controller does with the exported firmware. The arm starts horizontal and is brought
to 0.5 rad, holding it against gravity with the PD's offset plus a gravity feed-forward."""

import math
from pathlib import Path

import ferrodyn

scene = Path(__file__).resolve().parents[2] / "scenes" / "hil_arm.toml"
model = ferrodyn.load(scene)
data = model.new_data()
assert model.timestep == 1e-3, "the scene steps at 1 kHz"
angle, rate = model.sensor_channels.index("encoder_angle"), model.sensor_channels.index("encoder_rate")
scale = model.input_scales[0]  # N·m per port unit (µN·m)

target, kp, kd = 0.5, 60.0, 4.0  # rad, N·m/rad, N·m·s/rad
mass, g, centre = 1.0, 9.81, 0.25  # the arm: 1 kg, its centre 0.25 m from the hinge
for k in range(3000):
    sensors = data.sensordata
    theta, omega = sensors[angle], sensors[rate]
    # Gravity turns the arm towards +θ about the hinge's y axis with m g c cos θ: the
    # feed-forward holds it with the opposite torque.
    hold = -mass * g * centre * math.cos(theta)
    torque = kp * (target - theta) - kd * omega + hold
    data.ctrl[0] = torque / scale
    ferrodyn.step(model, data)
    if k % 500 == 499:
        print(f"t = {data.time:.3f} s  angle = {theta:+.5f} rad  torque = {torque:+.4f} N·m")
print(f"final error {target - data.sensordata[angle]:+.2e} rad")
