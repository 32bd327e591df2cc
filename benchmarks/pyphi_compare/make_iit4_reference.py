"""PyPhi 2.0 (IIT 4.0) reference values for `cognition.phi.iit4`.

    python benchmarks/pyphi_compare/make_iit4_reference.py                  # all four files
    python benchmarks/pyphi_compare/make_iit4_reference.py --files sia --max-n 4
    python benchmarks/pyphi_compare/make_iit4_reference.py --venv /tmp/pyphi2/venv --out-dir tests/reference

Runs with the package's Python; PyPhi itself runs in its own virtualenv (see
setup_venv_pyphi2.sh) through pyphi2_worker.py, one process at a time, with
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 and PyPhi's parallelism off. Writes, under
--out-dir:

- iit4_sia.json: system irreducibility analysis (phi_s, MIP, specified cause/effect
  states, ties) of generated networks, 2-6 nodes, families logic / logistic / ising /
  sparse / reducible / subsystem, both formalisms (IIT_4_0_2023, IIT_4_0_2026);
- iit4_ces.json: Phi-structures (distinctions, analytical relation sum, big Phi);
- iit4_complexes.json: PyPhi's complexes (maximal complex first) and every candidate
  system with phi_s > 0;
- iit4_examples.json: the worked examples of Albantakis et al. 2023 as PyPhi ships them
  (pyphi.examples), with the published values PyPhi's acceptance tests assert.

Networks are made here from --seed (numpy only; nothing here imports the package or
PyPhi): `sia_networks` draws a planned set per size and family, then two appended rounds
(more networks in typical states at 3-5 nodes; aligned states of ferromagnetic /
excitatory 6-node networks), appended so that earlier networks keep their names and
draws. The Phi-structure and complex files take subsets of them (`_ces_networks`,
`_complex_networks`). Each file is rewritten after every batch of PyPhi runs and what it already holds
is skipped, so an interrupted run resumes; --max-n / --min-n / --files choose what runs
now (small sizes first, so partial files are usable early).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parent / "pyphi2_worker.py"
FORMALISMS = ("IIT_4_0_2023", "IIT_4_0_2026")
CONVENTIONS = ("tpm: state-by-node, 2**n rows, little-endian (row index = sum_i s_i 2**i, node 0 "
               "fastest), tpm[row][j] = P(node j ON at t+1 | state row at t); cm[i][j] = 1 for an "
               "edge i -> j; state: current state of all n nodes; nodes: the candidate system "
               "(null = all n; other nodes are fixed background conditions in their current "
               "state); phi in bits (log2); mip.cut_edges [i, j]: edge i -> j severed")

# ------------------------------------------------------------------ networks
GATES = ("AND", "OR", "XOR", "XNOR", "NAND", "NOR", "MAJ", "COPY", "NOT")


def _states(n):
    return [[(r >> i) & 1 for i in range(n)] for r in range(2 ** n)]


def strongly_connected(cm: np.ndarray) -> bool:
    n = len(cm)
    reach = (np.asarray(cm) > 0) | np.eye(n, dtype=bool)
    for _ in range(n):
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    return bool(reach.all())


def random_cm(n, density, rng, self_loops=True):
    for _ in range(10_000):
        cm = (rng.random((n, n)) < density).astype(int)
        if not self_loops:
            np.fill_diagonal(cm, 0)
        if strongly_connected(cm):
            return cm
    raise RuntimeError("no strongly connected graph found")


def _gate(name, x):
    s = int(sum(x))
    return {"AND": s == len(x), "OR": s > 0, "XOR": s % 2 == 1, "XNOR": s % 2 == 0,
            "NAND": s < len(x), "NOR": s == 0, "MAJ": 2 * s > len(x), "COPY": x[0] == 1,
            "NOT": x[0] == 0}[name]


def logic_network(n, rng, noise=0.0, gates=None, inputs=None):
    """Deterministic (noise 0) or noisy logic gates: P(ON) = noise + (1 - 2 noise) gate."""
    for _ in range(10_000):
        g, ins = list(gates or []), list(inputs or [])
        if not gates:
            for j in range(n):
                name = str(rng.choice(GATES))
                k = 1 if name in ("COPY", "NOT") else int(rng.integers(2, min(3, n) + 1))
                if name == "MAJ" and n >= 3:
                    k = 3
                g.append(name)
                ins.append(sorted(int(i) for i in rng.choice(n, k, replace=False)))
        cm = np.zeros((n, n), dtype=int)
        for j in range(n):
            cm[ins[j], j] = 1
        if gates or strongly_connected(cm):
            break
    tpm = [[noise + (1 - 2 * noise) * float(_gate(g[j], [s[i] for i in ins[j]])) for j in range(n)]
           for s in _states(n)]
    return dict(tpm=np.round(tpm, 6).tolist(), cm=cm.tolist(),
                params=dict(gates=g, inputs=ins, noise=noise))


def eca_network(n, rule, noise):
    """Elementary cellular automaton ring: node j reads j-1, j, j+1 (mod n)."""
    cm = np.zeros((n, n), dtype=int)
    for j in range(n):
        cm[[(j - 1) % n, j, (j + 1) % n], j] = 1
    tpm = []
    for s in _states(n):
        row = []
        for j in range(n):
            idx = 4 * s[(j - 1) % n] + 2 * s[j] + s[(j + 1) % n]
            row.append(noise + (1 - 2 * noise) * ((rule >> idx) & 1))
        tpm.append(row)
    return dict(tpm=np.round(tpm, 6).tolist(), cm=cm.tolist(), params=dict(rule=rule, noise=noise))


def _sigmoid_tpm(weights, k):
    """P(j ON) = 1 / (1 + exp(-k sum_i w[i, j] s_i)), s_i in {-1, +1} (PyPhi's ising.probability)."""
    n = len(weights)
    tpm = []
    for s in _states(n):
        spin = 2 * np.array(s) - 1
        tpm.append([1.0 / (1.0 + np.exp(-k * float(weights[:, j] @ spin))) for j in range(n)])
    return np.round(tpm, 6).tolist()


def logistic_network(n, rng, k, density=0.5):
    cm = random_cm(n, density, rng)
    # mostly excitatory: |w| ~ U(0.2, 1.2), inhibitory with probability 0.2
    sign = np.where(rng.random((n, n)) < 0.2, -1.0, 1.0)
    w = np.round(rng.uniform(0.2, 1.2, (n, n)) * sign * cm, 3)
    return dict(tpm=_sigmoid_tpm(w, k), cm=cm.tolist(), params=dict(weights=w.tolist(), k=k))


def ising_network(n, rng, beta):
    """Glauber heat bath: P(j ON) = 1 / (1 + exp(-2 beta sum_i J_ij s_i)), J symmetric."""
    cm = np.zeros((n, n), dtype=int)
    for j in range(n):
        if n > 1:
            cm[j, (j + 1) % n] = cm[(j + 1) % n, j] = 1
    extra = np.triu(rng.random((n, n)) < 0.3, 1)
    cm = ((cm + extra + extra.T) > 0).astype(int)
    np.fill_diagonal(cm, 0)
    J = np.triu(np.round(rng.uniform(0.2, 1.0, (n, n)), 3), 1)
    J = (J + J.T) * cm
    return dict(tpm=_sigmoid_tpm(J, 2 * beta), cm=cm.tolist(), params=dict(J=J.tolist(), beta=beta))


def sparse_network(n, rng, density):
    """Random conditional probability tables on a sparse strongly connected graph."""
    cm = random_cm(n, density, rng)
    cpt = {}
    tpm = []
    for s in _states(n):
        row = []
        for j in range(n):
            key = (j, tuple(s[i] for i in range(n) if cm[i, j]))
            if key not in cpt:
                cpt[key] = round(float(rng.uniform(0.02, 0.98)), 4)
            row.append(cpt[key])
        tpm.append(row)
    return dict(tpm=tpm, cm=cm.tolist(), params=dict(density=density))


def reducible_network(n, rng, kind):
    """phi_s = 0 by construction: two disconnected components, or a feedforward chain."""
    if kind == "disconnected":
        a = n // 2
        cm = np.zeros((n, n), dtype=int)
        for lo, hi in ((0, a), (a, n)):
            m = hi - lo
            cm[lo:hi, lo:hi] = random_cm(m, 0.7, rng) if m > 1 else np.ones((1, 1), dtype=int)
    else:
        cm = np.triu((rng.random((n, n)) < 0.7).astype(int), 1)
        for j in range(1, n):
            cm[j - 1, j] = 1
    w = np.round(rng.normal(0, 1, (n, n)) * cm, 3)
    w[(cm > 0) & (w == 0)] = 0.1
    return dict(tpm=_sigmoid_tpm(w, 2.0), cm=cm.tolist(), params=dict(kind=kind, weights=w.tolist(), k=2.0))


def sample_state(tpm, rng, steps=20):
    tpm = np.asarray(tpm)
    n = tpm.shape[1]
    s = rng.integers(0, 2, n)
    for _ in range(steps):
        row = int(sum(int(v) << i for i, v in enumerate(s)))
        s = (rng.random(n) < tpm[row]).astype(int)
    return s


FIG1_WEIGHTS = [[-0.2, 0.7, 0.2], [0.7, -0.2, 0.0], [0.0, -0.8, 0.2]]  # Albantakis et al. 2023, Fig 1A


def sia_networks(seed: int) -> list[dict]:
    """The networks of iit4_sia.json, deterministic in seed, sizes 2..6."""
    rng = np.random.default_rng(seed)
    nets = []

    def add(family, n, net, state=None, nodes=None, tag=""):
        if state is None:  # every other network: a typical state (20 steps of its own dynamics)
            uniform = sum(1 for x in nets if x["family"] == family) % 2 == 1
            state = rng.integers(0, 2, n) if uniform else sample_state(net["tpm"], rng)
            net["params"]["state_drawn"] = "uniform" if uniform else "20 steps of the dynamics"
        st = [int(x) for x in state]
        name = f"{family}{tag}_n{n}_{sum(1 for x in nets if x['n'] == n and x['family'] == family)}"
        nets.append(dict(name=name, family=family, n=n, n_system=len(nodes) if nodes else n,
                         tpm=net["tpm"], cm=net["cm"], state=st, nodes=nodes, params=net["params"]))

    plan = {2: dict(logic=2, logistic=3, ising=1, sparse=1, reducible=1),
            3: dict(logic=4, logistic=5, ising=2, sparse=3, reducible=2),
            4: dict(logic=4, logistic=5, ising=3, sparse=3, reducible=2, subsystem=1),
            5: dict(logic=3, logistic=4, ising=3, sparse=2, reducible=1, subsystem=2),
            6: dict(logic=2, logistic=2, ising=2, sparse=2, reducible=1)}
    temps = (0.5, 1.0, 2.0, 4.0)
    for n, fam in plan.items():
        for i in range(fam["logic"]):
            if n == 3 and i == 0:  # Oizumi et al. 2014 Fig 4: A = OR(B, C), B = AND(A, C), C = XOR(A, B)
                add("logic", n, logic_network(3, rng, 0.0, ["OR", "AND", "XOR"], [[1, 2], [0, 2], [0, 1]]),
                    state=[1, 0, 0])
            elif n >= 4 and i == 0:
                add("logic", n, eca_network(n, (110, 30, 90)[n - 4], 0.05 if n < 6 else 0.1))
            else:
                add("logic", n, logic_network(n, rng, (0.0, 0.1, 0.05, 0.2)[i % 4]))
        for i in range(fam["logistic"]):
            if n == 3 and i == 0:
                add("logistic", n, dict(tpm=_sigmoid_tpm(np.array(FIG1_WEIGHTS), 4.0),
                                        cm=(np.array(FIG1_WEIGHTS) != 0).astype(int).tolist(),
                                        params=dict(weights=FIG1_WEIGHTS, k=4.0, source="Albantakis 2023 Fig 1A")),
                    state=[0, 1, 1])
            else:
                add("logistic", n, logistic_network(n, rng, temps[(i + n) % 4]))
        for i in range(fam["ising"]):
            add("ising", n, ising_network(n, rng, (0.25, 0.5, 1.0)[(i + n) % 3]),
                state=[0] * n if i == 0 else None)
        for i in range(fam["sparse"]):
            add("sparse", n, sparse_network(n, rng, (0.3, 0.4, 0.5)[i % 3]))
        for i in range(fam["reducible"]):
            add("reducible", n, reducible_network(n, rng, ("disconnected", "feedforward")[(i + n) % 2]))
        for i in range(fam.get("subsystem", 0)):
            net = logistic_network(n, rng, 2.0, density=0.6)
            nodes = sorted(int(x) for x in rng.choice(n, 3, replace=False))
            add("subsystem", n, net, nodes=nodes)
    # second round (appended, so the networks above keep their names and draws): more
    # networks in typical states, where phi_s > 0 is more common
    for n in (3, 4, 5):
        for i in range(2):
            net = ising_network(n, rng, (0.5, 1.0)[i])
            net["params"]["state_drawn"] = "20 steps of the dynamics"
            add("ising", n, net, state=sample_state(net["tpm"], rng))
        for i in range(3):
            net = logistic_network(n, rng, (2.0, 4.0, 1.0)[i], density=0.6)
            net["params"]["state_drawn"] = "20 steps of the dynamics"
            add("logistic", n, net, state=sample_state(net["tpm"], rng))
        net = logic_network(n, rng, 0.1)
        net["params"]["state_drawn"] = "20 steps of the dynamics"
        add("logic", n, net, state=sample_state(net["tpm"], rng))
    # third round, 6 nodes: aligned states of ferromagnetic / excitatory networks (most
    # random 6-node networks above have phi_s = 0)
    for i in range(3):
        net = ising_network(6, rng, (0.5, 1.0, 0.75)[i])
        net["params"]["state_drawn"] = "aligned"
        add("ising", 6, net, state=[i % 2] * 6)
    for i in range(2):
        cm = random_cm(6, 0.5, rng)
        w = np.round(rng.uniform(0.3, 1.0, (6, 6)) * cm, 3)
        net = dict(tpm=_sigmoid_tpm(w, (2.0, 4.0)[i]), cm=cm.tolist(),
                   params=dict(weights=w.tolist(), k=(2.0, 4.0)[i], state_drawn="aligned"))
        add("logistic", 6, net, state=[1 - i % 2] * 6)
    return nets


# ------------------------------------------------------------------ worker calls
def _round(x, sig=12):
    if isinstance(x, float):
        return float(f"{x:.{sig}g}")
    if isinstance(x, list):
        return [_round(v, sig) for v in x]
    if isinstance(x, dict):
        return {k: _round(v, sig) for k, v in x.items()}
    return x


def run_worker(python: Path, cases: list[dict]) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYPHI_WELCOME_OFF="yes")
    proc = subprocess.run([str(python), str(WORKER)], input=json.dumps(cases), capture_output=True,
                          text=True, env=env, cwd="/tmp")
    if proc.returncode != 0:
        raise RuntimeError(f"worker failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


def write_json(path: Path, data: dict, key="networks") -> None:
    """JSON with one entry per line (diffable, compact)."""
    head = {k: v for k, v in data.items() if k != key}
    lines = [json.dumps(net, separators=(",", ":")) for net in data[key]]
    text = json.dumps(head, indent=1)[:-2] + f',\n "{key}": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"
    json.loads(text)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)


class RefFile:
    def __init__(self, path: Path, kind: str, generator: dict, command: str):
        self.path, self.kind = path, kind
        self.data = {"source": f"PyPhi 2.0 ({kind}), made by benchmarks/pyphi_compare/make_iit4_reference.py; "
                               "see benchmarks/pyphi_compare/README.md",
                     "conventions": CONVENTIONS, "generator": generator, "command": command,
                     "pyphi": None, "config": {}, "networks": []}
        if path.exists():
            old = json.loads(path.read_text())
            if old.get("generator") == generator:
                self.data = old
                self.data["command"] = command
        self.by_name = {net["name"]: net for net in self.data["networks"]}

    def entry(self, net: dict) -> dict:
        e = self.by_name.get(net["name"])
        keep = {k: net[k] for k in ("name", "family", "n", "n_system", "example", "tpm", "cm", "state", "nodes", "params")
                if k in net}
        if e is None:
            e = self.by_name[net["name"]] = dict(keep, results={})
            self.data["networks"].append(e)
        elif e["tpm"] != _round(keep["tpm"]) or e["state"] != keep["state"]:
            raise SystemExit(f"{self.path}: {net['name']} differs from what the generator makes now; "
                             "use another --out-dir")
        return e

    def record(self, out: dict) -> None:
        self.data["pyphi"] = out["pyphi"]
        self.data["config"].update(out["config"])

    def save(self) -> None:
        for e in self.data["networks"]:
            e.update(_round(e))
        # networks still waiting for PyPhi stay out of the file until they have results
        write_json(self.path, dict(self.data, networks=[e for e in self.data["networks"] if e["results"]]))


def _case(net, formalism, what):
    c = dict(name=net["name"], tpm=net.get("tpm"), cm=net.get("cm"), state=net["state"], nodes=net.get("nodes"),
             formalism=formalism, what=what)
    if net.get("example"):
        c["example"] = net["example"]
    if net.get("n_system", net["n"]) >= 6:  # 7896 partitions: no untimed rerun to count ties at phi = 0
        c["full_ties"] = False
    return c


def fill(ref: RefFile, python: Path, nets: list[dict], jobs, batch_cost: float, label: str) -> None:
    """jobs(net) -> list of (result_key, formalism, what); runs what is missing, in batches."""
    pending = []
    for net in nets:
        e = ref.entry(net)
        for key, formalism, what in jobs(net):
            if key not in e["results"]:
                pending.append((net, e, key, formalism, what))
    batch, cost = [], 0.0
    est = {2: 0.05, 3: 0.3, 4: 2, 5: 30, 6: 200}

    def flush():
        nonlocal batch, cost
        if not batch:
            return
        t = time.time()
        out = run_worker(python, [_case(net, f, w) for net, _, _, f, w in batch])
        ref.record(out)
        for (net, _, key, f, w), res in zip(batch, out["results"]):
            res = {k: v for k, v in res.items() if k not in ("name",)}
            if "error" in res:
                print(f"{label:<9} {net['name']:<22} {key:<22} PyPhi error (not stored): {res['error']}\n"
                      f"{res.get('traceback', '')}", flush=True)
                continue
            ref.by_name[net["name"]]["results"][key] = res
            print(f"{label:<9} {net['name']:<22} {key:<22} phi_s {res.get('phi_s', res.get('maximal'))!s:<24.24} "
                  f"{res['cpu_s']:.2f} s", flush=True)
        ref.save()
        print(f"  [batch of {len(batch)}: {time.time() - t:.1f} s wall] -> {ref.path}", flush=True)
        batch, cost = [], 0.0

    for item in pending:
        batch.append(item)
        cost += est.get(item[0].get("n_system", item[0]["n"]), 100) * (10 if item[4] != "sia" else 1)
        if cost >= batch_cost:
            flush()
    flush()
    if ref.data["pyphi"] is not None:
        ref.save()


# ------------------------------------------------------------------ the four files
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="make_iit4_reference.py", description=__doc__.splitlines()[0])
    p.add_argument("--venv", default="/tmp/pyphi2/venv", help="PyPhi 2.0 virtualenv (setup_venv_pyphi2.sh)")
    p.add_argument("--out-dir", type=Path, default=ROOT / "tests" / "reference")
    p.add_argument("--seed", type=int, default=40)
    p.add_argument("--min-n", type=int, default=2, help="smallest system size run now")
    p.add_argument("--max-n", type=int, default=6, help="largest system size run now")
    p.add_argument("--files", nargs="+", default=["sia", "ces", "complexes", "examples"],
                   choices=["sia", "ces", "complexes", "examples"])
    p.add_argument("--formalisms", nargs="+", default=list(FORMALISMS), choices=list(FORMALISMS))
    p.add_argument("--ces-2026-max-n", type=int, default=4,
                   help="largest size whose Phi-structure is also computed under IIT_4_0_2026 "
                        "(it equals 2023's but for phi_s; see README)")
    p.add_argument("--examples-slow", action="store_true",
                   help="also the 6-node Phi-structures of Fig 6C/6D (long)")
    p.add_argument("--batch-cost", type=float, default=40.0, help="estimated PyPhi seconds per worker call")
    p.add_argument("--summary", action="store_true",
                   help="print the files' counts and median PyPhi CPU seconds per size, run nothing")
    args = p.parse_args(argv)
    if args.summary:
        summary(args.out_dir)
        return 0
    python = Path(args.venv) / "bin" / "python"
    if not python.exists():
        print(f"error: --venv {args.venv}: no {python}; run setup_venv_pyphi2.sh first", file=sys.stderr)
        return 2
    args.out_dir.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/pyphi_compare/make_iit4_reference.py " + " ".join(argv if argv is not None else sys.argv[1:])
    nets = sia_networks(args.seed)
    gen = dict(function="make_iit4_reference.sia_networks", seed=args.seed)
    size_ok = lambda net: args.min_n <= net["n_system"] <= args.max_n  # noqa: E731
    fset = [f for f in FORMALISMS if f in args.formalisms]

    if "sia" in args.files:
        ref = RefFile(args.out_dir / "iit4_sia.json", "formalism.iit4.sia via System.sia", gen, command)
        fill(ref, python, [n for n in nets if size_ok(n)], lambda net: [(f, f, "sia") for f in fset],
             args.batch_cost, "sia")

    if "ces" in args.files:
        ces_nets = _ces_networks(nets)
        ref = RefFile(args.out_dir / "iit4_ces.json",
                      "System.sia, System.distinctions().resolve_congruence(sia.system_state), "
                      "AnalyticalRelations", dict(gen, selection="_ces_networks"), command)
        fill(ref, python, [n for n in ces_nets if size_ok(n)],
             lambda net: [(f, f, "ces") for f in fset if f == FORMALISMS[0] or net["n_system"] <= args.ces_2026_max_n],
             args.batch_cost, "ces")

    if "complexes" in args.files:
        cx_nets = _complex_networks(nets)
        ref = RefFile(args.out_dir / "iit4_complexes.json", "Substrate.complexes",
                      dict(gen, selection="_complex_networks"), command)
        fill(ref, python, [n for n in cx_nets if size_ok(n)], lambda net: [(f, f, "complex") for f in fset],
             args.batch_cost, "complexes")

    if "examples" in args.files:
        run_examples(args, python, command)
    return 0


def summary(out_dir: Path) -> None:
    for kind in ("sia", "ces", "complexes", "examples"):
        path = out_dir / f"iit4_{kind}.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        nets = data["networks"]
        print(f"{path.name}: {len(nets)} networks, {path.stat().st_size / 1e6:.2f} MB, PyPhi "
              f"{(data.get('pyphi') or {}).get('version')} {(data.get('pyphi') or {}).get('commit')}")
        table = {}
        for net in nets:
            for f, r in net["results"].items():
                t = table.setdefault((net["n_system"], f), dict(cpu=[], cpu_nz=[], nz=0, count=0, fam=set()))
                t["cpu"].append(r["cpu_s"])
                t["count"] += 1
                t["fam"].add(net["family"])
                phi = r.get("phi_s", (r.get("maximal") or {}).get("phi_s", 0.0)) or 0.0
                t["nz"] += phi > 0
                if phi > 0:
                    t["cpu_nz"].append(r["cpu_s"])
        print("  n  formalism      cases  phi>0  median CPU s  (phi>0 only)  max CPU s  families")
        for (n, f), t in sorted(table.items()):
            med_nz = np.median(t["cpu_nz"]) if t["cpu_nz"] else float("nan")
            print(f"  {n}  {f}  {t['count']:5d}  {t['nz']:5d}  {np.median(t['cpu']):11.3f}  {med_nz:12.3f}  "
                  f"{max(t['cpu']):9.2f}  "
                  f"{','.join(sorted(t['fam']))}")


def _ces_networks(nets):
    """Every other non-reducible network of 2-4 nodes (26), one reducible, 8 of 5 nodes."""
    small = [n for n in nets if n["n_system"] <= 4 and n["family"] != "reducible"]
    red = [n for n in nets if n["n_system"] == 3 and n["family"] == "reducible"][:1]
    five = [n for n in nets if n["n_system"] == 5 and n["family"] not in ("reducible", "subsystem")]
    return small[::2] + red + five[::2][:8]


def _complex_networks(nets):
    """Networks of 3-5 nodes (whole substrates): 7 of 3, 7 of 4, 3 of 5."""
    out = []
    for n, k in ((3, 7), (4, 7), (5, 3)):
        cand = [x for x in nets if x["n"] == n and x["nodes"] is None]
        # spread over families: round-robin
        fams = {}
        for x in cand:
            fams.setdefault(x["family"], []).append(x)
        picked = []
        while len(picked) < k and any(fams.values()):
            for f in list(fams):
                if fams[f] and len(picked) < k:
                    picked.append(fams[f].pop(0))
        out += picked
    return out


# ------------------------------------------------------------------ examples
# Published values asserted by PyPhi's acceptance tests, all from
# test/integration/test_paper_reproduction.py (Albantakis et al. 2023 figures).
PAPER_TEST = "test/integration/test_paper_reproduction.py"
EXAMPLES = [
    # (name, pyphi example substrate or None for Fig 1A, state, nodes, what, published)
    ("fig1_a", None, [0, 1, 1], [0], "sia", dict(phi_s=0.04, tol="round 2", test="test_iit4_2023_fig1_system_phi")),
    ("fig1_aB", None, [0, 1, 1], [0, 1], "sia",
     dict(phi_s=0.17, phi_c=0.24, phi_e=0.17, tol="round 2",
          test="test_iit4_2023_fig1_system_phi, test_iit4_2023_fig1D_aB_cause_effect_phi")),
    ("fig1_aBC", None, [0, 1, 1], [0, 1, 2], "sia", dict(phi_s=0.13, tol="round 2", test="test_iit4_2023_fig1_system_phi")),
    ("fig1_aB_ces", None, [0, 1, 1], [0, 1], "ces",
     dict(distinctions={"0": [0.33, [1], [1]], "1": [0.32, [0], [0, 1]], "0,1": [0.07, [1], [0, 1]]},
          relation_a_aB=dict(phi_r=0.035, tol="abs 1e-3", faces=9), tol="round 2 (phi_d: [phi_d, cause purview, effect purview])",
          test="test_iit4_2023_fig2_distinctions, test_iit4_2023_fig4_relation_a_aB")),
    ("fig1_complexes", None, [0, 1, 1], None, "complex",
     dict(note="aB is a complex (phi_s above every overlapping candidate); PyPhi's maximal complex is {C}",
          test="test_iit4_2023_fig1_aB_is_a_complex")),
    ("fig6a_Ab", "iit4_2023_fig6a_substrate", [1, 0, 0, 0, 0, 0], [0, 1], "ces",
     dict(phi_s=0.05, big_phi=0.48, n_distinctions=2, n_relations=2, tol="abs 0.01", test="test_iit4_2023_fig6a_bottleneck")),
    ("fig6a_c", "iit4_2023_fig6a_substrate", [1, 0, 0, 0, 0, 0], [2], "ces",
     dict(phi_s=0.008, big_phi=0.02, n_distinctions=1, n_relations=1, tol="abs 0.005 (phi_s), 0.01 (Phi)",
          test="test_iit4_2023_fig6a_bottleneck")),
    ("fig6b_Ab", "iit4_2023_fig6b_substrate", [1, 0, 0, 0, 0, 0], [0, 1], "ces",
     dict(phi_s=0.53, big_phi=2.74, n_distinctions=2, n_relations=2, tol="abs 0.01 (phi_s), 0.02 (Phi)",
          test="test_iit4_2023_fig6b_modular")),
    ("fig6b_cd", "iit4_2023_fig6b_substrate", [1, 0, 0, 0, 0, 0], [2, 3], "ces",
     dict(phi_s=0.45, big_phi=3.18, n_distinctions=3, n_relations=5, tol="abs 0.01", test="test_iit4_2023_fig6b_modular")),
    ("fig6b_ef", "iit4_2023_fig6b_substrate", [1, 0, 0, 0, 0, 0], [4, 5], "ces",
     dict(phi_s=0.45, big_phi=3.18, n_distinctions=3, n_relations=5, tol="abs 0.01", test="test_iit4_2023_fig6b_modular")),
    ("fig6e_Abef", "iit4_2023_fig6e_substrate", [1, 0, 0, 0, 0, 0], [0, 1, 4, 5], "ces",
     dict(phi_s=0.27, big_phi=3.24, n_distinctions=8, n_relations=67, tol="abs 0.01 (phi_s), 0.02 (Phi)",
          test="test_iit4_2023_fig6e_near_maximal")),
    ("fig6e_cd", "iit4_2023_fig6e_substrate", [1, 0, 0, 0, 0, 0], [2, 3], "ces",
     dict(phi_s=0.08, big_phi=1.32, n_distinctions=3, n_relations=7, tol="abs 0.01 (phi_s), 0.02 (Phi)",
          test="test_iit4_2023_fig6e_near_maximal")),
    ("fig7C_ABCD_inactivated", "iit4_2023_fig7_inactivated_substrate", [1, 1, 0, 0, 0], [0, 1, 2, 3], "ces",
     dict(phi_s=0.11, big_phi=3.35, n_distinctions=14, n_relations=363, tol="abs 0.01 (phi_s), 0.02 (Phi)",
          test="test_iit4_2023_fig7C_inactivated")),
    ("fig6e_full", "iit4_2023_fig6e_substrate", [1, 0, 0, 0, 0, 0], None, "sia",
     dict(phi_s=0.15, tol="abs 0.02", test="test_iit4_2023_fig6e_near_maximal")),
    ("fig6c_full", "iit4_2023_fig6c_substrate", [1, 0, 0, 0, 0, 0], None, "sia",
     dict(phi_s=1.74, tol="abs 0.01", test="test_iit4_2023_fig6C_copy_ring")),
    ("fig6d_full", "iit4_2023_fig6d_substrate", [1, 0, 0, 0, 0, 0], None, "sia",
     dict(phi_s=1.05, tol="abs 0.02", test="test_iit4_2023_fig6d_specialized")),
    ("fig7A_ABcdE", "iit4_2023_fig7_substrate", [1, 1, 0, 0, 1], None, "ces",
     dict(phi_s=1.1, n_distinctions=23, n_relations=13740, big_phi=22.26, tol="abs 0.01 (phi_s), 0.02 (Phi)",
          test="test_iit4_2023_fig7_state_dependence")),
    ("fig7B_ABcde", "iit4_2023_fig7_substrate", [1, 1, 0, 0, 0], None, "ces",
     dict(phi_s=1.31, n_distinctions=23, n_relations=13111, big_phi=18.55, tol="abs 0.01 (phi_s), 0.02 (Phi)",
          test="test_iit4_2023_fig7_state_dependence")),
]
SLOW_EXAMPLES = [
    ("fig6c_full_ces", "iit4_2023_fig6c_substrate", [1, 0, 0, 0, 0, 0], None, "ces",
     dict(phi_s=1.74, big_phi=7.65, tol="abs 0.01 (phi_s), round 2 (Phi)", test="test_iit4_2023_fig6C_copy_ring")),
    ("fig6d_full_ces", "iit4_2023_fig6d_substrate", [1, 0, 0, 0, 0, 0], None, "ces",
     dict(phi_s=1.05, n_distinctions=27, big_phi=11452, tol="abs 0.02 (phi_s), round 0 (Phi)",
          test="test_iit4_2023_fig6d_specialized")),
]


EXPORT_CHECK = ("fig6b_Ab", "fig7C_ABCD_inactivated", "fig6e_Abef")


def run_examples(args, python: Path, command: str) -> None:
    fset = [f for f in FORMALISMS if f in args.formalisms]
    gen = dict(source="pyphi.examples (Albantakis et al. 2023 PLoS Comput Biol 19(10):e1011465)",
               published_values_from=PAPER_TEST)
    ref = RefFile(args.out_dir / "iit4_examples.json", "pyphi.examples worked examples", gen, command)
    # the substrates' TPMs, exported once from PyPhi (Fig 1A is built here: logistic k = 4)
    subs = {}
    names = sorted({e[1] for e in EXAMPLES + SLOW_EXAMPLES if e[1]})
    need = [nm for nm in names if not any(x.get("example") == nm and x.get("tpm") for x in ref.data["networks"])]
    if need:
        out = run_worker(python, [dict(name=nm, example=nm, state=[0], what="export") for nm in need])
        for nm, res in zip(need, out["results"]):
            subs[nm] = res
    for x in ref.data["networks"]:
        if x.get("example"):
            subs.setdefault(x["example"], dict(tpm=x["tpm"], cm=x["cm"]))
    fig1 = dict(tpm=_sigmoid_tpm(np.array(FIG1_WEIGHTS), 4.0), cm=(np.array(FIG1_WEIGHTS) != 0).astype(int).tolist())
    nets = []
    for name, ex, state, nodes, what, published in EXAMPLES + (SLOW_EXAMPLES if args.examples_slow else []):
        src = subs[ex] if ex else fig1
        n_sys = len(nodes) if nodes else len(state)
        if not (args.min_n <= max(n_sys, 2) <= args.max_n):
            continue
        net = dict(name=name, family="example", n=len(state), n_system=n_sys, tpm=src["tpm"], cm=src["cm"],
                   state=state, nodes=nodes, params=dict(example=ex or "Fig 1A weights, logistic k = 4",
                                                         what=what, published=published))
        if ex:
            net["example"] = ex
        nets.append(net)
        if name in EXPORT_CHECK:  # the same, from the exported state-by-node TPM instead
            nets.append(dict(net, name=name + "_exported_tpm", example=None,
                             params=dict(net["params"], published=None,
                                         note=f"{name} computed from the stored tpm/cm (checks the export)")))
    fill(ref, python, nets, lambda net: [(f, f, net["params"]["what"]) for f in fset
                                         if f == FORMALISMS[0] or net["n_system"] <= 4 or net["params"]["what"] == "sia"],
         args.batch_cost, "examples")


if __name__ == "__main__":
    sys.exit(main())
