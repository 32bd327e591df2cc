"""A battery of bad inputs (issue 33): each is one line on stderr, exit 2, no traceback, nothing written,
in well under 5 s and 500 MB, run in a subprocess under a memory limit so no case can endanger the machine.

The table ``CASES`` holds ``case(id, argv, fragment, files)``: ``argv`` after ``python``, run in a fresh
directory holding ``files`` (name -> text or bytes) and nothing else; ``fragment`` must appear in the one
line. Add a case for any entry point (sweep, validate, experiment, bench, report, doctor) by appending to it.
Before issue 33, ``seeds: 1000000000`` grew to 21.8 GB and was OOM-killed, a 10^6-point grid or
``samples: {count: 1000000000}`` gave no answer in 180 s, and a YAML alias bomb used as a config value
printed a 254 MB "line" after 16-22 s.

The unit tests at the end (abbreviate, the YAML expansion budget, the shared count checks) run in-process.
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from clitools import place_files, run_limited, tree_of

from cognition.cli import check_int_between, int_between, non_empty_path
from cognition.config.schema import MAX_INPUT_FILE_BYTES, check_file_size
from cognition.config.settings import load_config
from cognition.config.schema import MAX_YAML_NODES, load_yaml
from cognition.errors import ConfigError, YamlTooLargeError, abbreviate
from cognition.sweeps.spec import MAX_SWEEP_POINTS

MEMORY_LIMIT = 1536 * 2**20  # RLIMIT_AS of each case (address space: torch and numpy reserve more than they touch)
TIMEOUT_S = 20  # a case still running then is killed and fails
MAX_WALL_S = 5.0  # issue 33: each case answers within 5 s ...
MAX_RSS_BYTES = 500 * 2**20  # ... and 500 MB resident
MAX_LINE = 600  # characters of the one error line: a quoted value is abbreviated

# ---- inputs ------------------------------------------------------------------------------------------------


def _bomb(levels: int = 9) -> str:
    """A YAML list whose aliases expand to 9**levels strings from a few hundred bytes (a "billion laughs")."""
    rows = ["    - &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    rows += [f"    - &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(rows) + "\n"


BOMB_AS_CYCLES = "run:\n  cycles:\n" + _bomb()  # the case: a bomb used as a config value
BOMB_AS_GRID = "grid:\n  workspace.noise:\n" + _bomb()
RECURSIVE = "run: &r\n  cycles: *r\n"
HUGE_FILE = "# padding\n" * (MAX_INPUT_FILE_BYTES // 10 + 1000)  # just over 1 MiB of comments
HUGE_INT = "1" * 5000  # beyond Python's 4300-digit int() limit
LONG = "a" * 500_000  # a value far longer than one error line may quote
SIX_KEY_GRID = "grid:\n" + "".join(f"  {k}: [{', '.join(str(v) for v in range(1, 11))}]\n" for k in (
    "workspace.noise", "workspace.temperature", "workspace.inhibition", "workspace.adaptation",
    "workspace.self_excitation", "phi.bootstrap"))  # 10^6 points
ONE_KEY = "grid:\n  workspace.noise: [0.1, 0.2]\n"


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    fragment: str
    files: dict


def case(id: str, argv: list[str], fragment: str, files: dict | None = None):
    """One row of the battery: ``python ARGV`` in a directory holding ``files``; stderr is one line containing
    ``fragment``."""
    return pytest.param(Case(tuple(argv), fragment, dict(files or {})), id=id)


SWEEP = ["-m", "cognition.sweep"]
VALIDATE = ["-m", "cognition.validate", "--quick", "--out", "run"]


def sweep(id: str, text: str | bytes, fragment: str, *flags: str, dry_run: bool = True):
    """A sweep file ``s.yaml`` holding ``text``, run with ``--dry-run`` (or for real, ``dry_run=False``)."""
    argv = SWEEP + ["s.yaml", *flags] + (["--dry-run"] if dry_run else [])
    return case(id, argv, fragment, {"s.yaml": text})


def config(id: str, text: str | bytes, fragment: str):
    """A config file ``c.yaml`` holding ``text``, given to the main job."""
    return case(id, VALIDATE + ["--config", "c.yaml"], fragment, {"c.yaml": text})


CASES = [
    # sweep files: counts bounded before any point is built
    sweep("sweep-seeds-1e9", "seeds: 1000000000\n", "seeds = 1000000000 is not allowed: expected an integer "
          "from 1 to 10000", dry_run=False),
    sweep("sweep-seeds-1e9-dry", "seeds: 1000000000\n", "seeds = 1000000000 is not allowed"),
    sweep("sweep-samples-count-1e9", "samples: {count: 1000000000, keys: {workspace.noise: {uniform: [0.1, 0.5]}}}\n",
          "samples.count = 1000000000 is not allowed: expected an integer from 1 to 10000"),
    sweep("sweep-grid-1e6-points", SIX_KEY_GRID, "the sweep has 1,000,000 points (grid 1,000,000 x samples 1 x "
          "seeds 1): more than the limit of 10,000"),
    sweep("sweep-grid-1e6-points-run", SIX_KEY_GRID, "the sweep has 1,000,000 points", dry_run=False),
    sweep("sweep-grid-times-seeds", "grid:\n  workspace.noise: [" + ", ".join(str(i / 1000) for i in range(1, 101))
          + "]\nseeds: 101\n", "the sweep has 10,100 points (grid 100 x samples 1 x seeds 101)"),
    sweep("sweep-grid-samples-seeds", "grid:\n  workspace.noise: [0.1, 0.2]\nsamples: {count: 100, keys: "
          "{workspace.temperature: {uniform: [0.1, 1.0]}}}\nseeds: 51\n", "the sweep has 10,200 points (grid 2 x "
          "samples 100 x seeds 51)"),
    sweep("sweep-grid-list-too-long", "grid:\n  workspace.noise: [" + ", ".join(str(i) for i in range(10_001))
          + "]\n", "grid.workspace.noise lists 10,001 values: more than the limit of 10,000"),
    sweep("sweep-seed-list-too-long", "seeds: [" + ", ".join(str(i) for i in range(10_001)) + "]\n",
          "seeds lists 10,001 seeds: more than the limit of 10,000"),
    sweep("sweep-seeds-negative", "seeds: -1\n", "seeds = -1 is not allowed"),
    sweep("sweep-seeds-bool", "seeds: true\n", "seeds = True is not allowed"),
    sweep("sweep-seeds-repeated", "seeds: [0, 0]\n", "seeds = [0, 0] is not allowed"),
    sweep("sweep-seed-huge", "seeds: [100000000000000000000]\n", "expected a non-empty list of distinct integers "
          "from 0 to 9223372036854775807"),
    sweep("sweep-sample-seed-negative", "samples: {count: 2, seed: -1, keys: {workspace.noise: {uniform: [0.1, 0.5]}}}"
          "\n", "samples.seed = -1 is not allowed: expected an integer from 0 to"),
    sweep("sweep-randint-beyond-int64", "samples: {count: 2, keys: {phi.bootstrap: {randint: [0, "
          "1000000000000000000000000000000]}}}\n", "samples.keys.phi.bootstrap.randint = [0, "),
    sweep("sweep-uniform-infinite-range", "samples: {count: 2, keys: {workspace.noise: {uniform: [-1.0e+308, "
          "1.0e+308]}}}\n", "expected [low, high] finite numbers, low < high"),
    sweep("sweep-uniform-inf", "samples: {count: 2, keys: {workspace.noise: {uniform: [0, .inf]}}}\n",
          "expected [low, high] finite numbers"),
    sweep("sweep-choice-too-long", "samples: {count: 2, keys: {phi.bootstrap: {choice: ["
          + ", ".join(str(i) for i in range(10_001)) + "]}}}\n", "choice lists 10,001 values: more than the limit"),
    # sweep files: size, aliases, types, values quoted abbreviated
    sweep("sweep-alias-bomb", BOMB_AS_GRID, "expand it to more than 100,000 nodes"),
    sweep("sweep-alias-bomb-run", BOMB_AS_GRID, "expand it to more than 100,000 nodes", dry_run=False),
    sweep("sweep-recursive-alias", "grid: &g\n  workspace.noise: *g\n", "an alias refers to its own anchor"),
    sweep("sweep-file-over-1mib", ONE_KEY + HUGE_FILE, "expected a file of at most 1,048,576 bytes (1024 KiB); it "
          f"has {len(ONE_KEY + HUGE_FILE):,} bytes"),
    sweep("sweep-huge-int", f"seeds: {HUGE_INT}\n", "value has 5000 digits"),
    sweep("sweep-not-utf8", b"grid:\n  workspace.noise: ['\xff\xfe']\n", "expected valid YAML ('utf-8' codec"),
    sweep("sweep-not-a-mapping", "- 1\n- 2\n", "expected a YAML mapping at the top level"),
    sweep("sweep-long-name", f"name: {LONG}x!\n" + ONE_KEY, "(str, 500,002 characters) is not allowed"),
    sweep("sweep-long-grid-value", f"grid:\n  quantum.mode: [{LONG}]\n", "(str, 500,000 characters) is not allowed"),
    sweep("sweep-long-unknown-key", f"? {LONG}\n: 1\n" + ONE_KEY, "unknown key 'aaaa"),
    sweep("sweep-long-grid-key", f"grid:\n  ? {LONG}\n  : [1, 2]\n", "(str, 500,000 characters) is not a config key"),
    sweep("sweep-grid-not-mapping", "grid: [1, 2, 3]\n", "grid = [1, 2, 3] is not allowed"),
    sweep("sweep-base-cycles-too-many", "base: {run: {cycles: 1000000000000}}\n" + ONE_KEY,
          "run.cycles = 1000000000000 is not allowed"),
    sweep("sweep-missing-config", "config: nowhere.yaml\n" + ONE_KEY, "config = 'nowhere.yaml' is not allowed"),
    # sweep flags
    case("sweep-workers-1e9", SWEEP + ["s.yaml", "--workers", "1000000000"], "--workers: 1000000000 is not "
         "allowed: expected an integer from 1 to 256", {"s.yaml": ONE_KEY}),
    case("sweep-retries-1e9", SWEEP + ["s.yaml", "--retries", "1000000000"], "--retries: 1000000000 is not allowed",
         {"s.yaml": ONE_KEY}),
    case("sweep-workers-not-int", SWEEP + ["s.yaml", "--workers", "9" * 100_000], "--workers: '99999",
         {"s.yaml": ONE_KEY}),
    case("sweep-out-empty", SWEEP + ["s.yaml", "--out", ""], "--out: '' is not allowed: expected a path",
         {"s.yaml": ONE_KEY}),
    case("sweep-gpus-per-point-nan", SWEEP + ["s.yaml", "--ray", "--gpus-per-point", "nan"], "--gpus-per-point: nan",
         {"s.yaml": ONE_KEY}),
    case("sweep-file-missing", SWEEP + ["missing.yaml", "--dry-run"], "expected an existing YAML file"),
    # config files given to the main job
    config("config-alias-bomb", BOMB_AS_CYCLES, "--config = 'c.yaml' is not allowed: expected YAML of bounded size (its aliases"),
    config("config-recursive-alias", RECURSIVE, "an alias refers to its own anchor"),
    config("config-over-1mib", "run: {cycles: 3}\n" + HUGE_FILE, "expected a file of at most 1,048,576 bytes"),
    config("config-huge-int", f"run: {{cycles: {HUGE_INT}}}\n", "value has 5000 digits"),
    config("config-not-utf8", b"run: {cycles: '\xff'}\n", "expected valid YAML ('utf-8' codec"),
    config("config-long-string-value", f"run: {{cycles: {LONG}}}\n", "run.cycles = 'aaaa"),
    config("config-long-unknown-key", f"run:\n  ? {LONG}\n  : 1\n", "(str, 500,004 characters) (value 1)"),
    config("config-nested-100k-deep", "run: " + "[" * 100_000 + "\n", "expected YAML of bounded size (it nests more than 100 levels)"),
    sweep("sweep-nested-100k-deep", "grid: " + "{a: " * 50_000 + "\n", "it nests more than 100 levels"),
    config("config-nested-block-300-deep", "run:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 300)) + " " * 300
           + "x: 1\n", "it nests more than 100 levels"),
    config("config-wrong-type", "run: {cycles: [1, 2]}\n", "run.cycles = [1, 2] is not allowed: expected an integer"),
    config("config-section-not-mapping", "run: 5\n", "run"),
    case("config-is-a-directory", VALIDATE + ["--config", "d"], "expected an existing YAML file", {"d/keep": ""}),
    case("validate-out-empty", ["-m", "cognition.validate", "--quick", "--out", ""], "--out: '' is not allowed: expected a path"),
    case("validate-cycles-100k-digits", ["-m", "cognition.validate", "--quick", "--cycles", "7" * 100_000],
         "--cycles: '7777"),
    # bench: every suite's counts bounded in its parser (cognition/benchmarks/*.py), before any work
    *[case(f"bench-{suite}-{flag[2:]}-{value}", ["-m", "cognition.bench", suite, flag, value], fragment)
      for suite, flag, value, fragment in [
          ("agents", "--agents", "0", "--agents: 0 is not allowed: expected an integer from 1 to 1048576"),
          ("agents", "--agents", "1000000000", "--agents: 1000000000 is not allowed: expected an integer from 1"),
          ("agents", "--cycles", "-3", "--cycles: -3 is not allowed: expected an integer from 1 to 10000"),
          ("agents", "--repeats", "0", "--repeats: 0 is not allowed: expected an integer from 1 to 100"),
          ("agents", "--threads", "-4", "--threads: -4 is not allowed: expected an integer from 0 to 1024"),
          ("agents", "--device", "gpu", "--device 'gpu': allowed auto, cpu, cuda, cuda:N (N >= 0)"),
          ("agents", "--machine-agents", "0", "--machine-agents: 0 is not allowed"),
          ("agents", "--profile", "-1", "--profile: -1 is not allowed"),
          ("agents", "--agents", "7" * 100_000, "--agents: '7777"),
          ("agents", "--modes", "bogus", "--modes: invalid choice: 'bogus'"),
          ("phi", "--exhaustive", "40", "--exhaustive: 40 is not allowed: expected an integer from 2 to 20"),
          ("phi", "--repeats", "0", "--repeats: 0 is not allowed"),
          ("phi", "--seed", "-1", "--seed: -1 is not allowed"),
          ("phi", "--device", "tpu", "--device 'tpu': allowed auto, cpu, cuda, cuda:N"),
          ("quantum", "--sets", "0", "--sets: 0 is not allowed: expected an integer from 1 to 100000"),
          ("quantum", "--widths", "30", "--widths: 30 is not allowed: expected an integer from 1 to 20"),
          ("quantum", "--threads", "-1", "--threads: -1 is not allowed"),
          ("iit3", "--nodes", "9", "--nodes: 9 is not allowed: expected an integer from 3 to 7"),
          ("iit3", "--workers", "0", "--workers: 0 is not allowed"),
          ("runtime", "--agents", "0", "--agents: 0 is not allowed: expected an integer from 1 to 4096"),
          ("runtime", "--planned", "1", "--planned: 1 is not allowed"),
          ("meanci", "--confidence", "1.5", "--confidence 1.5: allowed 0 < c < 1"),
          ("meanci", "--window", "1", "--window: 1 is not allowed: expected an integer from 2 to 50"),
          ("calibration", "--seed", "-1", "--seed: -1 is not allowed"),
          ("calibration", "--systems", "0", "--systems 0: allowed 1 .. 100000"),
          ("workspace", "--seeds", "0", "--seeds 0: allowed 1 .. 100000"),
          ("directions", "--draws", "x", "--draws: invalid int value: 'x'"),
          ("compare", "--group-size", "1", "--group-size: 1 is not allowed: expected an integer from 2 to 1000"),
          ("compare", "--alpha", "2", "--alpha 2.0: between 0 and 1 allowed"),
      ]],
    case("bench-quantum-sets-x-widths", ["-m", "cognition.bench", "quantum", "--sets", "100000", "--widths", "12"],
         "--sets 100000 x 2^12 (--widths): 409,600,000 probabilities per path; allowed at most 16,777,216"),
    case("bench-runtime-agents-x-long", ["-m", "cognition.bench", "runtime", "--agents", "4096", "--long", "100000"],
         "--agents 4096 x 100000 cycles (the longest run: --long, --first + 1): 409,600,000 agent-cycles"),
    case("bench-runtime-first-over-planned", ["-m", "cognition.bench", "runtime", "--first", "500", "--planned",
                                              "400"], "--first 500: allowed 2 to the shortest --planned (400)"),
    case("bench-agents-row-too-long", ["-m", "cognition.bench", "agents", "--agents", "100000", "--cycles", "1000"],
         "agent-cycles in a row; allowed at most 100,000,000"),
    case("bench-agents-device-cuda-9", ["-m", "cognition.bench", "agents", "--device", "cuda:9"], "--device cuda"),
    case("bench-compare-too-many-runs", ["-m", "cognition.bench", "compare", "--group-size", "1000", "--comparisons",
                                         "100"], "200000 runs per mode; allowed at most 10000"),
    case("bench-unknown-suite", ["-m", "cognition.bench", "nosuch"], "argument suite: invalid choice: 'nosuch'"),
    case("bench-unknown-flag", ["-m", "cognition.bench", "agents", "--nope"], "unrecognized arguments: --nope"),
    # experiment ablations: flags bounded, the runs' own memory and disk plan, --out checked, before the claim
    *[case(f"experiment-{flag[2:]}-{value[:12]}", ["-m", "cognition.experiment", "ablations", "--out", "D", flag,
                                                   value], fragment)
      for flag, value, fragment in [
          ("--cycles", "1000000000000", "--cycles: 1000000000000 is not allowed: expected an integer from 2 to "
                                        "999999999"),
          ("--seeds", "1", "--seeds: 1 is not allowed: expected an integer from 2 to 10000"),
          ("--workers", "0", "--workers: 0 is not allowed: expected an integer from 1 to 256"),
          ("--first-seed", "-1", "--first-seed: -1 is not allowed"),
          ("--agents", "0", "--agents: 0 is not allowed"),
          ("--agents", "1000000000", "--agents 1000000000: expected a run whose state fits host memory, whose tightest limit is"),
          ("--cycles", "900000000", ": expected a run whose state fits host memory, whose tightest limit is"),
          ("--seeds", "9" * 100_000, "--seeds: '9999"),
      ]],
    case("experiment-out-is-a-file", ["-m", "cognition.experiment", "ablations", "--out", "f"],
         "--out 'f': is a file, not a directory", {"f": "mine"}),
    case("experiment-out-under-a-file", ["-m", "cognition.experiment", "ablations", "--out", "f/sub"],
         "--out 'f/sub': cannot create the experiment's directory (", {"f": "mine"}),
    case("experiment-unknown-subcommand", ["-m", "cognition.experiment", "bogus"],
         "argument experiment: invalid choice: 'bogus'"),
    case("experiment-no-subcommand", ["-m", "cognition.experiment"], "the following arguments are required"),
    # report and doctor
    case("report-not-a-run", ["-m", "cognition.report", "d"], "d: not a hybrid-cognition run directory",
         {"d/keep": ""}),
    case("report-nothing-to-do", ["-m", "cognition.report"], "nothing to do"),
    case("report-one-group", ["-m", "cognition.report", "--group", "a", "b"], "--group given once"),
    case("doctor-unknown-flag", ["-m", "cognition.doctor", "--bogus"], "unrecognized arguments: --bogus"),
    case("doctor-extra-argument", ["-m", "cognition.doctor", "extra"], "unrecognized arguments: extra"),
]


# ---- running one case --------------------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("bad", CASES)
def test_a_bad_input_is_one_line_exit_2_nothing_written_fast_and_small(bad: Case, tmp_path):
    place_files(tmp_path, bad.files)
    before = tree_of(tmp_path)
    got = run_limited(bad.argv, tmp_path, MEMORY_LIMIT, TIMEOUT_S)
    lines = got.stderr.splitlines()
    assert not got.timed_out, f"still running after {TIMEOUT_S} s"
    assert "Traceback" not in got.stderr, got.stderr[-2000:]
    assert got.rc == 2, (got.rc, got.stderr[-2000:])
    assert len(lines) == 1, got.stderr[:2000]
    assert bad.fragment in lines[0], lines[0][:2000]
    assert len(lines[0]) <= MAX_LINE, f"{len(lines[0])} characters: {lines[0][:300]}"
    assert tree_of(tmp_path) == before, sorted(tree_of(tmp_path) - before)
    assert got.wall_s < MAX_WALL_S, f"{got.wall_s:.2f} s"
    assert got.peak_rss_bytes < MAX_RSS_BYTES, f"{got.peak_rss_bytes / 2**20:.0f} MiB"


def test_the_battery_has_at_least_25_sweep_and_config_file_cases():
    ids = [p.id for p in CASES]
    assert len(set(ids)) == len(ids)
    assert sum(i.startswith(("sweep-", "config-")) for i in ids) >= 25


# ---- the shared pieces, in-process -------------------------------------------------------------------------


def _python_bomb(levels: int):
    value = ["lol"] * 9
    for _ in range(levels - 1):
        value = [value] * 9
    return value


def test_abbreviate_quotes_short_values_whole_and_cuts_long_ones_with_type_and_size():
    assert abbreviate(12) == "12"
    assert abbreviate("lite") == "'lite'"
    assert abbreviate([1, 2]) == "[1, 2]"
    text = abbreviate("a" * 10**6)
    assert text.startswith("'aaa") and text.endswith("… (str, 1,000,000 characters)") and len(text) < 120
    cut = abbreviate(list(range(10**5)))
    assert cut.startswith("[0, 1, 2") and cut.endswith("(list, 100,000 items, 100,000 in all)")
    assert abbreviate(10**20000) == "<int of about 20,000 digits>"


def test_abbreviate_measures_an_alias_bomb_without_expanding_it():
    start = time.monotonic()
    text = abbreviate(_python_bomb(12))  # 9**12 = 2.8e11 strings if expanded
    assert time.monotonic() - start < 1.0
    assert len(text) < 120 and text.endswith("(list, 9 items, 3.2e+11 in all)"), text  # 9 + 81 + ... + 9**12
    loop: list = []
    loop.append(loop)
    assert abbreviate(loop) == "[[...]]"
    deep: list = [1] * 100
    for _ in range(20_000):  # more distinct containers than the walk visits
        deep = [deep, "x" * 10]
    assert "more than 10,000 containers or 200 levels" in abbreviate(deep)


def test_a_config_error_quotes_an_alias_bomb_in_one_short_line():
    start = time.monotonic()
    with pytest.raises(ConfigError) as info:
        load_config(overrides={"run": {"cycles": _python_bomb(9)}})
    assert time.monotonic() - start < 2.0
    assert len(str(info.value)) < 200 and "(list, 9 items," in str(info.value)


def test_the_yaml_loader_refuses_aliases_past_its_budget_and_loads_ordinary_anchors():
    with pytest.raises(YamlTooLargeError, match="100,000 nodes"):
        load_yaml("x:\n" + _bomb(6))  # 9**6 = 531 441 nodes once expanded
    with pytest.raises(YamlTooLargeError, match="its own anchor"):
        load_yaml(RECURSIVE)
    assert load_yaml("a: &a {cycles: 3}\nb: *a\nc: {<<: *a, seed: 1}\n") == {
        "a": {"cycles": 3}, "b": {"cycles": 3}, "c": {"cycles": 3, "seed": 1}}
    assert len(load_yaml("x:\n" + _bomb(5))["x"]) == 5  # 9**5 = 59 049 nodes: within MAX_YAML_NODES
    assert 9**5 < MAX_YAML_NODES < 9**6


def test_int_between_and_check_int_between_name_the_value_and_range():
    parse = int_between(1, 10)
    assert parse("10") == 10 and parse.__name__ == "integer from 1 to 10"
    for text, fragment in (("11", "11 is not allowed: expected an integer from 1 to 10"),
                           ("x", "'x' is not an integer"), ("5" * 10_000, "… (str, 10,000 characters)")):
        with pytest.raises(argparse.ArgumentTypeError, match=None) as info:
            parse(text)
        assert fragment in str(info.value) and len(str(info.value)) < 200
    assert check_int_between("seeds", 3, 1, 5) == 3
    for bad in (0, 6, True, 3.0, "3", None):
        with pytest.raises(ConfigError, match="seeds = .* is not allowed: expected an integer from 1 to 5"):
            check_int_between("seeds", bad, 1, 5)
    assert non_empty_path("runs/a") == "runs/a"
    with pytest.raises(argparse.ArgumentTypeError, match="'' is not allowed"):
        non_empty_path("")


def test_check_file_size_refuses_a_large_file_naming_it_its_size_and_the_limit(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * 2049)
    check_file_size(path, "--config", limit=2049)
    check_file_size(tmp_path / "missing.yaml", "--config")  # left to the caller's open()
    with pytest.raises(ConfigError) as info:
        check_file_size(path, "--config", limit=2048)
    assert str(info.value) == (f"--config = {str(path)!r} is not allowed: expected a file of at most 2,048 bytes "
                               "(2 KiB); it has 2,049 bytes and is refused unread")


def test_the_point_limit_is_what_the_docs_say():
    text = (Path(__file__).resolve().parent.parent / "docs" / "sweeps.md").read_text()
    assert MAX_SWEEP_POINTS == 10_000 and "| 10 000 (`MAX_SWEEP_POINTS`)" in text
    assert MAX_INPUT_FILE_BYTES == 2**20 and "1 MiB (1 048 576 bytes)" in text
