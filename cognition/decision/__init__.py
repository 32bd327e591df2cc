"""Quantum-probability decision models, each beside its classical twin (pure numpy/scipy).

- Disjunction effect: Pothos & Busemeyer (2009) quantum model and its Markov twin
  (:func:`fit_disjunction`, :func:`disjunction_probabilities`, and the batched
  :func:`choice_probabilities` the cognitive loop calls for many agents at once), and its
  matched controls (:func:`controlled_choice_probabilities`: interference off, a Markov twin
  matched in P(act | A), P(act | B)).
- Question order: sequential Lueders measurements vs one joint distribution
  (:func:`fit_question_order`, :func:`sequential_probabilities`); the QQ equality of
  Wang, Solloway, Shiffrin & Busemeyer (2014) (:func:`qq_statistic`, :func:`qq_test`).
- Conjunction fallacy: Busemeyer et al. (2011) (:func:`conjunction_judgment`).

Formulas, parameters and citations: ``docs/decision.md``.
"""
from __future__ import annotations

from ._validate import CELLS_SUM_ATOL
from .batched import batched_expm, choice_probabilities
from .conjunction import ConjunctionJudgment, conjunction_judgment
from .disjunction import DisjunctionFit, fit_disjunction
from .matched import controlled_choice_probabilities, matched_markov_intensity
from .pothos_busemeyer import T_DELIBERATION, disjunction_probabilities, markov_intensity, quantum_hamiltonian
from .qq import QQTest, qq_statistic, qq_test
from .question_order import QuestionOrderFit, fit_question_order, sequential_probabilities

__all__ = [
    "CELLS_SUM_ATOL",
    "T_DELIBERATION",
    "ConjunctionJudgment",
    "DisjunctionFit",
    "QQTest",
    "QuestionOrderFit",
    "batched_expm",
    "choice_probabilities",
    "conjunction_judgment",
    "controlled_choice_probabilities",
    "disjunction_probabilities",
    "fit_disjunction",
    "fit_question_order",
    "markov_intensity",
    "matched_markov_intensity",
    "qq_statistic",
    "qq_test",
    "quantum_hamiltonian",
    "sequential_probabilities",
]
