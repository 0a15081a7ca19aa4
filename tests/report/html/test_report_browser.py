"""The report in a real browser: headless Debian Chromium opens the file offline.

It must render without a console error and without a single network request besides the
file itself, draw its charts, and show a notMeasured rate as a visible gap labelled "not
measured", in light and in dark. Screenshots of both go to build/test-artifacts/. Without
Chromium this FAILS with the install command — it is never skipped.
"""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from report_outline import report_of

ARTIFACTS = Path(__file__).resolve().parents[3] / "build" / "test-artifacts"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
)
INSTALL = (
    "the browser test needs Debian's chromium: apt-get install -y --no-install-recommends "
    "chromium (.ci/run installs it when `command -v chromium` finds nothing)"
)


def chromium() -> str:
    """The Chromium binary, or a test failure saying how to install it."""
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None
    )
    if found is None:
        pytest.fail(INSTALL, pytrace=False)
    return found


@dataclass
class Opened:
    """A page with the report loaded, and everything the browser said while loading it."""

    page: object
    url: str
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    binary = chromium()
    try:
        from playwright.sync_api import sync_playwright  # noqa: PLC0415 (fail, not skip)
    except ImportError:
        pytest.fail("playwright is missing: pip install -e '.[dev]'", pytrace=False)
    profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh --user-data-dir
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=binary,
            headless=True,
            args=list(FLAGS),
            viewport={"width": 1280, "height": 900},
        )
        context.set_default_timeout(5_000)  # a missing element fails fast
        context.set_default_navigation_timeout(60_000)  # a page load on a busy machine does not
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def opened(browser: object, trend_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Opened:
    # nothing but the file may load; an attempt still shows in `requests`
    return _load(browser, report_of(trend_store), tmp_path_factory.mktemp("report-page"))


def test_renders_without_console_errors_or_requests(opened: Opened) -> None:
    page = opened.page
    assert page.title().startswith("valuechain report")  # type: ignore[attr-defined]
    assert opened.errors == []
    assert opened.requests == [opened.url]


def _open_all(page: object) -> None:
    """Open every collapsed run and partition (12 runs: each is one line until opened)."""
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true })")  # type: ignore[attr-defined]


def test_every_chart_is_drawn(opened: Opened) -> None:
    page = opened.page
    _open_all(page)
    charts = page.locator("svg.chart")  # type: ignore[attr-defined]
    runs = page.locator("section.run").count()  # type: ignore[attr-defined]
    measured_runs = page.locator("section.run:not(:has(p.unmeasured))").count()  # type: ignore[attr-defined]
    partitions = page.locator("div.partition").count()  # type: ignore[attr-defined]
    one_run = page.locator("div.partition table.one-run").count()  # type: ignore[attr-defined]
    assert (runs, partitions, one_run) == (12, 4, 2)
    assert charts.count() == 2 * measured_runs + 3 * (partitions - one_run)
    for i in range(charts.count()):
        box = charts.nth(i).bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 100
    funnel = page.locator("section.run[data-run=z-first] svg[id$=-funnel]")  # type: ignore[attr-defined]
    assert funnel.locator("g.mark").count() == 9  # 6 passed, 1 failed, 2 not reached


def test_a_not_measured_rate_is_a_visible_labelled_gap(opened: Opened) -> None:
    page = opened.page
    _open_all(page)
    section = page.locator("section.run[data-run=m-second]")  # type: ignore[attr-defined]
    gaps = section.locator("svg.chart g.gap")
    assert gaps.count() == 3  # userValue: pass rate, reach rate and coverage
    for i in range(3):
        gap = gaps.nth(i)
        assert gap.is_visible() and gap.locator("text").text_content() == "not measured"
        box = gap.locator("rect").bounding_box()
        assert box is not None and box["height"] >= 12 and box["width"] >= 100  # not a 0 bar
    assert section.get_by_text("pass not measured").is_visible()
    point = page.locator(  # type: ignore[attr-defined]
        "#trend-1-measuredPassRate g.pt.nm", has_text="m-second"
    )
    assert point.count() == 1 and point.is_visible()


@pytest.mark.parametrize(("scheme", "background"), [("light", "rgb(255, 255, 255)"),
                                                    ("dark", "rgb(13, 17, 23)")])  # fmt: skip
def test_light_and_dark_with_a_screenshot_each(
    opened: Opened, scheme: str, background: str
) -> None:
    page = opened.page
    page.emulate_media(color_scheme=scheme)  # type: ignore[attr-defined]
    body = page.evaluate("getComputedStyle(document.body).backgroundColor")  # type: ignore[attr-defined]
    assert body == background
    label = page.locator("section.run[data-run=m-second] svg[id$=-rates] g.gap text").first  # type: ignore[attr-defined]
    assert label.evaluate("e => getComputedStyle(e).fill") != background
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"report-{scheme}.png"
    page.screenshot(path=str(shot), full_page=True, timeout=120_000)  # type: ignore[attr-defined]
    assert shot.stat().st_size > 10_000


# ---------------------------------------------------------------- which case failed, and why
MAX_HISTORY_HEIGHT = 15_000  # px at 1280 wide: a 27-run history stays a page, not a scroll


def _load(browser: object, html: str, folder: Path) -> Opened:
    path = folder / "report.html"
    path.write_text(html, encoding="utf-8")
    url = path.as_uri()
    page = browser.new_page()  # type: ignore[attr-defined]
    seen = Opened(page, url)
    page.on("request", lambda r: seen.requests.append(r.url))
    page.on("console", lambda m: m.type == "error" and seen.errors.append(m.text))
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    page.route(
        "**/*", lambda route: route.continue_() if route.request.url == url else route.abort()
    )
    page.goto(url, wait_until="load")
    return seen


def _height(page: object) -> int:
    return int(page.evaluate("document.documentElement.scrollHeight"))  # type: ignore[attr-defined]


def _shot(page: object, path: Path) -> tuple[int, int]:
    """A full-page screenshot at ``path``; its width and height in pixels (the PNG header's)."""
    page.screenshot(path=str(path), full_page=True, timeout=120_000)  # type: ignore[attr-defined]
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR"
    width, height = struct.unpack(">II", header[16:24])
    return int(width), int(height)


def test_demo_report_shows_failing_cases_and_a_funnel_bar_scrolls_to_a_chain(
    browser: object, demo_store: Path, tmp_path: Path
) -> None:
    seen = _load(browser, report_of(demo_store), tmp_path)
    page = seen.page
    assert seen.errors == [] and seen.requests == [seen.url]
    run = page.locator("section.run[data-run=run_7d2d741dbb]")  # type: ignore[attr-defined]
    details = run.locator("details").first
    assert details.evaluate("d => d.open")  # two runs: shown open
    run.locator("summary h2").click()  # a run's heading folds it and unfolds it
    assert not details.evaluate("d => d.open")
    run.locator("summary h2").click()
    cases = run.locator("table[id$=-cases]")
    assert cases.is_visible() and cases.locator("tbody tr").count() == 2
    heads = cases.locator("thead th").all_inner_texts()
    assert heads[:3] == ["case", "model", "verdict"]  # each case × variant's verdict first
    # the demo runs decided nothing: a word says so, never a blank, a pass or a fail
    assert cases.locator("td[data-verdict]").all_inner_texts() == ["no decision"] * 2
    assert "tracker-mcp-regression" in run.locator("summary").inner_text()
    bar = run.locator("svg[id$=-funnel] a.to-trial").first
    target = bar.get_attribute("href")
    assert target == "#trial-it_9acdadc414"
    page.evaluate("window.scrollTo(0, 0)")
    bar.click()
    chain = page.locator(f"{target} table.chain")
    page.wait_for_function("document.location.hash === '#trial-it_9acdadc414'")
    assert chain.is_visible() and page.evaluate("window.scrollY") > 0
    box = page.locator(target).bounding_box()
    assert box is not None and 0 <= box["y"] < 900  # scrolled into the viewport
    assert chain.locator("tr[data-state=failed] td.state").inner_text() == "failed"
    assert page.locator(f"{target} table.diff tr[data-diff=extra]").count() == 1
    width, height = _shot(page, tmp_path / "demo-report.png")
    assert width == 1280 and height == _height(page) and height > 2_000


def test_history_report_stays_short_and_a_link_opens_a_closed_run(
    browser: object, history_html: str, tmp_path: Path
) -> None:
    seen = _load(browser, history_html, tmp_path)
    page = seen.page
    assert seen.errors == [] and seen.requests == [seen.url]
    assert page.locator("section.run").count() == 27  # type: ignore[attr-defined]
    height = _height(page)
    assert height < MAX_HISTORY_HEIGHT, height
    width, shot_height = _shot(page, tmp_path / "history-report.png")
    assert (width, shot_height) == (1280, height)
    # trend dates never overlap: each tick label clear of the next in every drawn chart
    overlaps = page.evaluate(  # type: ignore[attr-defined]
        """() => [...document.querySelectorAll('svg.chart[id^=trend]')]
            .map(svg => [...svg.querySelectorAll('text.tick')]
                 .filter(t => /^\\d{4}-/.test(t.textContent)).map(t => t.getBoundingClientRect()))
            .filter(boxes => boxes.some((b, i) => i && b.left < boxes[i - 1].right)).length"""
    )
    assert overlaps == 0
    # a one-run partition is a table of values, not six stacked dots
    one_run = page.locator("div.partition:has(table.one-run)")  # type: ignore[attr-defined]
    assert one_run.count() >= 1 and one_run.first.locator("svg.chart").count() == 0
    # a failing trial inside a closed run: following its link opens the run and shows it
    anchor = page.locator("article.trial").first.get_attribute("id")  # type: ignore[attr-defined]
    page.goto(f"{seen.url}#{anchor}")  # type: ignore[attr-defined]
    assert page.locator(f"#{anchor} table.chain").is_visible()  # type: ignore[attr-defined]
    opened = page.evaluate(f"document.getElementById('{anchor}').closest('details').open")  # type: ignore[attr-defined]
    assert opened is True
