"""A set of Gaussian variables that grows and shrinks, with O(d^2) updates of its log det.

``VariableSet`` tracks, for a member set A of the variables of a covariance X (d, d):
    ld    = log det X_AA                                  (nats)
    prec  = X_AA^-1, zero-padded to (d, d)                (to remove a member j)
    cond  = X - X_{:A} X_AA^-1 X_{A:}, the covariance of every variable given A
                                                          (to add a non-member j)
so that, for any group j, log det X_{A+j} = ld + log det cond_jj and
log det X_{A-j} = ld + log det prec_jj (block-inverse / Schur-complement identities; e.g.
Petersen & Pedersen, *The Matrix Cookbook*, Sec. 9.1). Adding or removing j updates
prec and cond with rank-|j| corrections instead of refactorising. Batched over R states.

``GrowingCondition`` is the grow-only special case used by Queyranne's orderings: it
conditions one matrix on a growing set by appending rows of a partial Cholesky factor.
"""
from __future__ import annotations

import numpy as np

from cognition.phi.gaussian import cholesky, log_diagonal, logdet


def _cols(mat: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """mat (R, d, d), idx (R, g) -> mat[r][:, idx[r]] as (R, d, g)."""
    if len(idx) == 1:
        return mat[:, :, idx[0]]
    return np.take_along_axis(mat, idx[:, None, :], axis=2)


def _rows(cols: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """cols (R, d, g), idx (R, g) -> cols[r][idx[r], :] as (R, g, g)."""
    if len(idx) == 1:
        return cols[:, idx[0], :]
    return np.take_along_axis(cols, idx[:, :, None], axis=1)


class VariableSet:
    """Member sets A_r of the variables of covariances X_r (R states), see module docstring.

    cov: (R, d, d) or (d, d) (shared by all states); members: (R, d) bool initial sets.
    blocks: contiguous (lo, hi) ranges when cov is block-diagonal (updates then skip the
    zero off-diagonal blocks); every group passed to add/remove must list its variables
    block by block in this order.
    """

    def __init__(self, cov: np.ndarray, members: np.ndarray, blocks=None):
        members = np.asarray(members, dtype=bool)
        R, d = members.shape
        self.cov = np.broadcast_to(cov, (R, d, d))
        self.blocks = [(0, d)] if blocks is None else list(blocks)
        self.label = np.zeros(d, dtype=np.intp)
        for b, (lo, hi) in enumerate(self.blocks):
            self.label[lo:hi] = b
        self._segment_cache: dict[bytes, list] = {}
        self.ld = np.zeros(R)
        self.prec = np.zeros((R, d, d))
        self.cond = np.zeros((R, d, d))
        for lo, hi in self.blocks:                  # block-diagonal: each block on its own
            m = members[:, lo:hi]
            both = m[:, :, None] & m[:, None, :]
            cov_b = self.cov[:, lo:hi, lo:hi]
            padded = np.where(both, cov_b, np.eye(hi - lo))
            self.ld += logdet(padded, "covariance of a part")
            self.prec[:, lo:hi, lo:hi] = np.where(both, np.linalg.inv(padded), 0.0)
            self.cond[:, lo:hi, lo:hi] = cov_b - cov_b @ self.prec[:, lo:hi, lo:hi] @ cov_b
        self.members = members.copy()

    def subset(self, states: np.ndarray) -> "VariableSet":
        """A copy holding only the given states (index array)."""
        out = object.__new__(VariableSet)
        out.__dict__.update(self.__dict__)
        out.cov, out.ld, out.prec = self.cov[states], self.ld[states], self.prec[states]
        out.cond, out.members = self.cond[states], self.members[states]
        return out

    def update(self, states: np.ndarray, op: str, idx: np.ndarray) -> np.ndarray:
        """Apply ``op`` ('add' or 'remove') with groups idx (k, g) to the given states only."""
        if len(states) == len(self.ld) and np.array_equal(states, np.arange(len(states))):
            return getattr(self, op)(idx)
        sub = self.subset(states)
        logdiag = getattr(sub, op)(idx)
        self.ld[states], self.prec[states], self.members[states] = sub.ld, sub.prec, sub.members
        self.cond[states] = sub.cond
        return logdiag

    def _segments(self, idx: np.ndarray) -> list[tuple[slice, slice]]:
        """(block rows lo:hi, group columns a:b) for each block the group touches (cached)."""
        labels = self.label[idx[0]]
        key = labels.tobytes()
        if key not in self._segment_cache:
            segs = []
            for b, (lo, hi) in enumerate(self.blocks):
                cols = np.flatnonzero(labels == b)
                if len(cols):
                    segs.append((slice(lo, hi), slice(int(cols[0]), int(cols[-1]) + 1)))
            self._segment_cache[key] = segs
        return self._segment_cache[key]

    def _factor(self, s: np.ndarray, idx: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
        """(2 log diag of chol(s) (R, G), s^-1 (R, G, G)) for block-diagonal s (R, G, G).

        Blocks of size 1 and 2 (one node moved) use closed forms: numpy's batched
        factorisations cost more in call overhead than in arithmetic at this size.
        """
        segs = self._segments(idx)
        if any(c.stop - c.start > 2 for _, c in segs):
            logdiag = 2.0 * log_diagonal(cholesky(s, what))
            return logdiag, np.linalg.inv(s)
        logdiag = np.empty(s.shape[:2])
        inv = np.zeros_like(s)
        for _, c in segs:
            a = s[:, c.start, c.start]
            if c.stop - c.start == 1:
                if np.any(a <= 0):
                    raise ValueError(f"{what} is not positive definite")
                logdiag[:, c.start] = np.log(a)
                inv[:, c.start, c.start] = 1.0 / a
                continue
            b, d = s[:, c.start, c.start + 1], s[:, c.start + 1, c.start + 1]
            det = a * d - b * b
            if np.any(a <= 0) or np.any(det <= 0):
                raise ValueError(f"{what} is not positive definite")
            logdiag[:, c.start], logdiag[:, c.start + 1] = np.log(a), np.log(det / a)
            inv[:, c, c] = np.stack([np.stack([d, -b], -1), np.stack([-b, a], -1)], -2) / det[:, None, None]
        return logdiag, inv

    def _low_rank(self, mat: np.ndarray, vecs: np.ndarray, core: np.ndarray, idx: np.ndarray, sign: float) -> None:
        """mat += sign * vecs core vecs^T, block by block (vecs (R, d, G), core (R, G, G))."""
        for rows, cols in self._segments(idx):
            v = vecs[:, rows, cols]
            mat[:, rows, rows] += sign * (v @ core[:, cols, cols] @ np.swapaxes(v, 1, 2))

    def _product(self, left: np.ndarray, right: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """left @ right for block-diagonal left (R, d, d) and right = columns idx (R, d, G)."""
        out = np.zeros(right.shape)
        for rows, cols in self._segments(idx):
            out[:, rows, cols] = left[:, rows, rows] @ right[:, rows, cols]
        return out

    def add(self, idx: np.ndarray) -> np.ndarray:
        """A_r += idx[r] for each state; idx (R, g) non-members (states in order).

        Returns (R, g): 2 log of the Cholesky diagonal of [cond]_jj, whose sum is the
        change of ``ld`` (split it to get the change of block-diagonal parts' log dets).
        """
        c = _cols(self.cond, idx)
        logdiag, s_inv = self._factor(_rows(c, idx), idx, "conditional covariance of a group")
        self.ld = self.ld + logdiag.sum(1)
        w = self._product(self.prec, _cols(self.cov, idx), idx)
        np.put_along_axis(w, idx[:, :, None], -np.eye(idx.shape[1])[None], axis=1)
        self._low_rank(self.prec, w, s_inv, idx, 1.0)
        self._low_rank(self.cond, c, s_inv, idx, -1.0)
        np.put_along_axis(self.members, idx, True, axis=1)
        return logdiag

    def remove(self, idx: np.ndarray) -> np.ndarray:
        """A_r -= idx[r] for each state; idx (R, g) members (states in order).

        Returns (R, g): 2 log of the Cholesky diagonal of [prec]_jj (see ``add``).
        """
        p = _cols(self.prec, idx)
        logdiag, s = self._factor(_rows(p, idx), idx, "precision of a group")  # s = Var(j | A - j)
        self.ld = self.ld + logdiag.sum(1)
        beta = self._product(self.cov, p, idx)      # regression of every variable on A, columns j
        self._low_rank(self.cond, beta, s, idx, 1.0)
        self._low_rank(self.prec, p, s, idx, -1.0)
        np.put_along_axis(self.members, idx, False, axis=1)
        return logdiag


class GrowingCondition:
    """A stack of matrices M_s conditioned on one growing variable set W (grow-only).

    mats: (S, d, d) symmetric positive definite, block-diagonal with the stacked layout of
    ``bipartition_state.stacked_blocks`` (n nodes, d = 4n). Keeps the rows Z_s (k, d) of
    each partial Cholesky factorisation over W, so that M_s | W = M_s - Z_s^T Z_s, and the
    entries of M_s | W that single-node groups need (diagonal, and [i, n+i] of the J
    block) as vectors. Adding a group of g nodes costs O(k d g). On a covariance this is
    the conditional covariance given W; on a precision matrix X^-1 it yields the
    precision of the remaining set R = V - W (Schur complement of the inverse). Queyranne
    stacks both (S = 2), so each step is one batch of numpy calls, not two.
    """

    def __init__(self, mats: np.ndarray, n: int):
        self.mat, self.n = mats, n
        self.rows = np.zeros_like(mats)
        self.k = 0
        self.diag = np.diagonal(mats, axis1=1, axis2=2).copy()
        self.off = mats[:, np.arange(n), n + np.arange(n)].copy()
        self._blocks: dict[int, tuple] = {}   # group size -> (group keys, rows seen, blocks)

    def copy(self) -> "GrowingCondition":
        out = object.__new__(GrowingCondition)
        out.mat, out.n, out.k = self.mat, self.n, self.k
        out.rows, out.diag, out.off = self.rows.copy(), self.diag.copy(), self.off.copy()
        out._blocks = {}
        return out

    def add(self, var: np.ndarray) -> np.ndarray:
        """W += variables ``var`` (G,); returns (S, G): 2 log diag of the Cholesky factor
        of [M_s | W]_var,var, whose sum is log det of that block."""
        z = self.rows[:, :self.k]
        r = self.mat[:, var] - np.swapaxes(z[:, :, var], 1, 2) @ z          # (S, G, d)
        if len(var) == 4:
            new, logdiag = _one_node_rows(r, var)
        else:
            chol = cholesky(r[:, :, var], "conditional covariance of a group")
            new, logdiag = np.linalg.solve(chol, r), 2.0 * log_diagonal(chol)
        self.rows[:, self.k:self.k + len(var)] = new
        self.k += len(var)
        n = self.n
        self.diag -= np.einsum("sgd,sgd->sd", new, new)
        self.off -= np.einsum("sgi,sgi->si", new[:, :, :n], new[:, :, n:2 * n])
        return logdiag

    def block_logdiag(self, var: np.ndarray) -> np.ndarray:
        """2 log diag of chol([M_s | W]_v,v) for each row v of var (m, G); (S, m, G).

        Blocks are cached per group size: within an ordering the same groups are scored
        at every step, so a cached block only needs the rows added since.
        """
        keys = [v.tobytes() for v in var]
        cached = self._blocks.get(var.shape[1])
        if cached is not None and set(keys) <= cached[0].keys():
            block = cached[2][:, [cached[0][key] for key in keys]]
            z = self.rows[:, cached[1]:self.k][:, :, var]                     # (S, new rows, m, G)
        else:
            block = self.mat[:, var[:, :, None], var[:, None, :]]
            z = self.rows[:, :self.k][:, :, var]                              # (S, k, m, G)
        z = np.moveaxis(z, 1, 2)                                              # (S, m, rows, G)
        # small products by einsum (no BLAS call overhead), large ones by matmul
        block = block - (np.einsum("smki,smkj->smij", z, z) if z.shape[2] * var.shape[1] <= 64
                         else np.swapaxes(z, 2, 3) @ z)
        self._blocks[var.shape[1]] = ({key: i for i, key in enumerate(keys)}, self.k, block)
        return 2.0 * log_diagonal(cholesky(block, "conditional covariance of a group"))


def _one_node_rows(r: np.ndarray, var: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cholesky rows for one node's 4 stacked variables (J past, J present, P, Q).

    r: (S, 4, d), the rows of M_s | W for those variables; each 4x4 block r[:, :, var] is
    blockdiag(2x2, 1, 1), factorised in closed form (numpy's batched routines cost more
    in call overhead than in arithmetic at this size). Returns (L^-1 r, 2 log diag L).
    """
    a, b, c = r[:, 0, var[0]], r[:, 1, var[0]], r[:, 1, var[1]]
    p, q = r[:, 2, var[2]], r[:, 3, var[3]]
    safe_a = np.where(a > 0, a, 1.0)
    c_given_a = np.where(a > 0, c - b * b / safe_a, -1.0)
    pivots = np.stack([a, c_given_a, p, q], axis=1)                          # (S, 4)
    if np.any(pivots <= 0):
        raise ValueError("conditional covariance of a group is not positive definite (Cholesky failed); "
                         "it needs more samples, shrinkage, or non-degenerate nodes")
    root = np.sqrt(pivots)[:, :, None]
    new = np.empty_like(r)
    new[:, 0] = r[:, 0] / root[:, 0]
    new[:, 1] = (r[:, 1] - (b / root[:, 0, 0])[:, None] * new[:, 0]) / root[:, 1]
    new[:, 2] = r[:, 2] / root[:, 2]
    new[:, 3] = r[:, 3] / root[:, 3]
    return new, np.log(pivots)
