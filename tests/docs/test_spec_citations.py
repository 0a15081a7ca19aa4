"""Every "§" the code and the docs cite resolves to a heading of a spec page (issue 42).

The command line prints "CONTRACT §5.11" and "TRACE-FORMAT §3.6"; the sources and the pages
cite them, the extension pages (``docs/spec/mcpjam-sdk.md §4``) and bare "§N" after one.
Each named citation must be a ``{#sN}`` heading anchor of the page it names
(``docs/hooks.py``'s ``resolve``, which the site also uses to make them links); a bare "§N"
must be a heading of some spec page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docs.hooks import SPECS, anchors, link_citations, resolve

ROOT = Path(__file__).resolve().parents[2]
CITING = [
    *sorted((ROOT / "src/valuechain").rglob("*.py")),
    ROOT / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
]
SECTION = r"§(\d+(?:\.\d+)*)"
# a named document, then its sections: "TRACE-FORMAT §3.4–§3.7", "CONTRACT §5.11, §6.3"
NAMED = re.compile(
    r"(CONTRACT|TRACE-FORMAT|docs/spec/mcpjam-sdk\.md|docs/spec/trace-format-3\.8\.md)\s+"
    rf"({SECTION}(?:\s*(?:[–,/-]|and|or)\s*{SECTION})*)"
)
BARE = re.compile(SECTION)


def citations(path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """The (document, section) pairs of named citations, and the bare sections left over."""
    text = path.read_text()
    named = []
    for match in NAMED.finditer(text):
        named += [(match[1], s) for s in BARE.findall(match[2])]
    bare = BARE.findall(NAMED.sub("", text))
    return named, bare


def test_the_citing_files_are_found() -> None:
    named, _ = citations(ROOT / "src/valuechain/contract/issues.py")
    assert (
        "TRACE-FORMAT",
        "5.2",
    ) in named  # the module docstring's "TRACE-FORMAT §1.2, §1.4, §5.2"
    assert ("CONTRACT", "9") in named


@pytest.mark.parametrize("path", CITING, ids=[p.relative_to(ROOT).as_posix() for p in CITING])
def test_every_citation_resolves_to_a_spec_heading(path: Path) -> None:
    named, bare = citations(path)
    every_anchor = set().union(*(anchors(p) for pages in SPECS.values() for p in pages))
    unresolved = [f"{doc} §{s}" for doc, s in named if resolve(doc, s) is None]
    unresolved += [f"§{s}" for s in bare if f"s{s}" not in every_anchor]
    assert not unresolved, f"{path.relative_to(ROOT)} cites sections no spec page has: {unresolved}"


def test_the_site_links_prose_citations_and_leaves_code_as_written() -> None:
    page = "Parity is CONTRACT §5.11; `CONTRACT §6` stays code; TRACE-FORMAT §3.10 is an extension"
    linked = link_citations(f"{page}\n```text\nCONTRACT §5.11\n```", "concepts/parity.md")
    assert linked.splitlines() == [
        "Parity is [CONTRACT §5.11](../spec/contract.md#s5.11); `CONTRACT §6` stays code; "
        "[TRACE-FORMAT §3.10](../spec/mcpjam-sdk.md#s3.10) is an extension",
        "```text",
        "CONTRACT §5.11",
        "```",
    ]
