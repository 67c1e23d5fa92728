"""Fixtures for the report tests: the conversation tests' recorded calls, reused, and Debian's
chromium driven headless by Playwright (never a browser Playwright downloads itself)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from tests.conftest import require_service
from tests.conversation.conftest import good_call

__all__ = ["browser", "good_call"]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    require_service("chromium")  # skips with the reason, or fails under HOTATO_REQUIRE_SERVICES=1
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless chromium context with a fresh profile; any request that would leave the
    machine is aborted and recorded on `context.egress`."""
    executable = chromium_path()
    from playwright.sync_api import sync_playwright  # a test dependency (pip install -e '.[test]')

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=executable,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1200, "height": 900},
        )
        egress: list[str] = []

        def route(r: Any) -> None:
            url = r.request.url
            if url.startswith(("file:", "data:", "about:")):
                r.continue_()
            else:
                egress.append(url)
                r.abort()

        context.route("**/*", route)
        context.egress = egress
        try:
            yield context
        finally:
            context.close()
