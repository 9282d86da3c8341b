"""One race server process and one headless Chromium per test module (the browser
starts in about a second; sharing it keeps the browser tests quick)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import Page, WebServer, browser_paths, new_browser, web_server
from tests.support.redis_server import fresh_server
from tests.support.servers import NO_ADDRESS_LIMITS

SERVER_ENV = {
    "PATIENCE_COUNTDOWN_MS": "300", "PATIENCE_QUICK_BOT_S": "1", "PATIENCE_BOT_PACE_PCT": "0",
    "PATIENCE_RATE_PER_2S": "100000", "PATIENCE_RACE_SECONDS": "120", "PATIENCE_ARENA_TICK_MS": "100",
    "PATIENCE_DAILY_BUDGET": "5000", "PATIENCE_DAILY_TRIES": "2",
    **{f"PATIENCE_{k.upper()}": str(v) for k, v in NO_ADDRESS_LIMITS.items()},
}


@pytest.fixture(scope="module")
def module_redis_url() -> Iterator[str]:
    """A Redis of the module's own: a quick race joins any open room in its store,
    and rooms other e2e modules left (a bot's seat of a server they killed) would
    take a quick race of these tests in."""
    with fresh_server() as redis:
        yield redis.url


@pytest.fixture(scope="module")
def server(module_redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    browser_paths()  # skip (or fail in CI) before starting anything
    with web_server(module_redis_url, tmp_path_factory.mktemp("web"), **SERVER_ENV) as started:
        yield started


@pytest.fixture(scope="module")
def browser(server: WebServer) -> Iterator[Any]:
    started = new_browser()
    try:
        yield started
    finally:
        started.quit()


@pytest.fixture
def page(browser: Any, server: WebServer) -> Page:
    return Page(browser, server)
