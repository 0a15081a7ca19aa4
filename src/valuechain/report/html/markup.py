"""Markup built by construction: every text and attribute value is escaped on the way in.

`el(tag, attrs, *children)` returns `Safe` markup; a plain `str` child is text and is
escaped, a `Safe` child is markup already built here. Nothing from the store (run ids, case
titles, reasons) reaches the page except through `el`, so none of it can become markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Final

_ID_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]+")


class Safe(str):
    """Markup that was built (escaped) here; inserted as it is."""

    __slots__ = ()


Attrs = Mapping[str, object]


def text(value: object) -> Safe:
    """``value`` as escaped text."""
    return Safe(html.escape(str(value), quote=False))


def _attr(name: str, value: object) -> str:
    if value is True:
        return f" {name}"
    if isinstance(value, float):
        value = f"{value:.2f}".rstrip("0").rstrip(".")
    return f' {name}="{html.escape(str(value), quote=True)}"'


def _children(children: Iterable[object]) -> Iterable[str]:
    for child in children:
        if child is None or child is False:
            continue
        if isinstance(child, Safe):
            yield child
        elif isinstance(child, str):
            yield text(child)
        elif isinstance(child, Iterable):
            yield from _children(child)
        else:
            yield text(child)


def el(tag: str, attrs: Attrs | None = None, *children: object) -> Safe:
    """``<tag attrs>children</tag>``; attributes None or False are left out, True is bare."""
    rendered = "".join(
        _attr(name.rstrip("_").replace("_", "-"), value)
        for name, value in (attrs or {}).items()
        if value is not None and value is not False
    )
    inner = "".join(_children(children))
    return Safe(f"<{tag}{rendered}>{inner}</{tag}>")


def void(tag: str, attrs: Attrs | None = None) -> Safe:
    """An element without children (``<meta …>``, ``<br>``)."""
    rendered = "".join(
        _attr(name.rstrip("_").replace("_", "-"), value)
        for name, value in (attrs or {}).items()
        if value is not None and value is not False
    )
    return Safe(f"<{tag}{rendered}>")


def join(parts: Iterable[object]) -> Safe:
    """Children concatenated (escaping the plain text among them)."""
    return Safe("".join(_children(parts)))


def slug(value: str) -> str:
    """A fragment of an element id: letters, digits, ``-`` and ``_`` only (never empty)."""
    cleaned = _ID_UNSAFE.sub("-", value).strip("-")
    return cleaned or "x"
