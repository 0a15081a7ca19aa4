"""``pip install valuechain`` is the runtime: every library the package imports is one of its
base dependencies (or theirs), but for the extras' libraries, which only the commands that need
them import, and which name their extra when missing (tests/cli/test_cli_extras.py).

Read from the sources and the installed distributions' metadata: a library used by the code
but only installed by the dev extra (numpy came with pandas, with ray) fails here rather than
in a user's fresh venv (.ci/wheel runs the demo there)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "valuechain"

# the libraries an extra brings, and where the package may import them: behind the function
# that names the extra when they are missing
SERVE = ("serve/", "cli/serve.py")  # cli/serve.py's server_module(), then the serve package
EXTRA_IMPORTS = {
    "ray": ("pipeline/scale/job.py",),  # require_ray()
    "uvicorn": SERVE,
    "starlette": SERVE,
    "anyio": SERVE,
    "google": SERVE,  # google.rpc; google.protobuf is a base dependency's
}
# the standard library of a later Python, imported with a fallback to a base dependency
LATER_STDLIB = {"compression"}  # Python 3.14's compression.zstd, else backports.zstd


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", Requirement(requirement).name).lower()


def _closure(requirements: list[str]) -> set[str]:
    """The distributions ``requirements`` install, theirs included (extras' markers false)."""
    seen: set[str] = set()
    todo = [r for r in requirements if _applies(r)]
    while todo:
        name = _name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        todo += [r for r in metadata.requires(name) or [] if _applies(r)]
    return seen


def _applies(requirement: str) -> bool:
    marker = Requirement(requirement).marker
    return marker is None or marker.evaluate({"extra": ""})


def _imports() -> Iterator[tuple[str, str]]:
    """(file relative to the package, top-level module) for every import in the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                yield path.relative_to(PACKAGE).as_posix(), name.partition(".")[0]


def test_the_package_imports_only_its_base_dependencies_outside_the_extras() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = _closure(project["dependencies"])
    providers = metadata.packages_distributions()
    wrong = set()
    for where, module in _imports():
        if module == "valuechain" or module in sys.stdlib_module_names:
            continue
        if module in LATER_STDLIB:
            continue
        if where.startswith(EXTRA_IMPORTS.get(module, ())):
            continue
        given = {_name(d) for d in providers.get(module, [])}
        if not given & base:
            wrong.add(f"{where}: {module} ({', '.join(sorted(given)) or 'not installed'})")
    assert not wrong, "imported but not a base dependency:\n" + "\n".join(sorted(wrong))
