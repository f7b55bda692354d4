"""The same bits as the CLI: `ferrodyn.step` from Python ends at the state `ferrodyn run`
prints as `final=` in its `state digest` line, for a tree (chain5), a tree with an input
(hil_arm), a flexible body (beam6, RK4) and rigid + flexible under HHT (spin_up), each for
1 s of simulated time."""

import pytest

import ferrodyn
from conftest import cli_run, scene


@pytest.mark.parametrize("name", ["chain5", "hil_arm", "beam6", "spin_up"])
def test_step_ends_where_ferrodyn_run_ends(cli, tmp_path, name):
    steps, _, final = cli_run(cli, scene(name), tmp_path, "--end", "1")
    model = ferrodyn.load(scene(name))
    data = model.new_data()
    ferrodyn.step(model, data, nstep=steps)
    assert data.steps == steps
    assert data.digest() == final


def test_one_call_or_many_give_the_same_bits(chain5):
    once, many = chain5.new_data(), chain5.new_data()
    ferrodyn.step(chain5, once, nstep=300)
    for _ in range(300):
        ferrodyn.step(chain5, many)
    assert once.digest() == many.digest()


def test_run_from_python_is_ferrodyn_run(cli, tmp_path):
    # ferrodyn.run calls the CLI's own function: the same digests.
    steps, trajectory, final = cli_run(cli, scene("hil_arm"), tmp_path / "cli", "--end", "0.5")
    summary = ferrodyn.run(scene("hil_arm"), out=tmp_path / "py", end=0.5)
    assert summary["steps"] == steps
    assert summary["trajectory_digest"] == trajectory
    assert summary["final_digest"] == final


def test_digest_is_fnv1a_of_the_state_bits(chain5):
    # kernel/src/digest.rs: 64-bit FNV-1a over the little-endian bytes of every value.
    import struct

    data = chain5.new_data()
    ferrodyn.step(chain5, data, 10)
    h = 0xCBF29CE484222325
    for byte in b"".join(struct.pack("<d", x) for x in data.state()):
        h = ((h ^ byte) * 0x100000001B3) % 2**64
    assert data.digest() == f"{h:016x}"
