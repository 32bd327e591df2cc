"""Run an IntegrationLoop in memory for a few cycles, the way the runner feeds it (shared by tests)."""
import numpy as np

from cognition.runtime.unit_history import UnitWindow


def run_loop(loop, cycles: int, batch=None):
    """``cycles`` steps from the initial state: (state, records, units (agents, cycles, n_units))."""
    state = loop.initial_state()
    window = UnitWindow(len(loop.agents), loop.n_units, loop.phi_window - 1)
    records, rows = [], []
    for _ in range(cycles):
        state, record, signals = loop.step(state, window.view(), batch)
        window.push(signals)
        records.append(record)
        rows.append(signals)
    return state, records, np.stack(rows, axis=1)
