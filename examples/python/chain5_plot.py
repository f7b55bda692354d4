"""Loads chain5, steps it 1 s at 1 ms and plots the height of its tip (matplotlib optional)."""
from pathlib import Path
import ferrodyn

scenes = Path(__file__).resolve().parents[2] / "scenes"
# chain5 with a sensor at the tip of its last link (0.5 m beyond link4's centre).
tip = '\n[[sensor]]\nname = "tip"\nbody = "link4"\npoint = [0.5, 0.0, 0.0]\n'
model = ferrodyn.Model.from_toml((scenes / "chain5.toml").read_text() + tip, path=scenes / "chain5.toml")
data = model.new_data()
z = model.sensor_channels.index("tip_z")
times, heights = [], []
for _ in range(model.steps):
    ferrodyn.step(model, data)
    times.append(data.time)
    heights.append(data.sensordata[z])
print(f"t = {data.time:.3f} s: tip at z = {heights[-1]:.4f} m, lowest {min(heights):.4f} m")
try:
    import matplotlib.pyplot as plt
    plt.plot(times, heights), plt.xlabel("t (s)"), plt.ylabel("tip z (m)"), plt.savefig("chain5_tip.png")
    print("wrote chain5_tip.png")
except ImportError:
    print("(no matplotlib: no plot)")
