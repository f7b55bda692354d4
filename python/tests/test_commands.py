"""The host's commands from Python: run, check, export, sweep."""

import pytest

import ferrodyn
from conftest import scene


def test_run_writes_results_and_ends_where_step_ends(tmp_path, chain5):
    summary = ferrodyn.run(scene("chain5"), out=tmp_path, end=0.2)
    assert summary["steps"] == 200
    data = chain5.new_data()
    ferrodyn.step(chain5, data, 200)
    assert summary["final_digest"] == data.digest()
    assert any(str(f).endswith("trajectory.csv") for f in summary["files"])
    assert summary["max_energy_change"] < 1e-6


def test_run_refuses_to_overwrite(tmp_path):
    ferrodyn.run(scene("pendulum"), out=tmp_path, end=0.01)
    with pytest.raises(ferrodyn.FerrodynError, match="exist"):
        ferrodyn.run(scene("pendulum"), out=tmp_path, end=0.01)
    ferrodyn.run(scene("pendulum"), out=tmp_path, end=0.01, force=True)


def test_run_bad_override_is_the_cli_message(tmp_path):
    with pytest.raises(ferrodyn.FerrodynError, match="--dt"):
        ferrodyn.run(scene("pendulum"), out=tmp_path, dt=-1.0)


def test_check_reports_a_chain(chain5):
    report = ferrodyn.check(scene("chain5"))
    assert (report["bodies"], report["joints"], report["constraint_rows"]) == (5, 5, 25)
    assert "joint coordinates" in report["formulation"]
    # Five hinges leave 5 of 30 rigid-body freedoms (Grübler: 6·5 − 25).
    assert report["gruebler_dof"] == 5 and report["independent_dof"] == 5
    assert report["redundant_rows"] == []
    assert set(report["joint_violations"]) == {f"hinge{k}" for k in range(5)}
    assert max(report["joint_violations"].values()) < 1e-12


def test_check_names_a_redundant_loop():
    # The four-bar's closing joint repeats rows of the planar loop.
    report = ferrodyn.check(scene("four_bar"))
    assert report["redundant_rows"], report
    assert report["independent_dof"] == 1


def test_check_of_a_bad_scene_is_a_scene_error(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[simulation]\nend_time = -1\n")
    with pytest.raises(ferrodyn.SceneError, match="bad.toml"):
        ferrodyn.check(path)


def test_export_rust_returns_and_writes_the_module(tmp_path):
    out = tmp_path / "arm.rs"
    module = ferrodyn.export_rust(scene("hil_arm"), precision="f64", out=out)
    assert out.read_text() == module
    assert "#![" in module or "pub fn" in module
    assert "torque" in module


def test_export_rust_unknown_precision():
    with pytest.raises(ferrodyn.FerrodynError, match="unknown precision 'f16'"):
        ferrodyn.export_rust(scene("hil_arm"), precision="f16")


def test_export_fmu_without_the_library(tmp_path):
    with pytest.raises(ferrodyn.FerrodynError):
        ferrodyn.export_fmu(scene("hil_arm"), out=tmp_path / "arm.fmu", library=tmp_path / "missing.so")


def test_export_firmware_writes_the_crate_around_the_exported_module(tmp_path):
    # The crate `ferrodyn export firmware` writes (docs/export.md); its model module is
    # `export rust`'s byte for byte. Building it is .ci/export_firmware's (minutes per part).
    out = tmp_path / "arm-fw"
    ferrodyn.export_firmware(scene("hil_arm"), out, part="mps2-an500", precision="f64")
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == [".cargo/config.toml", "Cargo.toml", "build.rs", "memory.x", "src/main.rs", "src/rig.rs", "src/scene.rs"]
    assert (out / "src" / "scene.rs").read_text() == ferrodyn.export_rust(scene("hil_arm"), precision="f64")
    assert "thumbv7em-none-eabihf" in (out / ".cargo" / "config.toml").read_text()
    assert "mps2-an500" in (out / ".cargo" / "config.toml").read_text()
    with pytest.raises(ferrodyn.FerrodynError, match="holds a crate already"):
        ferrodyn.export_firmware(scene("hil_arm"), out, part="mps2-an500")
    ferrodyn.export_firmware(scene("hil_arm"), out, part="mps2-an500", force=True)
    assert (out / "src" / "scene.rs").read_text() == ferrodyn.export_rust(scene("hil_arm"))


def test_export_firmware_unknown_part(tmp_path):
    with pytest.raises(ferrodyn.FerrodynError, match="unknown part 'esp32'"):
        ferrodyn.export_firmware(scene("hil_arm"), tmp_path / "fw", part="esp32")


def test_sweep_plan_run_collect(tmp_path):
    study = tmp_path / "study"
    cases = ferrodyn.sweep_plan(scene("pendulum"), ["body.bob.mass=1,2"], out=study)
    assert cases == 2
    for index in range(cases):
        result = ferrodyn.sweep_run(study, index)
        assert result["status"] == "ok" and result["ran"]
        assert result["scalars"]
    collected = ferrodyn.sweep_collect(study)
    assert collected["ok"] == 2 and collected["missing"] == []


def test_sweep_random_design_needs_a_seed(tmp_path):
    with pytest.raises(ValueError, match="seed"):
        ferrodyn.sweep_plan(scene("pendulum"), ["body.bob.mass=uniform:1:2"], out=tmp_path / "s", lhs=4)
