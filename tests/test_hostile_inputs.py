"""A hostile user's battery (issue 43): a researcher's own data, code and run directories at the entry points of
0.5.0 and later: ``python -m cognition.phi``, ``phi.iit4`` / ``phi_structure``, plug-ins by path, ``load()`` /
``RunResults``, and the count flags. Each case is one line on stderr, its documented exit code, no traceback,
nothing lost, in under 5 s and 500 MB resident, in a subprocess under a memory limit so no case can endanger
the machine.

Before issue 43 (measured on 0.5.0): a plug-in's ``sys.exit(0)`` at import or in ``propose`` ended the run with
exit 0 and no word; an 8-node ``phi_structure`` ran past 120 s and a 16-node ``iit4`` asked for 32 GiB; a cut
``metrics.jsonl`` loaded as completed; ``--surrogates 1e8`` died in a 27-line traceback; ``/dev/zero`` "did not
exist"; ``bench calibration --jobs 100000`` hung starting processes.

``CASES`` holds ``case(id, argv, fragment, ...)``: ``argv`` after ``python``, run in a fresh directory holding
``files`` (name -> text or bytes) and, with ``run=``, a copy of a finished (``"finished"``) or SIGKILLed
(``"killed"``) run directory at ``r`` edited by ``edit``; ``fragment`` must appear in the error line. Exit 2
(bad input) unless ``rc=`` says otherwise; nothing written unless ``writes=True`` (a run that stops writes its
checkpoint). The Python API's cases run :data:`PROBE`, which turns the documented exception of a call into
that line and exit 2 (anything else is a traceback and fails the case).
"""
from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from clitools import place_files, run_limited, tree_of

MEMORY_LIMIT = 1536 * 2**20  # RLIMIT_AS of each case (torch and numpy reserve more address space than they touch)
TIMEOUT_S = 20  # a case still running then is killed and fails
MAX_WALL_S = 5.0  # issue 43: each case under 5 s ...
MAX_RSS_BYTES = 500 * 2**20  # ... and 500 MB resident
MAX_LINE = 800  # characters of the error line
PLUGIN = Path(__file__).resolve().parent / "plugin_modules" / "faulty.py"

# the Python API's cases: the call's documented exception is one line on stderr and exit 2
PROBE = """import sys
import numpy as np
import cognition as hc
from cognition import phi
from cognition.errors import UsageError
try:
    exec(sys.argv[1])
except (UsageError, ValueError) as exc:
    print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
    sys.exit(2)
"""


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    fragment: str
    files: dict = field(default_factory=dict)
    rc: int = 2
    writes: bool = False
    run: str | None = None  # "finished" or "killed": a copy at "r"
    edit: object = None  # callable(Path of the copy) -> None
    env: dict = field(default_factory=dict)


def case(id: str, argv: list[str], fragment: str, files: dict | None = None, **kw):
    return pytest.param(Case(tuple(argv), fragment, dict(files or {}), **kw), id=id)


def _npy(array: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=array.dtype.hasobject)
    return buf.getvalue()


RNG = np.random.default_rng(43)
OK = _npy(RNG.normal(size=(8, 40, 4)))
CONST = RNG.normal(size=(8, 40, 4))
CONST[:, :, 2] = 1.0
PHI = ["-m", "cognition.phi"]


def phi_file(id: str, name: str, content, fragment: str, *flags: str):
    """``python -m cognition.phi NAME FLAGS`` on a file holding ``content`` (an array, bytes or text)."""
    data = _npy(content) if isinstance(content, np.ndarray) else content
    return case(f"phi-{id}", PHI + [name, *flags], fragment, {name: data})


def phi_flag(id: str, fragment: str, *flags: str, files: dict | None = None):
    """``python -m cognition.phi d.npy FLAGS`` on a good file."""
    return case(f"phi-{id}", PHI + ["d.npy", *flags], fragment, {"d.npy": OK, **(files or {})})


def api(id: str, code: str, fragment: str, **kw):
    """A Python API call, run by PROBE."""
    return case(f"api-{id}", ["probe.py", code], fragment, {"probe.py": PROBE}, **kw)


def _symlink(target: str, name: str):
    def edit(root: Path):
        (root / name).symlink_to(target)
    return edit


def _sparse(name: str, size: int):
    def edit(root: Path):
        with open(root / name, "wb") as fh:
            fh.truncate(size)
    return edit


def _metrics(edit_text):
    def edit(run: Path):
        path = run / "metrics.jsonl"
        path.write_text(edit_text(path.read_text()))
    return edit


def _history_cut(run: Path):
    path = run / "unit_history.npy"
    path.write_bytes(path.read_bytes()[:-1000])


def plugin(id: str, source: str, fragment: str, **kw):
    """``validate --quick --disable-quantum`` with a plug-in file ``mine.py`` holding ``source``."""
    files = {"mine.py": source, "c.yaml": "modules: {plugins: ['mine.py:Mine'], enabled: [expectation, mine]}\n"}
    return case(f"plugin-{id}", VALIDATE + ["--config", "c.yaml"], fragment, files, **kw)


VALIDATE = ["-m", "cognition.validate", "--quick", "--disable-quantum", "--out", "out"]
LOAD = "hc.load('r')"
FAULTY = {"faulty.py": PLUGIN.read_text(),
          "c.yaml": "modules: {plugins: ['faulty.py:Faulty'], enabled: [expectation, faulty]}\n"}

CASES = [
    # python -m cognition.phi: the researcher's own data file
    phi_file("nan", "d.npy", np.full((8, 40, 4), np.nan), "holds 1280 NaN or infinite value(s) (first: agent 0"),
    phi_file("2d", "d.npy", RNG.normal(size=(40, 4)), "holds an array of 2 dimension(s), shape (40, 4): expected 3"),
    phi_file("3-agents", "d.npy", RNG.normal(size=(3, 40, 4)), "holds 3 agent(s)"),
    phi_file("1-unit", "d.npy", RNG.normal(size=(8, 40, 1)), "holds 1 unit(s): a bipartition needs >= 2 units"),
    phi_file("2-steps", "d.npy", RNG.normal(size=(8, 2, 4)), "Phi cannot be estimated: X has 8 lagged samples"),
    phi_file("constant-unit", "d.npy", CONST, "node 2 of X is constant for agent 0"),
    phi_file("object-array", "d.npy", np.array([{"a": 1}] * 4, dtype=object), "Object arrays cannot be loaded"),
    phi_file("complex", "d.npy", RNG.normal(size=(8, 40, 4)) + 1j, "holds values of dtype complex128"),
    phi_file("strings", "d.npy", np.array([["a"] * 4] * 40), "holds values of dtype <U1"),
    phi_file("40-units", "d.npy", RNG.normal(size=(8, 40, 40)), "n=40 nodes is above its limit of 12"),
    phi_file("bad-header", "d.npy", b"\x93NUMPY garbage", "cannot be read as a .npy array"),
    phi_file("text-as-npy", "d.npy", "hello", "is not a .npy file (no NumPy header)"),
    phi_file("csv-empty", "d.csv", "", "has the header (none): expected the columns agent,time,unit,value"),
    phi_file("csv-header-only", "d.csv", "agent,time,unit,value\n", "has no data rows"),
    phi_file("csv-wrong-header", "d.csv", "a,b,c\n1,2,3\n", "has the header a,b,c: expected the columns"),
    phi_file("csv-duplicate-cell", "d.csv", "agent,time,unit,value\n0,0,0,1\n0,0,0,2\n",
             "the cell agent=0, time=0, unit=0 appears more than once"),
    phi_file("csv-nan", "d.csv", "agent,time,unit,value\n0,0,0,nan\n", "holds 1 NaN or infinite value(s)"),
    phi_file("csv-bom-wrong-header", "d.csv", "\ufeffa,b\n1,2\n".encode("utf-8"), "has the header a,b"),
    phi_file("txt-extension", "d.txt", "1 2 3", "the extension '.txt' is not allowed: expected .npy, .csv, .nc"),
    case("phi-missing-file", PHI + ["nope.npy"], "'nope.npy' does not exist"),
    case("phi-directory", PHI + ["d.npy"], "'d.npy' is a directory", {"d.npy/keep": ""}),
    case("phi-symlink-dev-zero", PHI + ["z.npy"], "is a symlink to /dev/zero, a character device",
         edit=_symlink("/dev/zero", "z.npy")),
    case("phi-symlink-dev-urandom", PHI + ["u.npy"], "is a symlink to /dev/urandom, a character device",
         edit=_symlink("/dev/urandom", "u.npy")),
    case("phi-dangling-symlink", PHI + ["g.npy"], "is a symlink to a missing file", edit=_symlink("gone.npy", "g.npy")),
    case("phi-file-over-256-mib", PHI + ["big.npy"], "is 300.0 MiB: files above 256 MiB are not read",
         edit=_sparse("big.npy", 300 * 2**20)),
    # python -m cognition.phi: flags
    phi_flag("lag-0", "argument --lag: 0 is not allowed: expected an integer >= 1", "--lag", "0"),
    phi_flag("lag-beyond-the-series", "lag=100000 needs T > lag", "--lag", "100000"),
    phi_flag("surrogates-1e8", "argument --surrogates: 100000000 is not allowed: expected an integer from 1 to 10000",
             "--surrogates", "100000000"),
    phi_flag("surrogates-0", "argument --surrogates: 0 is not allowed", "--surrogates", "0"),
    phi_flag("seed-negative", "argument --seed: -1 is not allowed", "--seed", "-1"),
    phi_flag("confidence-nan", "argument --confidence: nan is not allowed", "--confidence", "nan"),
    phi_flag("alpha-0", "argument --alpha: 0.0 is not allowed", "--alpha", "0"),
    phi_flag("axes-repeated", "--axes = 'agents,agents,units' is not allowed", "--axes", "agents,agents,units"),
    phi_flag("var-with-npy", "--var = 'x' goes with a .nc file, not .npy", "--var", "x"),
    phi_flag("json-empty", "argument --json: '' is not allowed: expected a path", "--json", ""),
    phi_flag("json-dev-full", "--json = '/dev/full' cannot be written (No space left on device)", "--json",
             "/dev/full"),
    phi_flag("json-directory", "--json = 'o' is a directory", "--json", "o", files={"o/keep": ""}),
    phi_flag("json-missing-directory", "its directory does not exist", "--json", "no/such/out.json"),
    # exact IIT 4.0 from Python: sizes refused before any work, naming the need
    api("iit4-16-nodes", "phi.iit4(np.full((2**16, 16), 0.5), (0,) * 16, validate_state=False)",
        "ValueError: nodes: a candidate system of 16 nodes is above iit4's limit of 8 (it needs about"),
    api("iit4-12-nodes-asked", "phi.iit4(np.full((2**12, 12), 0.5), (0,) * 12, validate_state=False, max_nodes=12)",
        "12 nodes needs about 101 GB for iit4"),
    api("structure-8-nodes", "phi.phi_structure(np.full((2**8, 8), 0.5), (0,) * 8, validate_state=False)",
        "8 nodes is above phi_structure's limit of 6"),
    api("structure-7-nodes-asked", "phi.phi_structure(np.full((2**7, 7), 0.5), (0,) * 7, validate_state=False, "
        "max_nodes=7)", "7 nodes needs about 8.59 GB for phi_structure"),
    api("iit4-max-nodes-0", "phi.iit4(np.full((8, 3), 0.5), (0,) * 3, max_nodes=0)", "max_nodes: got 0"),
    api("iit4-tpm-wrong-rows", "phi.iit4(np.full((7, 3), 0.5), (0, 0, 0))",
        "tpm: shape (7, 3) is not a binary state-by-node TPM"),
    api("iit4-state-wrong-length", "phi.iit4(np.full((8, 3), 0.5), (0, 0))",
        "state: has 2 entries but the network has 3 nodes"),
    api("estimate-surrogates-1e8", "phi.estimate(np.zeros((8, 40, 4)) + np.random.default_rng(0).normal(size=(8, 40, "
        "4)), surrogates=10**8)", "surrogates must be an integer from 0 to 10000"),
    # load() / RunResults: a run directory cut, torn or killed
    api("load-metrics-cut", LOAD, "metrics.jsonl: holds 1 cycle records, report.json 3 cycles completed",
        run="finished", edit=_metrics(lambda t: t.splitlines(keepends=True)[0])),
    api("load-metrics-torn", LOAD, "metrics.jsonl: line 3 is not a JSON record", run="finished",
        edit=_metrics(lambda t: t[:-40])),
    api("load-metrics-swapped", LOAD, "metrics.jsonl: line 1 holds cycle 2, expected cycle 1", run="finished",
        edit=_metrics(lambda t: "".join([t.splitlines(keepends=True)[i] for i in (1, 0, 2)]))),
    api("load-history-cut", LOAD, "unit_history.npy: cannot be read as the run's unit history", run="finished",
        edit=_history_cut),
    api("load-report-garbage", LOAD, "report.json: cannot be read as a run file", run="finished",
        edit=lambda r: (r / "report.json").write_text("{not json")),
    api("load-killed-run", LOAD, "the run has no report.json (it did not finish); continue it with python -m "
        "cognition.validate --resume r, or read the cycles it recorded with load(path, partial=True)", run="killed"),
    api("load-killed-report", "hc.load('r', partial=True).report", "UsageError: r: the run wrote no report.json",
        run="killed"),
    api("load-partial-damaged-line", "hc.load('r', partial=True)", "metrics.jsonl: line 1 is not a JSON record",
        run="killed", edit=_metrics(lambda t: "{broken\n" + "".join(t.splitlines(keepends=True)[1:]))),
    api("load-dev-null", "hc.load('/dev/null', partial=True)", "/dev/null: not a run directory (not a directory)"),
    # plug-ins by path: a module of one's own that ends the process its own way, or is not a file
    plugin("sys-exit-0-at-import", "import sys\nsys.exit(0)\n", "(it called sys.exit(0))"),
    plugin("sys-exit-3-at-import", "import sys\nsys.exit(3)\n", "(it called sys.exit(3))"),
    plugin("keyboard-interrupt-at-import", "raise KeyboardInterrupt\n", "(it raised KeyboardInterrupt itself"),
    plugin("syntax-error", "def broken(:\n", "(it raised SyntaxError: invalid syntax (mine.py, line 1))"),
    plugin("no-such-class", "X = 1\n", "expected a class Mine in "),
    case("plugin-is-a-directory", VALIDATE + ["--config", "c.yaml"], "is a directory",
         {"mine.py/keep": "", "c.yaml": "modules: {plugins: ['mine.py:Mine'], enabled: [expectation, mine]}\n"}),
    case("plugin-is-dev-zero", VALIDATE + ["--config", "c.yaml"], "a character device",
         {"c.yaml": "modules: {plugins: ['mine.py:Mine'], enabled: [expectation, mine]}\n"},
         edit=_symlink("/dev/zero", "mine.py")),
    case("plugin-sys-exit-0-in-propose", VALIDATE + ["--config", "c.yaml"],
         "run stopped in cycle 2: ModuleFault: module 'faulty' method 'propose' at cycle 2: called sys.exit(0); last "
         "good checkpoint: cycle 1; fix the cause, then continue with: python -m cognition.validate --resume out",
         FAULTY, rc=1, writes=True, env={"FAULTY_MODULE": "propose:exit:2"}),
    case("plugin-keyboard-interrupt-in-learn", VALIDATE + ["--config", "c.yaml"],
         "module 'faulty' method 'learn' at cycle 2: raised KeyboardInterrupt itself", FAULTY, rc=1, writes=True,
         env={"FAULTY_MODULE": "learn:interrupt:2"}),
    # count flags bounded, and files said for what they are
    case("bench-calibration-jobs-1e5", ["-m", "cognition.bench", "calibration", "--jobs", "100000"],
         "--jobs 100000: allowed 1 .. 256"),
    case("bench-calibration-surrogates-1e5", ["-m", "cognition.bench", "calibration", "--surrogates", "100000"],
         "--surrogates 100000: allowed 1 .. 10000"),
    case("bench-json-directory", ["-m", "cognition.bench", "--json", "o", "iit4"], "--json = 'o' is a directory",
         {"o/keep": ""}),
    case("bench-json-empty", ["-m", "cognition.bench", "--json", "", "iit4"], "argument --json: '' is not allowed"),
    case("bench-json-under-proc", ["-m", "cognition.bench", "--json", "/proc/hc.json", "iit4"],
         "nothing can be written in its directory"),
    case("sweep-out-under-proc", ["-m", "cognition.sweep", "s.yaml", "--out", "/proc/hc"],
         "--out /proc/hc: cannot create the sweep's directory", {"s.yaml": "grid:\n  workspace.noise: [0.1, 0.2]\n"}),
    case("sweep-out-under-a-file", ["-m", "cognition.sweep", "s.yaml", "--out", "f/sub"],
         "--out f/sub: cannot create the sweep's directory (Not a directory)",
         {"s.yaml": "grid:\n  workspace.noise: [0.1, 0.2]\n", "f": "mine"}),
    case("sweep-file-dev-zero", ["-m", "cognition.sweep", "/dev/zero", "--dry-run"],
         "expected an existing YAML file (it is a character device)"),
    case("validate-config-directory", VALIDATE + ["--config", "d"], "expected an existing YAML file (it is a "
         "directory)", {"d/keep": ""}),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A finished quick run and one SIGKILLed at cycle 3 (the runtime delivers the real signal)."""
    import subprocess

    root = tmp_path_factory.mktemp("hostile-runs")
    made = {}
    for name, extra, rc in (("finished", [], (0,)), ("killed", ["--inject-fault", "sigkill@3"], (-9,))):
        got = subprocess.run([sys.executable, "-m", "cognition.validate", "--quick", "--disable-quantum", "--out",
                              str(root / name), *extra], capture_output=True, text=True, timeout=300)
        assert got.returncode in rc, (name, got.returncode, got.stderr[-2000:])
        made[name] = root / name
    return made


@pytest.mark.integration
@pytest.mark.parametrize("bad", CASES)
def test_a_hostile_input_is_one_line_its_exit_code_nothing_lost_fast_and_small(bad: Case, tmp_path, runs):
    if bad.run:
        shutil.copytree(runs[bad.run], tmp_path / "r", ignore=shutil.ignore_patterns(".lock"))
    place_files(tmp_path, bad.files)
    if bad.edit is not None:
        bad.edit(tmp_path / "r" if bad.run else tmp_path)
    tree = tree_of(tmp_path)
    before = {p: (tmp_path / p).read_bytes() for p in tree if (tmp_path / p).is_file()
              and not (tmp_path / p).is_symlink() and (tmp_path / p).stat().st_size < 2**20}
    got = run_limited(bad.argv, tmp_path, MEMORY_LIMIT, TIMEOUT_S, env=bad.env)
    errors = [line for line in got.stderr.splitlines() if line.startswith("error")]
    assert not got.timed_out, f"still running after {TIMEOUT_S} s"
    assert "Traceback" not in got.stderr, got.stderr[-2000:]
    assert got.rc == bad.rc, (got.rc, got.stderr[-2000:])
    assert len(errors) == 1, got.stderr[:2000]
    if bad.rc == 2:  # bad input: the error line is all there is
        assert got.stderr.count("\n") == 1, got.stderr[:2000]
    assert bad.fragment in errors[0], errors[0][:2000]
    assert len(errors[0]) <= MAX_LINE, f"{len(errors[0])} characters: {errors[0][:300]}"
    for path, content in before.items():  # nothing lost: every file as it was
        assert (tmp_path / path).read_bytes() == content, path
    if not bad.writes:
        assert tree_of(tmp_path) == tree, sorted(tree_of(tmp_path) ^ tree)
    else:  # a run that stops keeps its checkpoint and tells how to resume
        assert (tmp_path / "out" / "checkpoints").is_dir() and "--resume" in errors[0]
    assert got.wall_s < MAX_WALL_S, f"{got.wall_s:.2f} s"
    assert got.peak_rss_bytes < MAX_RSS_BYTES, f"{got.peak_rss_bytes / 2**20:.0f} MiB"


def test_the_battery_has_at_least_40_cases_of_issue_43s_entry_points():
    ids = [p.id for p in CASES]
    assert len(set(ids)) == len(ids) and len(ids) >= 40
    for prefix, least in (("phi-", 20), ("api-", 10), ("plugin-", 5)):
        assert sum(i.startswith(prefix) for i in ids) >= least, prefix


def test_a_command_whose_reader_has_gone_ends_quietly(tmp_path):
    # `python -m cognition.phi FILE | head -1`: the reader closes before the command writes its lines; a write
    # then raises BrokenPipeError. The command ends with exit code 1 and no traceback (cognition.cli.run_command,
    # which every command's __main__ calls); validate's run directory is complete before its lines are printed
    import os
    import subprocess

    from clitools import _env

    data = tmp_path / "five.npy"
    np.save(data, np.random.default_rng(0).standard_normal((6, 60, 3)))
    cases = [["cognition.phi", data, "--surrogates", "20"],
             ["cognition.validate", "--cycles", "20", "--disable-quantum", "--out", tmp_path / "run"]]
    for module, *args in cases:
        read, write = os.pipe()
        os.close(read)                  # the reader is gone before anything is written
        try:
            done = subprocess.run([sys.executable, "-m", module, *map(str, args)], stdout=write,
                                  stderr=subprocess.PIPE, env=_env(), text=True, timeout=300)
        finally:
            os.close(write)
        assert done.returncode == 1, (module, done.stderr[-2000:])
        assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr[-2000:]
    assert (tmp_path / "run" / "report.json").is_file()
