"""A real headless Chromium for the browser client's tests (Debian's ``chromium`` and
``chromium-driver``, driven by Selenium), and the race server process it talks to.

Without the browser the tests skip, saying why; ``PATIENCE_EXPECT_BROWSER=1`` (CI
sets it, as it installs the browser) turns that skip into a failure, so a CI
machine that lost its browser cannot pass by skipping every browser test.
Selenium is given the paths of Debian's binaries: it never downloads a browser.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgpack
import pytest

T = TypeVar("T")
SERVE_LINE = re.compile(rb"serving ws://([^:/]+):(\d+)/")
PHONE = (390, 844)
DESKTOP = (1280, 800)


def browser_paths() -> tuple[str, str]:
    """Chromium and its driver, or a skip (a failure where CI expects them) saying what is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    missing = [name for name, path in (("chromium", chromium), ("chromium-driver", driver)) if not path]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if missing:
        reason = (f"the browser tests need {', '.join(missing)} (Debian: apt-get install chromium "
                  "chromium-driver; .ci/run installs them)")
        if os.environ.get("PATIENCE_EXPECT_BROWSER") == "1":
            pytest.fail(reason + ", and PATIENCE_EXPECT_BROWSER=1 says this machine has them")
        pytest.skip(reason)
    assert chromium and driver
    return chromium, driver


def new_browser(size: tuple[int, int] = DESKTOP) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    chromium, driver = browser_paths()
    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-extensions", "--disable-background-networking",
                f"--window-size={size[0]},{size[1]}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    browser = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    resize(browser, size)
    return browser


def resize(browser: Any, size: tuple[int, int]) -> None:
    """The viewport in CSS pixels (a phone's is 390x844), whatever the window around it."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 600})


def wait(browser: Any, check: Callable[[], T | None], timeout: float = 10.0, what: str = "") -> T:
    """Poll ``check`` until it returns something truthy; fail with the page's status line."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except Exception as exc:  # the page is being drawn again under our feet
            last_error = exc
        time.sleep(0.05)
    status = browser.execute_script("return document.getElementById('status')?.textContent")
    main = browser.execute_script("return document.getElementById('main')?.innerText")
    raise AssertionError(f"timed out waiting for {what or check}: status {status!r}, "
                         f"last error {last_error!r}, screen:\n{main}")


# the page's websockets, kept for Page.deliver (a subclass: the page sees a WebSocket as ever)
KEEP_SOCKETS = """(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__sockets.push(this); }
  };
})();"""


@dataclass
class Frames:
    """Every websocket frame a page received, decoded (from Chromium's performance log)."""

    browser: Any
    received: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    sent_bytes: list[bytes] = field(default_factory=list)  # the frames of ``sent``, as the page wrote them

    def collect(self) -> list[dict[str, Any]]:
        """The frames received so far (and, in ``sent``, the frames the page sent)."""
        for entry in self.browser.get_log("performance"):
            message = __import__("json").loads(entry["message"])["message"]
            method = message.get("method")
            if method not in ("Network.webSocketFrameReceived", "Network.webSocketFrameSent"):
                continue
            response = message["params"]["response"]
            if response.get("opcode") == 2:
                data = base64.b64decode(response["payloadData"])
                frame = msgpack.unpackb(data, raw=False, strict_map_key=False)
                (self.received if method.endswith("Received") else self.sent).append(frame)
                if method.endswith("Sent"):
                    self.sent_bytes.append(data)
        return self.received


@dataclass
class WebServer:
    """A ``patience-server serve`` process; restartable on the same port."""

    redis_url: str
    workdir: Path
    env_overrides: dict[str, str]
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def start(self) -> WebServer:
        exe = Path(sys.executable).parent / "patience-server"
        command = [str(exe), "serve"] if exe.exists() else [sys.executable, "-m", "server.cli.main", "serve"]
        env = dict(os.environ)
        env.update({"REDIS_URL": self.redis_url, "PATIENCE_PORT": str(self.port),
                    "PATIENCE_HOST": "127.0.0.1", "PATIENCE_DATA_DIR": str(self.workdir / "data"),
                    "PYTHONUNBUFFERED": "1", **self.env_overrides})
        log = open(self.workdir / "server.log", "ab")  # noqa: SIM115 (the process keeps it)
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
                                     env=env, cwd=self.workdir)
        log.close()
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            found = SERVE_LINE.search(line)
            if found:
                self.port = int(found.group(2))
                return self
        raise RuntimeError(f"the server exited before serving:\n{(self.workdir / 'server.log').read_text()}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.kill()


@contextmanager
def web_server(redis_url: str, workdir: Path, **env: str) -> Iterator[WebServer]:
    server = WebServer(redis_url, workdir, env).start()
    try:
        yield server
    finally:
        server.stop()


class Page:
    """One browser tab on the race server's page, with the few looks and actions tests need."""

    def __init__(self, browser: Any, server: WebServer) -> None:
        self.browser = browser
        self.server = server
        self.frames = Frames(browser)

    def open(self, path: str = "/", *, fresh: bool = True) -> Page:
        if fresh:  # a new player: no token, no name from an earlier test in this tab
            self.browser.get(self.server.base + "/assets/icon.svg")
            self.browser.execute_script("sessionStorage.clear(); localStorage.clear();")
        self.browser.get(self.server.base + path)
        self.online()
        return self

    def js(self, script: str, *args: Any) -> Any:
        return self.browser.execute_script(script, *args)

    def keep_sockets(self) -> None:
        """From the next page load on, keep the page's websockets where :meth:`deliver`
        finds them (each one the page opens, in ``window.__sockets``)."""
        if not getattr(self.browser, "sockets_kept", False):
            self.browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": KEEP_SOCKETS})
            self.browser.sockets_kept = True

    def deliver(self, message: dict[str, Any]) -> None:
        """Hand the page ``message`` as if its server had sent it on the page's last
        websocket just now (between two key presses, after a leave, ...): the page
        has handled it, and drawn its screen again, when this returns."""
        frame = list(msgpack.packb(message))
        self.js("const ws = window.__sockets.at(-1);"
                "ws.onmessage(new MessageEvent('message', { data: new Uint8Array(arguments[0]).buffer }));",
                frame)

    def status(self) -> str:
        return str(self.js("return document.getElementById('status').textContent"))

    def online(self, timeout: float = 10.0) -> None:
        wait(self.browser, lambda: self.status().startswith("online"), timeout, "the page online")

    def text(self) -> str:
        return str(self.js("return document.getElementById('main').innerText"))

    def key(self, *keys: str) -> None:
        """Keys as typed (Selenium's names: Keys.ESCAPE is "\\ue00c")."""
        from selenium.webdriver.common.action_chains import ActionChains

        for k in keys:
            ActionChains(self.browser).send_keys(k).perform()

    def click(self, css: str) -> None:
        """Click the element; found again if the page drew its screen anew meanwhile."""
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.common.by import By

        def clicked() -> bool:
            try:
                self.browser.find_element(By.CSS_SELECTOR, css).click()
            except StaleElementReferenceException:
                return False
            return True

        wait(self.browser, clicked, 10, css)

    def button(self, label_start: str) -> None:
        """Click the button whose text starts with ``label_start``."""
        from selenium.common.exceptions import StaleElementReferenceException

        def clicked() -> bool:
            found = self.js("return [...document.querySelectorAll('main button')]"
                            ".find(b => b.textContent.trim().startsWith(arguments[0])) || null", label_start)
            if found is None:
                return False
            try:
                found.click()
            except StaleElementReferenceException:
                return False
            return True

        wait(self.browser, clicked, 10, f"a button {label_start!r}")

    def legal(self) -> list[str]:
        text = self.js("return document.querySelector('.board')?.dataset.legal ?? null")
        return str(text).split() if text else []

    def v(self) -> int:
        return int(self.js("return document.querySelector('.board')?.dataset.v ?? '-1'") or -1)

    def in_room(self, timeout: float = 10.0) -> str:
        """Wait for a room's screen; its code."""
        return str(wait(self.browser, lambda: self.js(
            "return /room ([A-Z0-9]{6})/.exec(document.querySelector('.room h2')?.textContent ?? '')?.[1]"),
            timeout, "a room's screen"))

    def in_race(self, timeout: float = 15.0) -> None:
        wait(self.browser, lambda: self.v() >= 0, timeout, "the race's board")

    def wait_text(self, text: str, timeout: float = 10.0) -> None:
        wait(self.browser, lambda: text in self.text(), timeout, repr(text))

    def console_errors(self) -> list[str]:
        return [e["message"] for e in self.browser.get_log("browser") if e.get("level") == "SEVERE"]
