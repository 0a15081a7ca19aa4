"""The whole report page: one self-contained HTML file (inline CSS and SVG, no script, no
fetch of any kind), light and dark by ``prefers-color-scheme``."""

from __future__ import annotations

from importlib import resources
from typing import Final

from valuechain._version import __version__
from valuechain.contract.words import plural
from valuechain.report.html.gather import ReportData
from valuechain.report.html.markup import Safe, el, join, slug, void
from valuechain.report.html.sections import overview, run_section
from valuechain.report.html.trend import trend_section

# Run sections shown open when the report holds at most this many runs; beyond, each is one
# line to open (a link into a closed run opens it), so a long history stays a short page.
OPEN_RUNS: Final = 3

# No network: nothing may load from anywhere, not even the page's own folder.
CSP: Final = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

# Shared hatch patterns (referenced by url(#…) from every chart of the page).
_DEFS: Final = Safe(
    '<svg id="defs" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">'
    "<defs>"
    '<pattern id="hatch-nm" width="6" height="6" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect class="h-bg" width="6" height="6"/>'
    '<line class="h-nm" x1="0" y1="0" x2="0" y2="6" stroke-width="3"/></pattern>'
    '<pattern id="hatch-unknown" width="6" height="6" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(-45)"><rect class="h-bg" width="6" height="6"/>'
    '<line class="h-unknown" x1="0" y1="0" x2="0" y2="6" stroke-width="2"/></pattern>'
    "</defs></svg>"
)


def _css() -> str:
    return (resources.files("valuechain.report.html") / "report.css").read_text(encoding="utf-8")


def run_anchor(index: int, run_id: str) -> str:
    """A run section's element id: unique by position, readable by its run id."""
    return f"run-{index}-{slug(run_id)}"


def _scope(data: ReportData) -> str:
    if data.request.runs:
        return f"runs {', '.join(data.request.runs)}"
    if data.request.suite is not None:
        return f"the runs of suite {data.request.suite}"
    return "every run in the store"


def _header(data: ReportData, anchors: list[tuple[str, str]]) -> Safe:
    return el(
        "header",
        None,
        el("h1", None, "valuechain report"),
        el(
            "p",
            None,
            f"store {data.store} · {_scope(data)} · {plural(len(data.runs), 'run')} · generated "
            f"{data.generated_at:%Y-%m-%d %H:%M} UTC by valuechain {__version__}",
        ),
        el(
            "p",
            None,
            "Derived chains at the current analyzer. A rate with nothing to divide is "
            "shown as a hatched gap labelled “not measured” — never as 0 %, never as a pass.",
        ),
        el(
            "nav",
            {"aria-label": "sections"},
            el(
                "ul",
                None,
                *(el("li", None, el("a", {"href": f"#{a}"}, run)) for a, run in anchors),
                el("li", None, el("a", {"href": "#trend"}, "trend")),
            ),
        ),
    )


def render_page(data: ReportData) -> str:
    """The report as one HTML document."""
    anchors = [(run_anchor(i, r.run_id), r.run_id) for i, r in enumerate(data.runs, 1)]
    body = join(
        [
            _DEFS,
            _header(data, anchors),
            el(
                "main",
                None,
                overview([a for a, _ in anchors], data.runs),
                *(
                    run_section(a, r, open_=len(data.runs) <= OPEN_RUNS)
                    for (a, _), r in zip(anchors, data.runs, strict=True)
                ),
                trend_section(
                    data.partitions,
                    data.outside,
                    {
                        str(r.row["suite_id"]): r.suite_name
                        for r in data.runs
                        if r.suite_name and r.row["suite_id"]
                    },
                ),
            ),
        ]
    )
    head = join(
        [
            void("meta", {"charset": "utf-8"}),
            void("meta", {"http-equiv": "Content-Security-Policy", "content": CSP}),
            void("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
            void("meta", {"name": "color-scheme", "content": "light dark"}),
            void("meta", {"name": "generator", "content": f"valuechain {__version__}"}),
            el("title", None, f"valuechain report — {_scope(data)}"),
            el("style", None, Safe(_css())),
        ]
    )
    return (
        "<!DOCTYPE html>\n"
        + el("html", {"lang": "en"}, el("head", None, head), el("body", None, body))
        + "\n"
    )
