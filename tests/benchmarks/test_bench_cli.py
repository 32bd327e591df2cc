"""Commands show their options and say what they did (issue 18, "Commands that hide their options")."""
import pytest

from cognition.bench import SUITES, main
from cognition.reporting.sections import criterion_value

# one flag each suite's own parser defines (cognition/benchmarks/<suite>.py)
SUITE_FLAG = {"phi": "--repeats", "quantum": "--sets", "iit3": "--nodes", "agents": "--agents",
              "runtime": "--planned", "calibration": "--systems", "workspace": "--seeds",
              "compare": "--group-size", "meanci": "--truth-windows", "directions": "--draws",
              "iit4": "--pyphi-structure-max-nodes", "intervention": "--arch-draws", "lag": "--couplings", "analysis": "--cycles-at"}


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_a_suites_help_lists_its_own_flags(suite, capsys):
    with pytest.raises(SystemExit) as exc:
        main([suite, "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    assert f"python -m cognition.bench {suite}" in out and SUITE_FLAG[suite] in out


def test_a_suite_flag_without_its_suite_is_refused(capsys):
    assert main(["--threads=1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--threads=1" in err[0] and "name the suite first" in err[0]


def test_suite_titles_state_no_size_a_flag_can_change():
    assert "1000" not in SUITES["quantum"]


def test_summary_values_are_rounded_and_worded():
    assert criterion_value({"value": 1.268290059074414, "required": ">= 0.0 bits"}) == "1.2683 bits"
    assert criterion_value({"value": 0.31343283582089554, "required": "p-value < 0.05"}) == "0.3134"
    assert criterion_value({"value": "none", "required": "no fallback"}) == "none"
