"""``python -m cognition.bench iit3``: exact IIT 3.0 Phi, seconds by node count.

Cases are PyPhi 1.2's reference networks (basic, xor, the `big` 4-node subsystem,
rule 152, `big`), rings of 6 and 7 cells of elementary cellular automaton rule 152, and
sparse stochastic networks of 5, 6 and 7 nodes (`iit3_networks.sparse_logistic_network`:
logistic units, density 0.5, beta 2, generator seed = node count). Each case is timed
from scratch (fresh caches) `--repeats` times and the median reported; the published
PyPhi value is printed beside ours where one exists. The side-by-side
comparison with PyPhi itself lives in benchmarks/pyphi_compare/ (it needs PyPhi's own
virtualenv).
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from cognition.benchmarks import suite_parser
from cognition.cli import MAX_WORKERS, int_between

from .iit3_networks import sparse_logistic_network

# PyPhi 1.2.0: pyphi/examples.py (basic_network, xor_network) and
# test/example_networks.py (big, rule152); published values from test/test_big_phi.py.
_BASIC = ([[0, 0, 0], [0, 0, 1], [1, 0, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 0]],
          [[0, 0, 1], [1, 0, 1], [1, 1, 0]])
_XOR = ([[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]],
        [[0, 1, 1], [1, 0, 1], [1, 1, 0]])
_BIG_ROWS = [
    "00000", "00000", "00000", "00110", "00000", "00010", "00011", "00111",
    "00000", "01000", "00001", "01111", "10001", "11011", "10011", "11111",
    "00000", "01100", "00100", "01110", "10000", "11110", "10111", "11111",
    "11000", "11100", "11101", "11111", "11001", "11111", "11111", "11111",
]


def elementary_ca(rule: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Ring of n cells, each x_i' = bit (4 x_{i-1} + 2 x_i + x_{i+1}) of `rule`.

    For rule 152 and n = 5 this is PyPhi's `rule152` test network (TPM and cm).
    Returns (state-by-node TPM (2^n, n), connectivity (n, n)).
    """
    states = (np.arange(1 << n)[:, None] >> np.arange(n)) & 1
    left, right = np.roll(states, 1, axis=1), np.roll(states, -1, axis=1)
    tpm = (rule >> (4 * left + 2 * states + right)) & 1
    cm = np.zeros((n, n), dtype=int)
    for i in range(n):
        for d in (-1, 0, 1):
            cm[i, (i + d) % n] = 1
    return tpm, cm


def cases() -> dict[str, dict]:
    """name -> {tpm, cm, state, nodes, published}: the benchmark systems."""
    big = np.array([[int(c) for c in row] for row in _BIG_ROWS])
    r152, r152_cm = elementary_ca(152, 5)
    out = {
        "basic": dict(tpm=np.array(_BASIC[0]), cm=np.array(_BASIC[1]), state=(1, 0, 0), nodes=None,
                      published=2.3125),
        "xor": dict(tpm=np.array(_XOR[0]), cm=np.array(_XOR[1]), state=(0, 0, 0), nodes=None,
                    published=1.874999),
        "big_0123": dict(tpm=big, cm=None, state=(1,) * 5, nodes=(0, 1, 2, 3), published=0.366389),
        "rule152": dict(tpm=r152, cm=r152_cm, state=(0,) * 5, nodes=None, published=6.952286),
        "big": dict(tpm=big, cm=None, state=(1,) * 5, nodes=None, published=10.729491),
    }
    for n in (6, 7):
        ring, ring_cm = elementary_ca(152, n)
        out[f"rule152_{n}"] = dict(tpm=ring, cm=ring_cm, state=(0,) * n, nodes=None, published=None)
    for n in (5, 6, 7):
        net = sparse_logistic_network(n, 0.5, 2.0, np.random.default_rng(n))
        out[f"sparse{n}"] = dict(tpm=net["tpm"], cm=net["cm"], state=net["state"], nodes=None, published=None)
    return out


def node_count(case: dict) -> int:
    return len(case["nodes"]) if case["nodes"] is not None else case["tpm"].shape[1]


def time_case(case: dict, repeats: int, workers: int = 1) -> tuple[float, object]:
    """(median seconds, last result) of `repeats` runs of iit3 on one case."""
    from cognition.phi.iit3 import iit3

    seconds, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = iit3(case["tpm"], case["state"], cm=case["cm"], nodes=case["nodes"], workers=workers)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), result


def main(argv: list[str] | None = None) -> dict:
    p = suite_parser("iit3", description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int_between(3, 7), nargs="+", default=[3, 4, 5, 6],
                   help="node counts to run (3 to 7, the cases there are; 7: the 7-node cases, minutes each)")
    p.add_argument("--repeats", type=int_between(1, 100), default=3,
                   help="runs per case below 6 nodes (median; 1 to 100)")
    p.add_argument("--large-repeats", type=int_between(1, 100), default=1,
                   help="runs per case of 6 or more nodes (1 to 100)")
    p.add_argument("--workers", type=int_between(1, MAX_WORKERS), default=1,
                   help=f"processes for cut evaluation (1 to {MAX_WORKERS})")
    args = p.parse_args(argv)
    rows = []
    print(f"{'case':<10} {'nodes':>5} {'Phi':>11} {'published':>10} {'seconds':>9}")
    for name, case in cases().items():
        n = node_count(case)
        if n not in args.nodes:
            continue
        repeats = args.repeats if n < 6 else args.large_repeats
        seconds, result = time_case(case, repeats, args.workers)
        published = case["published"]
        print(f"{name:<10} {n:>5} {result.phi:>11.6f} {published if published is not None else '-':>10} "
              f"{seconds:>9.3f}")
        rows.append(dict(case=name, nodes=n, phi=result.phi, published=published,
                         cut=str(result.cut), seconds_median=seconds, repeats=repeats,
                         workers=args.workers))
    by_nodes = {}
    for row in rows:
        by_nodes.setdefault(row["nodes"], []).append(row["seconds_median"])
    summary = {n: max(v) for n, v in sorted(by_nodes.items())}
    print("slowest case by node count (s):", ", ".join(f"{n}: {s:.3f}" for n, s in summary.items()))
    return {"cases": rows, "slowest_seconds_by_nodes": summary}
