"""Progress on stderr: plain lines off a terminal (logs), bars that stay on a terminal."""
import io

from runtools import fast_args

from cognition.simulator.progress import Progress, is_progress_line


def test_off_a_terminal_every_phase_writes_plain_lines(tmp_path, capsys):
    from cognition.validate import main

    assert main([str(a) for a in fast_args(tmp_path, cycles=20) + ["--out", tmp_path / "run"]]) in (0, 1)
    err = capsys.readouterr().err.splitlines()
    cycles = [ln for ln in err if ln.startswith("cycles: ")]
    assert cycles[-1].startswith("cycles: 20/20 (100 %)") and cycles[-1].endswith(", done")
    assert 2 <= len(cycles) <= 11  # a tenth of the way at a time, not a line per cycle
    for phase in ("analysis", "report"):
        assert f"{phase}: started" in err
        assert any(ln.startswith(f"{phase}: done in ") for ln in err)


def test_on_a_terminal_the_bars_stay_when_done():
    stream = io.StringIO()
    show = Progress(stream=stream, tty=True)
    bar = show.bar("cycles", 30)
    bar.update(30)
    bar.close()
    with show.phase("analysis"):
        pass
    text = stream.getvalue()
    last = text.split("\r")[-1]
    assert "30/30" in text.split("\n")[0] and text.endswith("\n")  # not erased: the final bar stays on its line
    assert "analysis done" in last


def test_a_stopped_run_says_so_and_silence_is_possible():
    stream = io.StringIO()
    bar = Progress(stream=stream, tty=False).bar("cycles", 10)
    bar.update(4)
    bar.close()
    assert stream.getvalue().splitlines()[-1].startswith("cycles: 4/10 (40 %)")
    assert stream.getvalue().splitlines()[-1].endswith(", stopped")
    quiet = io.StringIO()
    Progress(enabled=False, stream=quiet).bar("cycles", 10).update(10)
    assert quiet.getvalue() == ""


def test_progress_lines_are_told_apart_from_errors():
    assert is_progress_line("cycles: 6/20 (30 %) 0.2 s, stopped") and is_progress_line("analysis: done in 12.1 s")
    assert is_progress_line("report: started")
    assert not is_progress_line("error: in cycle 7: OSError: [Errno 28] No space left on device; last good checkpoint")
