"""Names of a package loaded on first use (PEP 562): ``__getattr__`` and ``__dir__`` for a
package whose submodules are heavy, so that importing one light submodule (or the package
itself) does not load the rest — the command line and the decode workers start without
polars, Arrow or DuckDB until a command needs them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(
    package: str, where: Mapping[str, str], public: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: a name of ``where`` is read from its
    module (absolute, or relative to the package with a leading dot) the first time it is
    asked for, then kept as a plain attribute of the package."""

    def attribute(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def names() -> list[str]:
        return sorted({*vars(sys.modules[package]), *public})

    return attribute, names
