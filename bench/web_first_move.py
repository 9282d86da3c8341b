"""Time to the first move in the browser client, on a cold page load over loopback.

Starts a server process (its own embedded Redis), opens the page in a fresh headless
Chromium (nothing cached), and reports: the page online (navigation to the welcome),
and a quick race's first move (the click on a pile to its view), each the median of
five runs. Needs Debian's chromium and chromium-driver, and selenium.

    .venv/bin/python -m bench.web_first_move
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from tests.support.browser import Page, new_browser, wait, web_server
from tests.support.redis_server import redis_url

RUNS = 5


def main() -> None:
    online: list[float] = []
    first_move: list[float] = []
    with redis_url() as redis, tempfile.TemporaryDirectory() as tmp, \
            web_server(redis, Path(tmp), PATIENCE_COUNTDOWN_MS="0", PATIENCE_RATE_PER_2S="100000") as server:
        for _ in range(RUNS):
            browser = new_browser()
            try:
                page = Page(browser, server)
                browser.get(server.base + "/")
                page.online()
                online.append(page.js("return performance.now()"))
                page.key("8")
                page.click('[data-variant="four-seasons"]')
                page.click("form.line button[type=submit]")
                page.in_race()
                move = next((m for m in page.legal() if "-" in m), "draw")
                start = page.js("return performance.now()")
                if move == "draw":
                    page.click('button.pile[data-pile="s"]')
                else:
                    src, dst = move.split(":")[0].split("-")
                    page.click(f'button.pile[data-pile="{src}"]')
                    page.click(f'button.pile[data-pile="{dst}"]')
                wait(browser, lambda: page.v() == 1, 5, "the first move's view")  # noqa: B023 (waited for at once)
                first_move.append(page.js("return performance.now()") - start)
            finally:
                browser.quit()
    print(f"page online after a cold load: median {statistics.median(online):.0f} ms")
    print(f"first move, click to its view drawn: median {statistics.median(first_move):.0f} ms "
          "(two clicks through the driver included)")


if __name__ == "__main__":
    main()
