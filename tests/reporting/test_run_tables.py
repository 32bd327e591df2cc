"""RunResults.to_pandas / to_xarray: a run's own numbers as labelled tables, bit for bit (docs/api.md)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from clitools import python_code
from test_report import shared_run

import cognition.api as hc
from cognition.architecture.controls import population
from cognition.errors import MissingExtraError, UsageError
from cognition.reporting.frames import flat_record

tables = pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("pandas", "xarray")),
                            reason="the 'tables' extra (pandas, xarray) is not installed")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return shared_run(tmp_path_factory, "classical")  # 32 agents with the yoked control, 44 cycles


def _bits(value) -> bytes:
    return np.asarray(value, dtype=np.float64).tobytes()


def _same(cell, value) -> bool:
    """A table's cell holds the file's value exactly: the same float bits, the same number, string or tuple;
    a null is a missing cell (NaN or None)."""
    if value is None:
        return cell is None or (isinstance(cell, float) and np.isnan(cell))
    if isinstance(value, float):
        return _bits(cell) == _bits(value)
    return cell == value


@tables
def test_cycles_table_holds_every_field_of_metrics_jsonl_exactly(run_dir):
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    table = hc.load(run_dir).to_pandas("cycles")
    assert len(table) == len(records) and list(table.columns[:1]) == ["cycle"]
    assert table["cycle"].tolist() == [r["cycle"] for r in records]
    leaves = set()
    for i, record in enumerate(records):
        for name, value in flat_record(record).items():
            if name in table.columns:
                assert _same(table[name].iloc[i], value), (i, name, table[name].iloc[i], value)
                leaves.add(name)
            else:  # only a null that other cycles hold as a mapping (phi before its window fills)
                assert value is None and any(c.startswith(name + ".") for c in table.columns), name
    assert leaves == set(table.columns)
    assert table["phi.phi_r"].notna().any() and "salience.hybrid" in table.columns
    assert table.equals(hc.load(run_dir).to_pandas())  # "cycles" is the default


@tables
def test_units_table_and_dataarray_are_unit_history_npy_bit_for_bit(run_dir):
    res = hc.load(run_dir)
    history = np.load(run_dir / "unit_history.npy")  # (cycles, rows, units), as written
    C, R, n = history.shape
    names = json.loads((run_dir / "report.json").read_text())["phi"]["unit_names"]
    agents = res.config["run"]["agents"]
    groups = population(agents, 1).groups
    assert R == 4 * agents

    # the defaults are the run's agents, in the dimension order of res.units (agent, cycle, unit): a mean over
    # "agent" is over the run's agents, never over donors and twins (issue 44)
    table = res.to_pandas("units")
    assert list(table.columns) == ["cycle", "agent", "group", "paired_agent", "winner", *names]
    assert _bits(table[names].to_numpy()) == _bits(res.units.reshape(-1, n))
    assert _bits(res.units) == _bits(history[:, groups["intact"]].transpose(1, 0, 2))
    assert table["agent"].tolist() == list(np.repeat(np.arange(agents), C))
    assert table["cycle"].tolist() == list(np.tile(np.arange(1, C + 1), agents)) and set(table["group"]) == {"intact"}
    array = res.to_xarray()
    assert array.dims == ("agent", "cycle", "unit") and array.name == "units"
    assert _bits(array.values) == _bits(res.units) and set(array["group"].values) == {"intact"}
    assert array["unit"].values.tolist() == names
    assert array["cycle"].values.tolist() == list(range(1, C + 1))

    # every batch row on request, each group where the yoked control put it
    everything = res.to_pandas("units", group="all")
    assert len(everything) == R * C and _bits(everything[names].to_numpy()) == _bits(
        history.transpose(1, 0, 2).reshape(R * C, n))
    every = res.to_xarray("all")
    assert _bits(every.values) == _bits(history.transpose(1, 0, 2))
    assert every["group"].values.tolist() == everything["group"].iloc[::C].tolist()
    for name, rows in groups.items():
        assert set(every["group"].values[rows]) == {name}
        assert every["paired_agent"].values[rows].tolist() == list(range(agents))
    donors = res.to_xarray("donor")
    assert donors["agent"].values.tolist() == list(range(agents, 2 * agents))
    assert donors["paired_agent"].values.tolist() == list(range(agents))
    assert _bits(donors.values) == _bits(res.group("donor"))
    assert _bits(res.to_pandas("units", group="donor")[names].to_numpy()) == _bits(res.group("donor").reshape(-1, n))


def test_winners_are_the_runs_competition_row_by_row(run_dir):
    # issue 44 (1): per-agent competition. Reference: metrics.jsonl's own per-cycle figures over the run's agents
    # (winner_share per module, competition.no_access, competition.switched), computed from the loop's winner
    # tensor, not from the recorded string; and report.json's run-wide shares
    res = hc.load(run_dir)
    records = res.records
    won = res.winners()
    agents, C = res.config["run"]["agents"], len(records)
    assert won.shape == (agents, C) and won.dtype == np.int64 and not won.flags.writeable
    assert res.modules == res.config["modules"]["enabled"] and set(res.modules) == set(records[0]["winner_share"])
    for c, record in enumerate(records):
        assert len(record["winners"]) == 4 * agents  # every batch row: agents, donors, both twins
        for i, module in enumerate(res.modules):
            assert np.mean(won[:, c] == i) == record["winner_share"][module]
        assert np.mean(won[:, c] == -1) == record["competition"]["no_access"]
        if c:
            assert np.mean(won[:, c] != won[:, c - 1]) == record["competition"]["switched"]
    summary = json.loads((run_dir / "report.json").read_text())["competition"]
    for i, module in enumerate(res.modules):
        assert np.mean(won == i) == pytest.approx(summary["winner_share"][module], abs=1e-12)
    assert len(set(won.ravel().tolist())) >= 3  # a run where several modules win: the test can fail
    every = res.winners("all")
    assert every.shape == (4 * agents, C) and np.array_equal(every[:agents], won)
    assert np.array_equal(res.winners("yoked"), every[population(agents, 1).groups["yoked"]])


@tables
def test_the_winner_column_and_coordinate_name_the_recorded_winners(run_dir):
    res = hc.load(run_dir)
    names = np.array([*res.modules, "none"], dtype=object)
    won = res.winners()
    table = res.to_pandas("units")
    assert table["winner"].tolist() == names[won].ravel().tolist()  # agent-major, as the rows
    assert list(table["winner"].cat.categories) == [*res.modules, "none"]
    assert res.to_xarray()["winner"].dims == ("agent", "cycle")
    assert res.to_xarray()["winner"].values.tolist() == names[won].tolist()
    donors = res.to_pandas("units", group="donor")
    assert donors["winner"].tolist() == names[res.winners("donor")].ravel().tolist()


@tables
def test_the_docs_per_agent_winner_share_plot_runs_verbatim(run_dir, tmp_path):
    # issue 44, what it must show 1: docs/api.md's example, as printed, on a 32-agent run. Reference: each
    # agent's share from res.winners() (the recorded string), and their mean, report.json's run-wide share
    import re

    from test_report import _png_ok

    page = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    start = page.index("### Per-agent competition")
    code = re.search(r"```python\n(.*?)```", page[start:], re.S).group(1)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "first").symlink_to(run_dir)
    out = python_code("import matplotlib\nmatplotlib.use('Agg')\n" + code, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    width, height = _png_ok(tmp_path / "winner_share.png")
    assert (width, height) == (1200, 400)
    import pandas as pd

    share = pd.read_csv(tmp_path / "winner_share.csv", index_col="agent")
    res = hc.load(run_dir)
    won = res.winners()
    for i, module in enumerate([*res.modules, "none"]):
        expected = np.mean(won == (i if module != "none" else -1), axis=1)
        assert share[module].to_numpy() == pytest.approx(expected, abs=1e-12), module
    summary = json.loads((run_dir / "report.json").read_text())["competition"]
    assert share["hybrid"].mean() == pytest.approx(summary["winner_share"]["hybrid"], abs=1e-12)


def test_a_run_that_recorded_no_winners_says_so_and_its_tables_have_none(run_dir, tmp_path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(run_dir, old, ignore=shutil.ignore_patterns("checkpoints"))
    lines = [json.loads(line) for line in (old / "metrics.jsonl").read_text().splitlines()]
    (old / "metrics.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "winners"}) + "\n"
                                               for r in lines))
    res = hc.load(old)
    with pytest.raises(UsageError, match="records no per-row winners .*before they were recorded") as info:
        res.winners()
    assert "\n" not in str(info.value)
    if importlib.util.find_spec("pandas"):
        assert "winner" not in res.to_pandas("units").columns


@tables
def test_agents_table_is_report_json_per_agent_values_exactly(run_dir):
    phi = json.loads((run_dir / "report.json").read_text())["phi"]
    per_agent = phi["whole_run"]["per_agent"]
    table = hc.load(run_dir).to_pandas("agents")
    assert table["agent"].tolist() == list(range(len(per_agent["mib"])))
    assert set(table["group"]) == {"intact"}
    for key, values in per_agent.items():
        if key == "mib":
            assert table["mib"].tolist() == [tuple(tuple(p) for p in m) for m in values]
        else:
            assert _bits(table[key].to_numpy()) == _bits(values), key
    names = phi["unit_names"]
    assert table["mib_named"].iloc[0] == tuple(tuple(names[i] for i in p) for p in per_agent["mib"][0])
    assert float(table[phi["measure"]].mean()) == pytest.approx(phi["headline_bits"], abs=1e-12)


@tables
def test_bad_table_group_and_run_dir_are_one_line_errors(run_dir, tmp_path):
    res = hc.load(run_dir)
    with pytest.raises(UsageError, match=r"^table = 'rows' is not allowed: expected one of cycles, units, agents$"):
        res.to_pandas("rows")
    with pytest.raises(UsageError, match=r"group 'twins' is not one of this run's: intact, donor, yoked.*, or all$"):
        res.to_xarray("twins")
    with pytest.raises(UsageError, match=r"group 'twins' is not one of this run's"):
        res.to_pandas("units", group="twins")
    with pytest.raises(UsageError, match="not a hybrid-cognition run directory") as info:
        hc.load(tmp_path)
    assert "\n" not in str(info.value)
    with pytest.raises(UsageError, match="does not exist"):
        hc.load(tmp_path / "nowhere")


def test_without_the_tables_extra_one_error_names_it(run_dir, monkeypatch):
    res = hc.load(run_dir)
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` raises ImportError
    monkeypatch.setitem(sys.modules, "xarray", None)
    for call in (res.to_pandas, lambda: res.to_pandas("units"), res.to_xarray):
        with pytest.raises(MissingExtraError) as info:
            call()
        message = str(info.value)
        assert "\n" not in message and "the 'tables' extra" in message and '.[tables]' in message, message


def test_a_run_and_the_api_never_import_pandas_or_xarray(tmp_path):
    code = ("import sys\nimport cognition.api\nfrom cognition.validate import main\n"
            f"rc = main(['--quick', '--out', {str(tmp_path / 'quick')!r}])\n"
            "res = cognition.api.load(" f"{str(tmp_path / 'quick')!r})\n"
            "res.units, res.phi(), res.records\n"
            "print(rc, sorted(m for m in ('pandas', 'xarray', 'h5netcdf', 'h5py') if m in sys.modules))")
    out = python_code(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0 []", out.stdout


def test_a_damaged_run_directory_is_refused_naming_the_file_and_its_line(run_dir, tmp_path):
    # issue 43: load() trusted a metrics.jsonl cut to 10 of 44 lines (reported as completed, with 10 cycles of
    # units against report.json's 44) and named a truncated last line as "line 1". Reference: the construction,
    # each file of a finished run cut or edited by hand in a copy of it
    import shutil

    from cognition.errors import NotARunError

    def damaged(name, edit):
        copy = tmp_path / name
        shutil.copytree(run_dir, copy)
        edit(copy)
        with pytest.raises(NotARunError) as info:
            hc.load(copy)
        assert "\n" not in str(info.value)
        return str(info.value)

    def lines(copy):
        return (copy / "metrics.jsonl").read_text().splitlines(keepends=True)

    cycles = len(lines(run_dir))
    msg = damaged("cut", lambda c: (c / "metrics.jsonl").write_text("".join(lines(c)[:10])))
    assert "metrics.jsonl: holds 10 cycle records, report.json 44 cycles completed" in msg and cycles == 44
    msg = damaged("torn", lambda c: (c / "metrics.jsonl").write_text("".join(lines(c))[:-40]))
    assert f"metrics.jsonl: line {cycles} is not a JSON record" in msg
    msg = damaged("swapped", lambda c: (c / "metrics.jsonl").write_text("".join([lines(c)[1], lines(c)[0],
                                                                                  *lines(c)[2:]])))
    assert "metrics.jsonl: line 1 holds cycle 2, expected cycle 1" in msg

    def short_history(c):
        units = np.load(c / "unit_history.npy")
        np.save(c / "unit_history.npy", np.ascontiguousarray(units[:20]))

    msg = damaged("history", short_history)
    assert "unit_history.npy: holds 20 cycles of unit signals, metrics.jsonl 44" in msg
    assert hc.load(run_dir).units.shape[1] == 44  # the intact run loads as before


def test_partial_reads_a_sigkilled_run_read_only_and_its_cycles_are_the_clean_runs(run_dir, tmp_path):
    # issue 43: load() could only read a finished run; Nengo lets a user inspect sim.data after an error. Reference:
    # the construction: the same flags as the clean 44-cycle run, killed by SIGKILL at cycle 30 (the runtime's
    # fault injection delivers the real signal), so its recorded cycles must be the clean run's first ones bit for bit
    import resource
    import shutil
    import subprocess
    import sys as _sys

    from clitools import _env

    from cognition.errors import NotARunError

    killed = tmp_path / "killed"

    def limit():  # a bounded child: at most 4 GiB of address space
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))

    got = subprocess.run([_sys.executable, "-m", "cognition.validate", "--disable-quantum", "--cycles", "44", "--seed",
                          "0", "--out", str(killed), "--inject-fault", "sigkill@30"], env=_env(), capture_output=True,
                         text=True, timeout=300, preexec_fn=limit)
    assert got.returncode == -9, (got.returncode, got.stderr[-2000:])
    before = {p: p.stat().st_mtime_ns for p in killed.rglob("*")}
    with pytest.raises(NotARunError, match="partial=True"):
        hc.load(killed)
    res = hc.load(killed, partial=True)
    clean = hc.load(run_dir)
    n = len(res.records)
    assert res.incomplete and res.status == "incomplete" and not res.passed
    assert 1 <= res.committed_cycles <= n <= 30 and list(res.cycles) == list(range(1, n + 1))
    assert res.unit_names == clean.unit_names
    for group in ("intact", "donor", "yoked", "yoked_proposals"):
        assert _bits(res.group(group)) == _bits(clean.group(group)[:, :n])
    for mine, theirs in zip(res.records, clean.records):  # timing and telemetry are the machine's, not the run's
        assert all(mine.get(k) == theirs.get(k) for k in ("cycle", "salience", "winner_share", "extras", "phi"))
    assert f"{n} of 44 cycles recorded" in res.explain()[0] and "--resume" in res.explain()[0]
    with pytest.raises(UsageError, match="wrote no report.json"):
        res.report
    with pytest.raises(UsageError, match="read-only"):
        res.write_report()
    assert {p: p.stat().st_mtime_ns for p in killed.rglob("*")} == before  # nothing written or touched

    # a last line cut by the kill is dropped; a damaged line before it is refused, naming it
    torn = tmp_path / "torn"
    shutil.copytree(killed, torn)
    text = (torn / "metrics.jsonl").read_text()
    (torn / "metrics.jsonl").write_text(text[:-40])
    assert len(hc.load(torn, partial=True).records) == min(n, text.count("\n") - 1)
    lines = text.splitlines(keepends=True)
    (torn / "metrics.jsonl").write_text("".join(lines[:3] + ["{broken\n"] + lines[4:]))
    with pytest.raises(NotARunError, match="metrics.jsonl: line 4 is not a JSON record"):
        hc.load(torn, partial=True)
    # a finished run reads the same with partial=True
    again = hc.load(run_dir, partial=True)
    assert not again.incomplete and again.committed_cycles == 44 and again.report == clean.report
