"""Regenerate docs/img/demo-report.png: the demo's report page as Debian's chromium shows it.

    .venv/bin/python scripts/demo_screenshot.py

Needs `chromium` on PATH (apt-get install chromium) and Playwright (the test extra); Playwright
drives the system browser and never downloads one of its own.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "img" / "demo-report.png"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        print("chromium is not on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "demo.html"
        subprocess.run(
            [sys.executable, "-m", "hotato", "demo", "--html", str(page_file)],
            check=True,
            capture_output=True,
        )
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(Path(tmp) / "profile"),
                executable_path=chromium,
                headless=True,
                args=ARGS,
                viewport={"width": 1100, "height": 1500},
            )
            page = context.new_page()
            page.goto(page_file.as_uri())
            OUT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(OUT), clip={"x": 0, "y": 0, "width": 1100, "height": 1500})
            context.close()
    print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
