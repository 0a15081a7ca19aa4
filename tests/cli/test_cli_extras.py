"""A command whose libraries come with an extra (``pip install 'valuechain[serve]'``) names
that extra when they are missing, before it opens or creates a store: the base install
(``pip install valuechain``) has none of them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_runner import red_line, run

# the serve modules, which import the extra's libraries at their top: dropped from the module
# cache, so the command imports them again and meets the missing library
SERVE_PACKAGE = "valuechain.serve."


@pytest.mark.parametrize("library", ["uvicorn", "starlette", "google.rpc"])
def test_serve_without_its_extra_names_it(
    library: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the library's submodules too: a test before this one may have loaded them, and a
    # cached `starlette.applications` is imported without looking at `starlette` again
    for name in list(sys.modules):
        if name.startswith((SERVE_PACKAGE, library + ".")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, library, None)  # an import of it raises ImportError
    store = tmp_path / "s.duckdb"
    # beyond loopback without a token: were the extra not checked first, the command would
    # stop at the token (another message) rather than start serving
    result = run("--store", store, "serve", "--host", "0.0.0.0", "--port", "0")
    assert result.exit_code == 1, result.output
    line = red_line(result)
    assert "the HTTP server is not installed" in line
    assert f"({library}" in line  # the module not found: the library or one of its own
    assert "pip install 'valuechain[serve]'" in line
    assert not store.exists()
