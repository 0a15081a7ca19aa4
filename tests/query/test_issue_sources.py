"""``issues --source`` names a source as a person remembers it (issue 15): the first rule that
matches decides; several different sources matching it is an error naming them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from valuechain.errors import UsageError
from valuechain.query.issues import Source, match_sources

A = Source(1, "/data/exports/run-17.json", "ab12" + "0" * 60)
B = Source(2, "exports/run-18.json", "ab34" + "1" * 60)
C = Source(3, "/other/run-17.json", "cd56" + "2" * 60)
A_AGAIN = Source(4, "/data/exports/run-17.json", "ef78" + "3" * 60)  # the file changed
SOURCES = (A, B, C, A_AGAIN)
CWD = Path("/data")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/data/exports/run-17.json", [A, A_AGAIN]),  # exactly as imported (both versions)
        ("exports/run-17.json", [A, A_AGAIN]),  # relative to where we are: the same file
        ("./exports/../exports/run-17.json", [A, A_AGAIN]),
        ("/data/exports/run-18.json", [B]),  # absolute, imported as a relative path
        ("run-18.json", [B]),  # basename
        ("ab34", [B]),  # sha256 prefix
        ("AB34", [B]),
        ("cd5622", [C]),
    ],
)
def test_a_source_by_path_name_or_sha(text: str, expected: list[Source]) -> None:
    assert match_sources(SOURCES, text, CWD) == expected


@pytest.mark.parametrize(
    ("text", "how", "named"),
    [
        ("run-17.json", "basename", ["/data/exports/run-17.json", "/other/run-17.json"]),
        ("ab", None, None),  # too short for a sha prefix: no match at all
        ("ab1", None, None),
    ],
)
def test_ambiguous_or_unknown_is_an_error(
    text: str, how: str | None, named: list[str] | None
) -> None:
    with pytest.raises(UsageError) as raised:
        match_sources(SOURCES, text, CWD)
    message = raised.value.render()
    if how is None:
        assert "no imported source has this path, basename or sha256 prefix" in message
    else:
        assert f"different sources by {how}" in message
        assert all(path in message for path in named or [])


def test_an_ambiguous_sha_prefix_lists_the_candidates() -> None:
    twin = Source(9, "x.json", A.sha256[:4] + "9" * 60)
    assert match_sources((A, twin), A.sha256[:5], CWD) == [A]  # a longer prefix decides
    with pytest.raises(UsageError) as raised:
        match_sources((A, twin), A.sha256[:4], CWD)
    message = raised.value.render()
    assert "2 different sources by sha256 prefix" in message
    assert "/data/exports/run-17.json (sha256 ab1200000000)" in message and "x.json" in message
