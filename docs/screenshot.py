"""Make docs/report.png, the picture of the HTML report the README and the docs show.

Run from the repository root with the dev install (playwright) and a Chromium on the machine:
``.venv/bin/python docs/screenshot.py [CHROMIUM]`` (default: the first chromium on PATH). It
writes the demo store in a temporary folder as `valuechain demo` does, renders its report and
photographs the top of one run's report — the demo's regressed week five, its funnel and its
failing cases — at 1280 CSS pixels wide.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).resolve().parent / "report.png"
RUN = "run_1cb7b417db"  # week five of the demo's weekly suite, where its server regresses


def main(chromium: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run = [sys.executable, "-m", "valuechain"]
        subprocess.run([*run, "-q", "demo"], cwd=folder, check=True, capture_output=True)
        store = ["--store", "valuechain-demo.duckdb"]
        report = ["report", "--runs", RUN, "--out", "report.html"]
        subprocess.run([*run, *store, *report], cwd=folder, check=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium)
            page = browser.new_page(viewport={"width": 1280, "height": 1300})
            page.emulate_media(color_scheme="light")
            page.goto((Path(folder) / "report.html").as_uri())
            page.screenshot(path=str(OUT))
            browser.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else shutil.which("chromium") or "chromium")
