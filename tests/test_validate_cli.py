"""The main job end to end, through the real command line (subprocesses)."""
import json

import pytest
from clitools import command, python_code

RUN_FILES = ("config.yaml", "provenance.json", "metrics.jsonl", "report.json", "report.md", "phi_over_cycles.png")


def run_cli(args, cwd, code=None):
    return python_code(code, cwd) if code else command("cognition.validate", *args, cwd=cwd)


def _science(report: dict) -> dict:
    """report.json without run-to-run telemetry (memory readings)."""
    return {k: v for k, v in report.items() if k != "telemetry"}


@pytest.fixture(scope="module")
def lite_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("lite")
    res = run_cli(["--cycles", "50", "--quantum-lite", "--seed", "3", "--out", str(base / "run")], base)
    return res, base / "run"


def test_main_job_writes_the_report(lite_run):
    res, out = lite_run
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stderr
    for name in RUN_FILES:
        assert (out / name).is_file(), name
    assert (out / "phi_over_cycles.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = json.loads((out / "report.json").read_text())
    phi = report["phi"]
    assert phi["units"] == "bits" and phi["measure"] == "phi_r"
    lo, hi = phi["mean_ci_bits"]
    assert lo <= phi["mean_bits"] <= hi
    assert sorted(sum(phi["partition"], [])) == list(range(len(phi["unit_names"])))
    assert report["passed"] == (res.returncode == 0)
    # the terminal's last line names the failed criteria by their labels in report.json (issue 44)
    last = res.stdout.strip().splitlines()[-1]
    failed = [c["name"] for c in report["criteria"] if not c["passed"]]
    if failed:
        assert last.startswith("criteria NOT met: ") and all(name.startswith(label) for name, label in
                                                            zip(failed, last.split(": ", 1)[1].split(" (")[0].split(", ")))
    else:
        assert last == "criteria met"
    lines = (out / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 50 and json.loads(lines[-1])["cycle"] == 50
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["quantum_mode"] == "lite" and prov["any_classical"] is False
    assert prov["quantum_backend"]["max_qubits"] == 16


def test_a_run_that_fails_names_its_failed_criteria_on_the_last_line(tmp_path):
    # 12 cycles are too few for the Phi window (12 + lag) and the loop test: the last line names those criteria
    # by their labels in report.json, in the order report.json lists them (issue 44: it was a bare "criteria NOT met")
    res = run_cli(["--cycles", "12", "--disable-quantum", "--out", str(tmp_path / "run")], tmp_path)
    assert res.returncode == 1, res.stderr
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    labels = [c["name"].split(":")[0].split(" (")[0] for c in report["criteria"] if not c["passed"]]
    assert labels and res.stdout.strip().splitlines()[-1].startswith(f"criteria NOT met: {', '.join(labels)} (")


def test_same_seed_gives_identical_report(lite_run, tmp_path):
    _, first = lite_run
    res = run_cli(["--cycles", "50", "--quantum-lite", "--seed", "3", "--out", str(tmp_path / "again")], tmp_path)
    assert res.returncode in (0, 1), res.stderr
    a = json.loads((first / "report.json").read_text())
    b = json.loads((tmp_path / "again" / "report.json").read_text())
    assert _science(a) == _science(b)


BLOCK_QISKIT = """
import sys
class BlockQiskit:
    def find_spec(self, name, path=None, target=None):
        if name == "qiskit" or name.startswith(("qiskit.", "qiskit_aer")):
            raise ImportError("qiskit imported during a --disable-quantum run")
sys.meta_path.insert(0, BlockQiskit())
from cognition.validate import main
rc = main(sys.argv[1:] or {args!r})
assert not any(m == "qiskit" or m.startswith(("qiskit.", "qiskit_aer")) for m in sys.modules), "qiskit loaded"
sys.exit(rc)
"""


def test_disable_quantum_never_imports_qiskit(tmp_path):
    out = tmp_path / "classical"
    res = run_cli(None, tmp_path, code=BLOCK_QISKIT.format(
        args=["--cycles", "20", "--disable-quantum", "--out", str(out)]))
    assert res.returncode in (0, 1), res.stderr
    prov = json.loads((out / "provenance.json").read_text())
    assert all(c["variant"] == "classical" for c in prov["components"].values())
    assert prov["any_classical"] is True and prov["classical_fallback"] is False
    assert prov["quantum_backend"] is None


def _assert_usage_error(res, fragment, tmp_path):
    assert res.returncode == 2, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert fragment in lines[0]
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("args, config, fragment", [
    (["--cycles", "-1"], None, "--cycles: -1 is not allowed"),
    ([], "run: {cyclez: 3}\n", "unknown config key 'run.cyclez'"),
    (["--quantum-lite"], "quantum: {lite_max_qubits: 0}\n", "quantum.lite_max_qubits = 0"),
    (["--config", "missing.yaml"], None, "--config = "),
    (["--quantum-lite", "--disable-quantum"], None, "not allowed with argument"),
    (["--preset", "nope"], None, "--preset = 'nope'"),
])
def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, args, config, fragment):
    if config is not None:
        (tmp_path / "c.yaml").write_text(config)
        args = [*args, "--config", "c.yaml"]
    res = run_cli([*args, "--out", str(tmp_path / "out")], tmp_path)
    _assert_usage_error(res, fragment, tmp_path)
    assert not (tmp_path / "out").exists()


def test_unwritable_out_is_one_line_exit_2(tmp_path):
    res = run_cli(["--quick", "--disable-quantum", "--out", "/proc/hybrid-cognition-test/run"], tmp_path)
    _assert_usage_error(res, "--out /proc/hybrid-cognition-test/run", tmp_path)


def test_out_is_never_reused(tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "report.json").write_text("{}")
    res = run_cli(["--quick", "--disable-quantum", "--out", str(tmp_path / "used")], tmp_path)
    _assert_usage_error(res, "not empty", tmp_path)
    assert (tmp_path / "used" / "report.json").read_text() == "{}"
