"""The notebooks in notebooks/: stored without outputs, and each runs headlessly end to end.

Each is executed by nbclient in a kernel of this interpreter (ipykernel), in a fresh folder,
so it builds its own store from the public API exactly as a reader's first run would.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import valuechain

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))
PUBLIC = {"valuechain", "altair", "polars", "tempfile", "pathlib"}  # what a notebook may import


def test_both_notebooks_are_there() -> None:
    assert [path.name for path in NOTEBOOKS] == [
        "funnel-drill-down.ipynb",
        "trend-analysis.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_stored_without_outputs(path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    code = [cell for cell in book.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)
    assert all("execution" not in cell.metadata for cell in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_only_the_public_api_is_imported(path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    imported: set[str] = set()
    used: set[str] = set()  # valuechain.<name>
    for cell in book.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add(node.module or "")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                used |= {node.attr} if node.value.id == "valuechain" else set()
    assert imported <= PUBLIC, imported - PUBLIC
    assert used and used <= set(valuechain.__all__), used - set(valuechain.__all__)


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_runs_headlessly_without_error(path: Path, tmp_path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    client = NotebookClient(
        book,
        timeout=600,
        startup_timeout=180,  # a kernel's start on a busy two-core machine
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError naming the cell on any error
    assert client.kc is None  # the kernel was shut down
    errors = [
        output
        for cell in book.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert errors == []
    assert list(tmp_path.iterdir()) == []  # the history and its store went to a folder of their own
    charts = [
        output
        for cell in book.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type in ("display_data", "execute_result")
        and any(kind.startswith(("image/", "application/vnd.vega")) for kind in output.data)
    ]
    assert charts, "no chart drawn"
    for chart in charts:  # drawn in the notebook: nothing to fetch, so they show offline
        assert "image/svg+xml" in chart.data, sorted(chart.data)
        assert "<script" not in chart.data.get("text/html", "")
