"""Shared pytest configuration: the `slow` and `integration` markers are opt-in, `gpu` needs CUDA.

`integration`: end-to-end runs in subprocesses (whole sweeps, bench suites, notebooks, kill and
resume of a plug-in) that keep the default suite near 5 minutes; `.ci/run` runs them as its second
step (`python -m pytest --integration -m integration`). `slow`: long calibrations, not run in CI.
"""
from __future__ import annotations

import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")
    parser.addoption("--integration", action="store_true", default=False,
                     help="run tests marked integration (the CI's second step)")


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def pytest_collection_modifyitems(config, items):
    run_slow = config.getoption("--runslow")
    has_cuda = _cuda_available()
    skip_slow = pytest.mark.skip(reason="slow: pass --runslow to run")
    skip_gpu = pytest.mark.skip(reason="gpu: no CUDA device visible")
    run_integration = config.getoption("--integration")
    skip_integration = pytest.mark.skip(reason="integration: pass --integration to run (CI's second step)")
    for item in items:
        if "integration" in item.keywords and not run_integration:
            item.add_marker(skip_integration)
        if "slow" in item.keywords and not run_slow:
            item.add_marker(skip_slow)
        if "gpu" in item.keywords and not has_cuda:
            item.add_marker(skip_gpu)
