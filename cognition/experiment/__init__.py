"""Experiments over many runs: python -m cognition.experiment ..."""
