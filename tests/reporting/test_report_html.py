"""report.html opens in headless Chromium (Debian's `chromium` package) without console errors.

The browser is driven over the Chrome DevTools Protocol on a pipe (--remote-debugging-pipe:
commands on fd 3, replies and events on fd 4, NUL-separated JSON), so the test sees every
console message, uncaught exception and network error the page produces, and takes a
full-page screenshot into the test's tmp dir. A negative control (a page with a missing
image, a thrown error and console.error) shows that the check does catch errors.
Skipped, with the reason, where /usr/bin/chromium is absent (CI installs it with apt).
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="headless Chromium not installed "
                                    "(/usr/bin/chromium; Debian: apt-get install -y chromium)")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _high_pipe() -> tuple[int, int]:
    """A pipe on fds >= 10, so that making them the browser's fds 3 and 4 cannot clobber them."""
    fds = os.pipe()
    high = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in fds)
    for fd in fds:
        os.close(fd)
    return high


class Chromium:
    """Headless Chromium driven over --remote-debugging-pipe."""

    def __init__(self, profile: Path, width: int = 1200, height: int = 2000):
        cmd_r, self._cmd_w = _high_pipe()
        self._evt_r, evt_w = _high_pipe()
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--window-size={width},{height}",
                 "--remote-debugging-pipe"]
        # the protocol pipes must be the browser's fds 3 (commands in) and 4 (messages out)
        shell = f'exec "$@" 3<&{cmd_r} 4>&{evt_w} {cmd_r}<&- {evt_w}>&-'
        self.proc = subprocess.Popen(["bash", "-c", shell, "bash", str(CHROMIUM), *flags], pass_fds=(cmd_r, evt_w),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(evt_w)
        self._buf, self._id, self.events = b"", 0, []
        self.session = None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable")

    def _read(self, deadline: float) -> dict | None:
        while b"\0" not in self._buf:
            ready, _, _ = select.select([self._evt_r], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = os.read(self._evt_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, timeout: float = 30.0, **params) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self.session and not method.startswith(("Target.", "Browser.")):
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while (reply := self._read(deadline)) is not None:
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)
        raise TimeoutError(f"{method}: no reply from chromium in {timeout} s")

    def wait_for(self, event: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self.events):
            msg = self._read(deadline)
            if msg is None:
                raise TimeoutError(f"no {event} from chromium in {timeout} s")
            self.events.append(msg)

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (msg := self._read(deadline)) is not None:
            self.events.append(msg)

    def open(self, path: Path) -> None:
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")
        self.drain(0.5)  # late errors (images decode after load)

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries (e.g. failed resource loads)."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif e.get("method") == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append("exception: " + d.get("exception", {}).get("description", d.get("text", "")))
            elif e.get("method") == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(f"log: {p['entry']['text']} {p['entry'].get('url', '')}")
        return out

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)
        os.close(self._evt_r)


@pytest.fixture
def chromium(tmp_path):
    browser = Chromium(tmp_path / "profile")
    yield browser
    browser.close()


@needs_chromium
def test_the_check_catches_page_errors(chromium, tmp_path):
    """Negative control: a broken page must produce errors, or the next test proves nothing."""
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><img src="missing.png">'
                    '<script>console.error("deliberate"); throw new Error("boom");</script></body></html>')
    chromium.open(page)
    errors = chromium.errors()
    assert any("deliberate" in e for e in errors), errors
    assert any("boom" in e for e in errors), errors
    assert any("missing.png" in e or "ERR_FILE_NOT_FOUND" in e for e in errors), errors


@needs_chromium
def test_report_html_opens_without_console_errors(chromium, tmp_path, report_run):
    html = report_run / "report.html"
    chromium.open(html)
    assert chromium.errors() == []
    # every figure decoded: the page reports each <img> complete with a real size
    sizes = chromium.call("Runtime.evaluate", returnByValue=True, expression=(
        "Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])"))["result"]["value"]
    assert len(sizes) == 7 and all(ok and w > 100 and h > 100 for ok, w, h in sizes), sizes
    shot = chromium.screenshot(tmp_path / "report.png")
    assert shot.read_bytes()[:8] == PNG_MAGIC and shot.stat().st_size > 10_000


@pytest.fixture(scope="module")
def report_run(tmp_path_factory):
    """A short classical run (its report has all five plots), shared with the other report tests."""
    from test_report import shared_run

    return shared_run(tmp_path_factory, "classical")
