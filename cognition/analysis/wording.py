"""One label per Phi quantity, worded once for report.md, report.html, the comparison, its plot and the CLI.

A run's report.json holds three Phi quantities that must never share a label:

* the **headline** (``phi.headline_bits``) of a run of at least 5 agents: the mean over agents of
  each agent's own Phi, bias-corrected, with a t interval across agents and the within-agent
  trial-shuffling integration test (``phi.headline_ci_bits``, ``phi.headline_p_value``);
* the headline of a run of fewer agents: a plug-in estimate **pooled over agents** (descriptive),
  with a block-bootstrap interval and a circular-shift test (H0: the units are independent). Its
  numbers sit in the same report.json keys, so every label reads :func:`headline_pooled` to say which;
* the **mean per-cycle** Phi (``phi.mean_bits``), descriptive: each cycle's window pooled over agents.

The headline's interval and p-value are always printed beside the headline's own point value
(:func:`headline_numbers`), never beside another estimate's.
"""
from __future__ import annotations

from cognition.analysis import fmt


def headline_pooled(phi: dict) -> bool:
    """True when report.json's headline is the pooled plug-in estimate (no per-agent values behind it)."""
    whole = phi.get("whole_run") or {}
    return bool(whole) and not whole.get("per_agent")


def headline_name(phi: dict) -> str:
    """``headline phi_r (mean over agents of each agent's own Phi)``, the pooled estimate's label, or
    ``headline phi_r`` alone when the run has none (``phi.whole_run_note`` says why)."""
    m = phi["measure"]
    if not phi.get("whole_run"):
        return f"headline {m}"
    if headline_pooled(phi):
        return f"headline {m} (pooled over agents, descriptive: too few agents for each agent's own Phi)"
    return f"headline {m} (mean over agents of each agent's own Phi)"


def headline_test_name(phi: dict) -> str:
    """The test whose p-value ``phi.headline_p_value`` is: the integration test, or (pooled) a circular shift."""
    return "circular-shift test (H0: units independent)" if headline_pooled(phi) else "integration test"


def headline_numbers(phi: dict) -> str:
    """``0.2958 bits, CI [0.1340, 0.5410] bits, integration test p = 0.0050``: the headline with its own
    interval and test, as every place prints them."""
    return (f"{fmt.bits(phi.get('headline_bits'))}, CI {fmt.interval(phi.get('headline_ci_bits'))}, "
            f"{headline_test_name(phi)} p = {fmt.p_value(phi.get('headline_p_value'))}")


def per_cycle_mean_name(measure: str) -> str:
    """``mean per-cycle phi_r``: the mean over cycles of the per-cycle (windowed, pooled) Phi."""
    return f"mean per-cycle {measure}"
