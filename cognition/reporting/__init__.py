"""Run reports and run comparisons (used by :mod:`cognition.report`).

- :mod:`~cognition.reporting.rundata`: read a run directory back
- :mod:`~cognition.reporting.bands`: per-cycle bootstrap and null-model bands of Phi
- :mod:`~cognition.reporting.plots`: the run's PNG plots
- :mod:`~cognition.reporting.sections`: the report's content; :mod:`~cognition.reporting.document`
  renders it as markdown and as one self-contained HTML file
- :mod:`~cognition.reporting.compare`, :mod:`~cognition.reporting.compare_plot`,
  :mod:`~cognition.analysis.statistics`: runs side by side, with a test for dependent series
- :mod:`~cognition.analysis.fmt`: numbers with units (bits, MiB, s)
- :mod:`~cognition.analysis.wording`: the label of each Phi quantity, worded once for every place it is printed
"""
