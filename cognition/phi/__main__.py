"""``python -m cognition.phi FILE [--json OUT] [--axes agents,time,units]``: Phi of one's own data.

FILE holds an ensemble of >= 5 independent agents (or trials), each a series of the same units
(.npy, .csv or .nc: :mod:`cognition.reporting.datafile`). It prints the calibrated ensemble estimate of
:func:`cognition.phi.estimate` (``centre='agent'``): the headline (the mean over agents of each
agent's own Phi, bias-corrected) with its interval across agents, the integration test's p-value
and its weakest cut, the most common per-agent MIB and the one verdict, under the names report.json
gives them (docs/phi.md, "Phi of your own data"). ``--json OUT`` writes the same, with
``estimate``: exactly ``phi.estimate(X, ...).to_dict()`` for the call it names. Exit 0 with an
estimate; 2 with one line on stderr for anything it cannot estimate.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cognition.analysis.summary import integration_verdict
from cognition.cli import (EXIT_OK, EXIT_USAGE, OneLineParser, check_output_file, int_at_least, int_between, lag_value,
                           non_empty_path, run_command)
from cognition.errors import UsageError, first_line
from cognition.reporting.datafile import AXES, CSV_COLUMNS, MAX_FILE_BYTES, DataSeries, read_series
from cognition.phi.estimate import DEFAULT_SURROGATES, REPORTED, estimate
from cognition.phi.result import PhiResult
from cognition.phi.validation import MAX_RESAMPLES
from cognition.analysis import fmt
from cognition.runtime.host_memory import retain_freed_memory

PROG = "python -m cognition.phi"


def _fraction(text: str) -> float:
    """An argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: expected a number between 0 and 1")
    return value


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description=(
        "Phi of your own data: the calibrated ensemble estimate of cognition.phi.estimate (per-agent Phi, "
        "bias-corrected, its interval across agents, the integration test and the MIB) for an ensemble of >= 5 "
        "agents or trials x time x units (docs/phi.md)."))
    p.add_argument("file", metavar="FILE", help=(
        f".npy (a 3-D array), .csv (long format: columns {','.join(CSV_COLUMNS)}) or .nc (one 3-D variable; needs "
        f"the 'tables' extra); at most {MAX_FILE_BYTES // 2**20} MiB"))
    p.add_argument("--axes", metavar="A,B,C", help=(
        f"the file's axis order, a permutation of {','.join(AXES)} ('trials' for 'agents'); default "
        f"{','.join(AXES)} for .npy, the dimension names for .nc"))
    p.add_argument("--var", metavar="NAME", help="the data variable of a .nc file holding several")
    p.add_argument("--json", metavar="OUT", type=non_empty_path, help="also write the result as JSON to OUT")
    p.add_argument("--measure", choices=REPORTED[::-1], default="phi_r", help="the headline measure (default phi_r)")
    p.add_argument("--lag", type=lag_value, default=1, help=(
        "time steps between past and present (default 1), or 'auto': the median over every agent's units of each "
        "series' decorrelation time (its first lag with |autocorrelation| <= 1/e; docs/phi.md, 'Choosing the lag')"))
    p.add_argument("--surrogates", type=int_between(1, MAX_RESAMPLES), default=DEFAULT_SURROGATES,
                   help=f"agent permutations per bipartition for the integration test (default {DEFAULT_SURROGATES})")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the bias correction and test (default 0)")
    p.add_argument("--confidence", type=_fraction, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--alpha", type=_fraction, default=0.05, help="level of the test for the verdict (default 0.05)")
    return p


def estimate_series(series: DataSeries, lag: int | str, surrogates: int, seed: int, confidence: float) -> PhiResult:
    """The calibrated ensemble estimate of a file's series: ``phi.estimate`` as :func:`estimate_call` names it."""
    return estimate(series.data, lag=lag, surrogates=surrogates, seed=seed, confidence=confidence, centre="agent")


def estimate_call(lag: int | str, surrogates: int, seed: int, confidence: float) -> str:
    """The Python call that gives the same numbers, X the file's array as (agents, time, units)."""
    return (f"cognition.phi.estimate(X, lag={lag!r}, surrogates={surrogates}, seed={seed}, confidence={confidence}, "
            "centre='agent')")


def summarise(path: str, series: DataSeries, result: PhiResult, args) -> dict:
    """The JSON document: the headline under report.json's names, and the estimate itself."""
    names = series.unit_names or [str(i) for i in range(series.data.shape[2])]

    def named(mib):
        return [[names[i] for i in part] for part in mib]

    measure = args.measure
    ci = list(result.ci[measure])
    p = result.p_value[measure]
    headline = result.headline(measure)
    agents, T, n = series.data.shape
    return {"file": str(path), "format": series.source, "axes": list(series.axes),
            "shape": {"agents": agents, "time": T, "units": n}, "unit_names": series.unit_names,
            "call": estimate_call(args.lag, args.surrogates, args.seed, args.confidence),
            "measure": measure, "units": "bits", "lag": result.lag, "lag_requested": args.lag,
            "lag_choice": result.method.get("lag_choice"), "confidence": args.confidence, "alpha": args.alpha,
            "headline_bits": headline, "headline_ci_bits": ci, "headline_p_value": p,
            "headline_method": result.method["estimand"],
            "integrated": integration_verdict(headline, ci, p, args.alpha),
            "partition": [list(part) for part in result.mib], "partition_named": named(result.mib),
            "mib_stability": result.mib_stability,
            "weakest_cut": named(result.weakest_cut[measure]),
            "estimate": result.to_dict()}


def describe(doc: dict) -> str:
    """The printed summary of :func:`summarise`'s document."""
    shape, measure = doc["shape"], doc["measure"]
    agents = shape["agents"]
    modal = round(doc["mib_stability"] * agents)
    verdict = doc["integrated"]

    def cut(parts):
        return " | ".join(", ".join(part) for part in parts)

    return "\n".join([
        f"{doc['file']}: {agents} agents x {shape['time']} time steps x {shape['units']} units "
        f"(axes {','.join(doc['axes'])})",
        f"{measure}: {fmt.bits(doc['headline_bits'])}, {fmt.percent(doc['confidence'], 0)} CI "
        f"{fmt.interval(doc['headline_ci_bits'])} ({doc['headline_method']}, bias-corrected)",
        f"integration test: p = {fmt.p_value(doc['headline_p_value'])} "
        f"({doc['estimate']['method']['null_model'].split(',')[0]}; weakest cut: {cut(doc['weakest_cut'])})",
        f"MIB (the most common per-agent MIB, {modal} of {agents} agents): {cut(doc['partition_named'])}",
        *([doc["estimate"]["method"]["lag"]] if doc["lag_requested"] == "auto" else []),
        f"integrated: {'yes' if verdict['passed'] else 'no'} (alpha {doc['alpha']}): {verdict['reason']}",
        f"same numbers in Python: {doc['call']}",
    ])


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        # as a run's Session does: the bias ensembles free and allocate blocks of tens of MiB per replicate,
        # which the heap then keeps instead of faulting them back in (50 x 28 000 x 5: 32 -> 27 s; no number moves)
        retain_freed_memory()
        if args.json:
            check_output_file("--json", args.json)
        series = read_series(args.file, args.axes, args.var)
        try:
            result = estimate_series(series, args.lag, args.surrogates, args.seed, args.confidence)
        except ValueError as exc:  # too few time steps, a constant unit, too many units, ...
            agents, T, n = series.data.shape
            raise UsageError(f"FILE = '{args.file}' ({agents} agents x {T} time steps x {n} units, axes "
                             f"{','.join(series.axes)}): Phi cannot be estimated: {first_line(str(exc))}") from None
        doc = summarise(args.file, series, result, args)
        if args.json:
            try:
                Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
            except OSError as exc:
                raise UsageError(f"--json = {args.json!r} cannot be written ({exc.strerror or exc})") from None
        print(describe(doc))
        if args.json:
            print(f"wrote {args.json}")
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


if __name__ == "__main__":
    run_command(main)
