"""``python -m cognition.phi FILE``: Phi of one's own data, the same numbers as ``phi.estimate`` (docs/phi.md)."""
from __future__ import annotations

import importlib.util
import json
import time
import sys
from pathlib import Path

import numpy as np
import pytest
from clitools import command, python_code
from test_report import shared_run

import cognition.api as hc
from cognition import phi
from cognition.reporting import datafile
from cognition.phi.__main__ import main

A3 = np.array([[0.4, 0.3, 0.0], [0.0, 0.4, 0.3], [0.3, 0.0, 0.4]])  # a coupled ring: every cut is crossed
SETTINGS = {"lag": 1, "surrogates": 40, "seed": 3, "confidence": 0.9, "centre": "agent"}
FLAGS = ["--surrogates", "40", "--seed", "3", "--confidence", "0.9"]
netcdf = pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("xarray", "h5netcdf", "h5py")),
                            reason="the 'tables' extra (xarray, h5netcdf, h5py) is not installed")


@pytest.fixture(scope="module")
def ensemble():
    """(agents, T, n): 8 agents x 60 steps x 3 units of a coupled VAR(1)."""
    return phi.simulate_var1(A3, np.eye(3), 60, agents=8, seed=11)


def _expected(X) -> dict:
    """What phi.estimate returns for X, as JSON would carry it."""
    return json.loads(json.dumps(phi.estimate(X, **SETTINGS).to_dict()))


def _run(capsys, *argv) -> tuple[int, str, list[str]]:
    capsys.readouterr()
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, [line for line in err.splitlines() if line.strip()]


def test_phi_estimate_with_its_defaults_is_the_commands_json_with_its_defaults(ensemble, tmp_path):
    # issue 44 (2): estimate(X) gave a plug-in value without interval or p, where the command gave both. Reference:
    # the command's own JSON, run with no option at all
    np.save(tmp_path / "X.npy", ensemble)
    res = command("cognition.phi", tmp_path / "X.npy", "--json", tmp_path / "out.json", timeout=120)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    doc = json.loads((tmp_path / "out.json").read_text())
    r = phi.estimate(ensemble)
    assert doc["estimate"] == json.loads(json.dumps(r.to_dict()))
    assert doc["headline_bits"] == r.headline_bits and doc["headline_ci_bits"] == list(r.ci["phi_r"])
    assert doc["headline_p_value"] == r.p_value["phi_r"] and r.p_value["phi_r"] < 0.05  # a coupled ring
    assert "200 permutations" in r.method["null_model"] and r.confidence == 0.95
    assert doc["call"] == "cognition.phi.estimate(X, lag=1, surrogates=200, seed=0, confidence=0.95, centre='agent')"
    pooled = phi.estimate(ensemble[:4])  # fewer than 5 agents: the pooled plug-in, nothing asked for
    assert pooled.ci is None and pooled.p_value is None


def test_npy_json_writes_exactly_what_phi_estimate_returns(ensemble, tmp_path):
    np.save(tmp_path / "X.npy", ensemble)
    res = command("cognition.phi", tmp_path / "X.npy", "--json", tmp_path / "out.json", *FLAGS, timeout=120)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    doc = json.loads((tmp_path / "out.json").read_text())
    r = phi.estimate(ensemble, **SETTINGS)
    assert doc["estimate"] == _expected(ensemble)
    assert doc["headline_bits"] == r.headline("phi_r") and doc["headline_ci_bits"] == list(r.ci["phi_r"])
    assert doc["headline_p_value"] == r.p_value["phi_r"]
    assert doc["partition"] == [list(p) for p in r.mib] and doc["mib_stability"] == r.mib_stability
    assert doc["shape"] == {"agents": 8, "time": 60, "units": 3} and doc["axes"] == ["agents", "time", "units"]
    assert doc["call"] == "cognition.phi.estimate(X, lag=1, surrogates=40, seed=3, confidence=0.9, centre='agent')"
    lo, hi = r.ci["phi_r"]
    assert f"phi_r: {r.headline('phi_r'):.4f} bits, 90 % CI [{lo:.4f}, {hi:.4f}] bits" in res.stdout
    assert f"p = {r.p_value['phi_r']:.4f}" in res.stdout and "MIB" in res.stdout


def test_axis_order_and_csv_long_format_give_the_same_numbers(ensemble, tmp_path, capsys):
    expected = _expected(ensemble)
    np.save(tmp_path / "T.npy", ensemble.transpose(1, 2, 0))  # (time, units, agents)
    rc, _, err = _run(capsys, tmp_path / "T.npy", "--axes", "time,units,trials", "--json", tmp_path / "t.json", *FLAGS)
    assert rc == 0, err
    assert json.loads((tmp_path / "t.json").read_text())["estimate"] == expected

    agents, T, n = ensemble.shape
    rows = [f"{float(ensemble[a, t, u])!r},a{a},{t},x{u}" for t in range(T) for u in range(n) for a in range(agents)]
    (tmp_path / "X.csv").write_text("value,agent,time,unit\n" + "\n".join(rows) + "\n")
    rc, out, err = _run(capsys, tmp_path / "X.csv", "--json", tmp_path / "c.json", *FLAGS)
    assert rc == 0, err
    doc = json.loads((tmp_path / "c.json").read_text())
    assert doc["estimate"] == expected and doc["unit_names"] == ["x0", "x1", "x2"]
    assert doc["partition_named"] == [[f"x{i}" for i in part] for part in expected["mib"]]


@netcdf
def test_a_runs_exported_units_give_the_runs_own_headline(tmp_path_factory, tmp_path, capsys):
    run_dir = shared_run(tmp_path_factory, "classical")  # 32 agents, 44 cycles, seed 0
    res = hc.load(run_dir)
    res.to_xarray().to_netcdf(tmp_path / "units.nc", engine="h5netcdf")  # the run's agents (the default)
    rc, out, err = _run(capsys, tmp_path / "units.nc", "--json", tmp_path / "nc.json",
                        "--seed", res.config["run"]["seed"], "--surrogates", res.config["phi"]["surrogates"])
    assert rc == 0, err
    doc, report = json.loads((tmp_path / "nc.json").read_text()), res.report["phi"]
    for key in ("headline_bits", "headline_ci_bits", "headline_p_value", "partition_named", "weakest_cut",
                "integrated"):
        assert doc[key] == report[key], key
    assert doc["axes"] == ["agents", "time", "units"] and doc["unit_names"] == res.unit_names

    res.to_xarray("all").to_netcdf(tmp_path / "all.nc", engine="h5netcdf")  # agents, donors and twins together
    rc, _, err = _run(capsys, tmp_path / "all.nc")
    assert rc == 2 and len(err) == 1 and "not independent agents" in err[0], err


def _bad_files(tmp_path: Path, X: np.ndarray) -> dict:
    rng = np.random.default_rng(0)
    constant = X.copy()
    constant[2, :, 1] = 4.0
    nan = X.copy()
    nan[5, 7, 2] = np.nan
    files = {"2d.npy": X[0], "few.npy": X[:3], "short.npy": X[:, :10], "constant.npy": constant, "nan.npy": nan,
             "complex.npy": X + 1j}
    for name, array in files.items():
        np.save(tmp_path / name, array)
    (tmp_path / "text.npy").write_text("not an array\n")
    (tmp_path / "cut.npy").write_bytes((tmp_path / "nan.npy").read_bytes()[:300])
    (tmp_path / "data.txt").write_text("1,2,3\n")
    (tmp_path / "header.csv").write_text("a,b\n1,2\n")
    cells = [f"{a},{t},u{u},{rng.normal()}" for a in range(6) for t in range(40) for u in range(3)]
    (tmp_path / "gap.csv").write_text("agent,time,unit,value\n" + "\n".join(cells[:-1]) + "\n")
    (tmp_path / "word.csv").write_text("agent,time,unit,value\n0,0,u,abc\n")
    (tmp_path / "latin1.csv").write_bytes("agent,time,unit,value\n0,0,\xe9,1\n".encode("latin-1"))
    (tmp_path / "junk.nc").write_bytes(b"CDF\x01 not really netCDF")
    return files


BAD = [  # file, the start of its one line, a fragment of it
    ("2d.npy", "holds an array of 2 dimension(s)", "expected 3"),
    ("few.npy", "holds 3 agent(s)", "needs >= 5 independent agents"),
    ("short.npy", "Phi cannot be estimated", "needs T >= 19"),
    ("constant.npy", "Phi cannot be estimated", "node 1 of X is constant for agent 2"),
    ("nan.npy", "holds 1 NaN or infinite value(s)", "first: agent 5, time step 7, unit 2"),
    ("complex.npy", "holds values of dtype complex128", "expected real numbers"),
    ("text.npy", "is not a .npy file", "numpy.save"),
    ("cut.npy", "cannot be read as a .npy array", "fully written"),
    ("data.txt", "the extension '.txt' is not allowed", "expected .npy, .csv, .nc"),
    ("missing.npy", "does not exist", "expected a readable .npy file"),
    ("header.csv", "has the header a,b", "expected the columns agent,time,unit,value"),
    ("gap.csv", "the cell agent=5, time=39, unit=u2 is missing", "exactly once"),
    ("word.csv", "line 2: value = 'abc' is not a number", "'abc'"),
    ("latin1.csv", "cannot be read as CSV text", "utf-8"),
]


@pytest.mark.parametrize("name, start, fragment", BAD, ids=[b[0] for b in BAD])
def test_what_it_cannot_estimate_is_one_line_and_exit_2(ensemble, tmp_path, capsys, name, start, fragment):
    _bad_files(tmp_path, ensemble)
    rc, out, err = _run(capsys, tmp_path / name, "--surrogates", "20")
    assert rc == 2 and out == "" and len(err) == 1, err
    assert err[0].startswith(f"error: FILE = '{tmp_path / name}'") and start in err[0] and fragment in err[0], err[0]


@netcdf
def test_what_a_path_is_is_said_and_a_csv_with_a_byte_order_mark_is_read(ensemble, tmp_path, capsys):
    # issue 43: a symlink to a device "did not exist", and Excel's UTF-8 CSV (a byte-order mark before the
    # header) was refused with a header printed identical to the expected one
    (tmp_path / "zero.npy").symlink_to("/dev/zero")
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "broken.npy").symlink_to(tmp_path / "gone.npy")
    for name, fragment in (("zero.npy", "is a symlink to /dev/zero, a character device"),
                           ("folder.csv", "is a directory"), ("broken.npy", "is a symlink to a missing file"),
                           ("nothing.npy", "does not exist")):
        rc, _, err = _run(capsys, tmp_path / name)
        assert rc == 2 and len(err) == 1 and fragment in err[0], (name, err)
    A, T, n = ensemble.shape
    lines = ["agent,time,unit,value"] + [f"{a},{t},u{i},{float(ensemble[a, t, i])!r}"
                                         for a in range(A) for t in range(T) for i in range(n)]
    (tmp_path / "plain.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "excel.csv").write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    assert (tmp_path / "excel.csv").read_bytes()[:3] == b"\xef\xbb\xbf"
    outs = []
    for name in ("plain.csv", "excel.csv"):
        rc, out, err = _run(capsys, tmp_path / name, *FLAGS)
        assert rc == 0, err
        outs.append(out.replace(name, "FILE"))
    assert outs[0] == outs[1]


def test_an_unreadable_netcdf_file_is_one_line(ensemble, tmp_path, capsys):
    _bad_files(tmp_path, ensemble)
    rc, _, err = _run(capsys, tmp_path / "junk.nc")
    assert rc == 2 and len(err) == 1 and "cannot be read as netCDF" in err[0], err


def test_a_file_above_the_size_limit_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.npy"
    with open(big, "wb") as f:
        f.truncate(datafile.MAX_FILE_BYTES + 1)  # sparse: no disk used, and no valid header either
    monkeypatch.setattr(np, "load", lambda *a, **k: pytest.fail("a file above the limit was read"))
    rc, _, err = _run(capsys, big)
    assert rc == 2 and len(err) == 1 and f"files above {datafile.MAX_FILE_BYTES // 2**20} MiB are not read" in err[0]


def test_bad_flags_and_a_missing_extra_are_one_line(ensemble, tmp_path, capsys, monkeypatch):
    np.save(tmp_path / "X.npy", ensemble)
    for argv, fragment in ((["--axes", "agents,time"], "--axes = 'agents,time' is not allowed"),
                           (["--seed", "-1"], "--seed: -1 is not allowed: expected an integer >= 0"),
                           (["--confidence", "1.5"], "--confidence: 1.5 is not allowed"),
                           (["--json", tmp_path / "no" / "out.json"], "its directory does not exist"),
                           (["--var", "units"], "--var = 'units' goes with a .nc file"),
                           # issue 43: bounded counts, and an output refused before the work, not after it
                           (["--surrogates", "100000000"], "expected an integer from 1 to 10000"),
                           (["--json", tmp_path], "is a directory: expected a file"),
                           (["--json", "/proc/out.json"], "nothing can be written in its directory")):
        started = time.perf_counter()
        rc, _, err = _run(capsys, tmp_path / "X.npy", *argv)
        assert rc == 2 and len(err) == 1 and fragment in err[0], (argv, err)
        assert time.perf_counter() - started < 1.0, argv  # refused before any estimate
    monkeypatch.setitem(sys.modules, "xarray", None)  # `import xarray` raises ImportError
    (tmp_path / "X.nc").write_bytes(b"\x89HDF\r\n\x1a\n")
    rc, _, err = _run(capsys, tmp_path / "X.nc")
    assert rc == 2 and len(err) == 1 and "the 'tables' extra" in err[0] and ".[tables]" in err[0], err


def test_the_command_is_one_line_without_traceback_and_stays_light(ensemble, tmp_path):
    np.save(tmp_path / "few.npy", ensemble[:2])
    res = command("cognition.phi", tmp_path / "few.npy", timeout=120)
    assert res.returncode == 2 and "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    np.save(tmp_path / "X.npy", ensemble)
    code = ("import runpy, sys\n"
            f"sys.argv = ['cognition.phi', {str(tmp_path / 'X.npy')!r}, '--surrogates', '10']\n"
            "try:\n    runpy.run_module('cognition.phi', run_name='__main__')\nexcept SystemExit as exc:\n"
            "    assert exc.code == 0, exc.code\n"
            "heavy = ('torch', 'qiskit', 'matplotlib', 'pandas', 'xarray', 'yaml')\n"
            "print(sorted(m for m in heavy if m in sys.modules))")
    out = python_code(code, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_the_docs_latency_example_says_not_integrated(tmp_path):
    # docs/phi.md, "A common input with per-agent latency": 32 agents x 200 steps of independent units and one
    # shared AR(0.9) drive reaching each agent 0, 1 or 2 steps late (cognition.phi.calibration.lagged_drive:
    # no coupling within agents, so "integrated" would be false). 0.6.0 said "integrated: yes" on this file.
    code = ("import numpy as np; from cognition.phi import calibration as C; "
            "np.save('latency.npy', C.lagged_drive(np.random.default_rng(0), 32, 200, 6))")
    made = python_code(code, cwd=tmp_path, timeout=120)
    assert made.returncode == 0, made.stderr[-2000:]
    res = command("cognition.phi", "latency.npy", cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "integrated: no (alpha 0.05)" in res.stdout


def test_a_long_csv_is_read_in_less_than_three_times_its_size(tmp_path):
    # issue 45: 10^6 CSV rows took 777 MiB, 27x the file. Reference: the file's own size on disk, and its values
    # (written at 6 significant digits, a compact file, so the bound is the tighter)
    import tracemalloc

    rng = np.random.default_rng(45)
    agents, T, n = 10, 4000, 5                                                    # 200 000 rows
    X = np.round(rng.standard_normal((agents, T, n)), 4)
    a, t, u = np.meshgrid(np.arange(agents), np.arange(T), np.arange(n), indexing="ij")
    path = tmp_path / "long.csv"
    with open(path, "w") as f:
        f.write("agent,time,unit,value\n")
        np.savetxt(f, np.column_stack([a.ravel(), t.ravel(), u.ravel(), X.ravel()]), fmt=["%d", "%d", "%d", "%.6g"],
                   delimiter=",")
    tracemalloc.start()
    try:
        series = datafile.read_series(str(path), None, None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(series.data, X) and series.unit_names == [str(i) for i in range(n)]
    assert peak <= 3 * path.stat().st_size, (peak, path.stat().st_size)


def test_a_recording_too_large_for_the_memory_limit_is_refused_in_one_line(tmp_path):
    # issue 45: 50 x 28 000 x 5 asked for 5.13 GiB and died after 78 s with a 27-line traceback under a 4 GB
    # limit. Reference: the plan's own arithmetic (estimate.ensemble_bytes) against the limit the child runs under
    from clitools import run_limited

    from cognition.phi.estimate import ENSEMBLE_BASE_BYTES, ENSEMBLE_BLOCK_BYTES, ENSEMBLE_COPIES, ensemble_bytes

    agents, T, n = 20, 120_000, 5                               # 96 MB of data: about 1.2 GB planned
    np.save(tmp_path / "long.npy", np.random.default_rng(0).standard_normal((agents, T, n)))
    limit = 1_200_000_000
    out = run_limited(["-m", "cognition.phi", "long.npy"], tmp_path, limit, timeout_s=120)
    assert not out.timed_out and out.rc == 2, (out.rc, out.stderr[-2000:])
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    line = lines[0]
    need = ensemble_bytes(agents, T, n)
    assert f"needs about {need / 2**30:.3g} GiB" in line and "RLIMIT_AS" in line and "at most T = " in line, line
    fits = int(line.split("at most T = ")[1].split()[0])
    left = float(line.split(" GiB left")[0].rsplit(", ", 1)[1]) * 2**30
    blocks = ENSEMBLE_BASE_BYTES + ENSEMBLE_BLOCK_BYTES  # at long T the replicate blocks are full
    assert need == blocks + ENSEMBLE_COPIES * 8 * agents * T * n
    assert abs(fits - (left - blocks) / (ENSEMBLE_COPIES * 8 * n * agents)) < 0.01 * fits + 2, line
    assert out.wall_s < 60 and out.stdout == ""
