"""What was imported but not derived yet: the shapes ``Database`` reports it in."""

from __future__ import annotations

from dataclasses import dataclass

from valuechain.contract.words import plural


@dataclass(frozen=True, slots=True)
class PendingDerivation:
    """How much of the store was imported but not derived yet."""

    sources: int
    traces: int

    def render(self) -> str:
        """One line for the user: the state and the fix."""
        return (
            f"{plural(self.sources, 'imported source')} {'is' if self.sources == 1 else 'are'} "
            f"not derived yet: {plural(self.traces, 'trace')} "
            f"{'has' if self.traces == 1 else 'have'} no trials, chains or funnels (an import "
            "was interrupted, failed on a later source, or ran with --no-derive). Hint: run "
            "valuechain derive (or any import): "
            "it derives them first"
        )


@dataclass(frozen=True, slots=True)
class PendingGroup:
    """The sources awaiting derivation at one analyzer version, and their traces."""

    analyzer: int
    source_ids: tuple[int, ...]
    trace_ids: tuple[bytes, ...]
