"""lag="auto": the decorrelation time of each series, their median (cognition/phi/autolag.py, issue 44 item 3).

References: the autocorrelation of an AR(1) is rho^tau, so its decorrelation time (first |rho(tau)| <= 1/e) is
ceil(-1 / ln rho); that of a sinusoid of period P is cos(2 pi tau / P), first <= 1/e at
ceil(P arccos(1/e) / (2 pi)); a random walk's memory outlasts any range."""
from __future__ import annotations

import json

import numpy as np
import pytest
from clitools import command, python_code

from cognition import phi
from cognition.phi import calibration as C
from cognition.phi.autolag import autocorrelation, choose_lag, first_ami_minimum


def _ar1(rng, rho, agents=4, T=20_000, n=3):
    return C.independent_ar1(rng, agents, T, n, rho)


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.8, 0.9])
def test_an_ar1_gets_its_decorrelation_time(rho):
    X = _ar1(np.random.default_rng(int(rho * 10)), rho)
    expected = 1 if rho == 0.0 else int(np.ceil(-1.0 / np.log(rho)))  # 0.5: 2, 0.8: 5, 0.9: 10
    choice = choose_lag(X, 50)
    assert choice.lag == expected and set(choice.rules.ravel()) == {"decorrelation"}
    assert choice.per_series.shape == (4, 3)


def test_a_sinusoid_gets_the_first_lag_its_cosine_falls_below_one_over_e():
    rng = np.random.default_rng(3)
    P = 40.0
    t = np.arange(4000)
    X = np.stack([np.sin(2 * np.pi * t / P + rng.uniform(0, 2 * np.pi, 2)[:, None]).T
                  for _ in range(5)]) + 0.01 * rng.standard_normal((5, 4000, 2))
    assert choose_lag(X, 30).lag == int(np.ceil(P * np.arccos(np.exp(-1)) / (2 * np.pi)))  # 8
    assert np.all(first_ami_minimum(X, 30) == P / 4)  # the rule not used: a quarter period, rho = 0


def test_memory_beyond_the_range_takes_its_end_and_the_autocorrelation_is_the_textbook_estimator():
    rng = np.random.default_rng(5)
    walk = np.cumsum(rng.standard_normal((5, 400, 2)), axis=1)
    choice = choose_lag(walk, 12)
    assert choice.lag == 12 and set(choice.rules.ravel()) == {"range end"}
    x = rng.standard_normal((1, 50, 1))
    z = x[0, :, 0] - x.mean()
    assert autocorrelation(x, 3)[0, 2, 0] == pytest.approx(np.sum(z[:-2] * z[2:]) / np.sum(z * z), rel=1e-12)
    assert np.all(autocorrelation(np.ones((2, 20, 2)), 2)[:, 1:] == 0.0)  # a constant series: no memory
    with pytest.raises(ValueError, match="max_lag 0"):
        choose_lag(walk, 0)


def test_estimate_with_lag_auto_is_estimate_at_the_chosen_lag_and_says_why():
    X = C.kuramoto(np.random.default_rng(2), 8, 150, 3, 1.5)
    auto = phi.estimate(X, lag="auto", surrogates=19)
    choice = choose_lag(X, min(150 - 6 * 3, 150 // 4))
    assert auto.lag == choice.lag > 1
    fixed = phi.estimate(X, lag=choice.lag, surrogates=19)
    assert auto.headline_bits == fixed.headline_bits and auto.ci == fixed.ci and auto.p_value == fixed.p_value
    assert auto.method["lag"] == choice.describe() and auto.method["lag_choice"]["lag"] == choice.lag
    assert "lag" not in fixed.method
    assert phi.estimate(X[0], lag="auto").lag == choose_lag(X[:1], 150 // 4).lag  # one series, pooled
    with pytest.raises(ValueError, match="lag must be an integer >= 1"):
        phi.estimate(X, lag="automatic")
    with pytest.raises(ValueError, match="lag='auto': X has T=18 time steps"):
        phi.estimate(X[:, :18], lag="auto")  # per agent: 6 n = 18 steps leave no room for any lag


def test_the_command_says_which_lag_it_used_and_why(tmp_path):
    X = C.kuramoto(np.random.default_rng(2), 8, 150, 3, 1.5)
    np.save(tmp_path / "osc.npy", X)
    res = command("cognition.phi", tmp_path / "osc.npy", "--lag", "auto", "--surrogates", "19", "--json",
                  tmp_path / "out.json", timeout=120)
    assert res.returncode == 0, res.stderr
    doc = json.loads((tmp_path / "out.json").read_text())
    r = phi.estimate(X, lag="auto", surrogates=19, centre="agent")
    assert doc["lag"] == r.lag and doc["lag_requested"] == "auto" and doc["lag_choice"] == r.method["lag_choice"]
    assert doc["estimate"] == json.loads(json.dumps(r.to_dict()))
    assert r.method["lag"] in res.stdout and "estimate(X, lag='auto'," in res.stdout
    bad = command("cognition.phi", tmp_path / "osc.npy", "--lag", "soon", timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "'soon' is not an integer, or 'auto'" in bad.stderr


def test_the_oscillators_lock_with_coupling_and_the_shuffled_control_mixes_trials():
    # Kuramoto order parameter |mean_j exp(i theta_j)| rises with coupling (Kuramoto 1984): read from the phase,
    # recovered here through sin(theta) only as a check of direction: the units' mean pairwise correlation
    rng = np.random.default_rng(8)

    def mean_correlation(X):
        c = [np.corrcoef(x.T)[np.triu_indices(X.shape[2], 1)].mean() for x in X]
        return float(np.mean(c))

    free = C.kuramoto(rng, 10, 300, 4, 0.0)
    locked = C.kuramoto(rng, 10, 300, 4, 4.0)
    assert abs(mean_correlation(free)) < 0.15 < 0.5 < mean_correlation(locked)
    labels = np.arange(7)[:, None, None] * 10 + np.arange(4)[None, None, :] + np.zeros((7, 5, 4))
    mixed = C.trial_shuffled(rng, labels)
    source = mixed[:, 0, :] // 10
    assert all(len(set(row)) == 4 for row in source.tolist())  # every shuffled trial: units of 4 trials
    assert np.array_equal(mixed[:, 0, :] % 10, np.tile(np.arange(4), (7, 1)))  # each unit stays itself
    assert sorted(source[:, 1].tolist()) == list(range(7))  # and every trial of it is used once
    with pytest.raises(ValueError, match="at least as many trials as units"):
        C.trial_shuffled(rng, labels[:3])


def test_the_docs_oscillator_example_prints_what_the_page_quotes(tmp_path):
    # docs/phi.md, "Choosing the lag": the page's commands, run as printed, print the page's output (the page's
    # numbers are the commands' own); reference for the verdicts: the shuffled control is null by construction
    import re
    import shlex
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "phi.md").read_text()
    section = page[page.index("### Choosing the lag"):]
    commands = re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip().splitlines()
    quoted = re.search(r"```\n(oscillators.npy.*?)```", section, re.S).group(1).strip()
    printed = []
    for line in commands:
        argv = shlex.split(line)
        assert argv[0] == "python" and argv[1] in ("-c", "-m"), line
        if argv[1] == "-c":
            made = python_code(argv[2], cwd=tmp_path, timeout=120)
            assert made.returncode == 0, made.stderr[-2000:]
        else:
            res = command(argv[2], *argv[3:], cwd=tmp_path, timeout=300)
            assert res.returncode == 0, res.stderr[-2000:]
            printed.append(res.stdout.strip())
    assert "\n".join(printed) == quoted
    assert quoted.count("integrated: no") >= 2 and "shuffled.npy" in quoted
