"""How a terminal table shows one column (light: commands declare their columns at import)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Col:
    """One column of a terminal table, read from the frame column ``name``.

    ``keep``: 0 stays in line always; a higher number goes under the row sooner when the width
    runs out (the first columns of equal ``keep`` stay longest). ``under``: always under the
    row (free text). ``wide``: shown only with ``--wide`` (and in csv/json)."""

    name: str
    header: str | None = None
    align: Literal["left", "right"] = "left"
    keep: int = 0
    under: bool = False
    wide: bool = False

    @property
    def title(self) -> str:
        return self.name if self.header is None else self.header
