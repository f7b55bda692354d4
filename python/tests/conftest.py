"""Shared fixtures: the repository's scenes and the `ferrodyn` command-line program."""

import os
import re
import subprocess
from pathlib import Path

import pytest

import ferrodyn

REPO = Path(__file__).resolve().parents[2]
SCENES = REPO / "scenes"


def scene(name):
    """The path of scenes/NAME.toml."""
    return SCENES / f"{name}.toml"


@pytest.fixture(scope="session")
def cli():
    """The `ferrodyn` program: $FERRODYN_CLI, else target/release/ferrodyn. Tests that compare
    with it skip without it, unless $FERRODYN_REQUIRE_CLI=1 (CI), where they fail."""
    path = Path(os.environ.get("FERRODYN_CLI", REPO / "target" / "release" / "ferrodyn"))
    if not path.is_file():
        message = f"the ferrodyn CLI is not at {path} (cargo build --release -p ferrodyn-host)"
        if os.environ.get("FERRODYN_REQUIRE_CLI") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


DIGEST = re.compile(r"state digest: steps=(\d+) trajectory=([0-9a-f]{16}) final=([0-9a-f]{16})")


def cli_run(cli, path, out, *flags):
    """Runs `ferrodyn run PATH --out OUT FLAGS`; returns (steps, trajectory, final) of its
    `state digest` line."""
    done = subprocess.run(
        [str(cli), "run", str(path), "--out", str(out), "--force", *flags],
        capture_output=True,
        text=True,
        check=True,
    )
    match = DIGEST.search(done.stdout)
    assert match, done.stdout
    return int(match.group(1)), match.group(2), match.group(3)


def cli_error(cli, *args):
    """The message `ferrodyn ARGS` prints after `error: ` (it must fail)."""
    done = subprocess.run([str(cli), *args], capture_output=True, text=True)
    assert done.returncode == 1, done
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("error: "), done.stderr
    return line[len("error: "):]


def bits(array):
    """The IEEE bits of a float64 array, to compare arrays bit for bit."""
    import numpy as np

    return np.ascontiguousarray(array, dtype=np.float64).view(np.uint64)


@pytest.fixture
def chain5():
    return ferrodyn.load(scene("chain5"))


@pytest.fixture
def hil_arm():
    return ferrodyn.load(scene("hil_arm"))
