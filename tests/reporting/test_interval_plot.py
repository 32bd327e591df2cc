"""cognition.reporting.plots.interval draws an interval as given, even one that does not contain its point
(matplotlib's errorbar refuses negative distances; mirroring them with abs() would draw a wrong interval)."""
import numpy as np

from cognition.reporting.plots import interval, pyplot


def test_an_interval_beside_its_point_is_drawn_where_it_is():
    plt = pyplot()
    fig, ax = plt.subplots()
    interval(ax, 1.0, 0.5, 0.6, 0.9, marker="o", color="black", capsize=4, elinewidth=0.8, label="x")
    segments = ax.collections[0].get_segments()
    assert len(segments) == 1 and np.allclose(segments[0], [[1.0, 0.6], [1.0, 0.9]])
    assert ax.lines[0].get_ydata()[0] == 0.5
    interval(ax, 2.0, 0.3, None, None, marker="s")  # no interval: the point alone
    assert len(ax.collections) == 1
    plt.close(fig)
