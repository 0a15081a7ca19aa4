"""Pure stage derivation: one trial's evidence → its six-stage chain (CONTRACT §2, §4).

No I/O, no clock, no network: same input, same output, forever. `derive_chain` runs the
current analyzer (12) or valuechain's selectable analyzer 11 (CONTRACT §7.2), and stamps the
chain with the analyzer used.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable

from valuechain.contract.authored import build_stage_authored_case
from valuechain.contract.chain import StageDerivation
from valuechain.contract.derivation import StageDerivationInput
from valuechain.contract.versions import SELECTABLE_ANALYZER_VERSIONS, STAGE_ANALYZER_VERSION
from valuechain.derive.facts import Facts
from valuechain.derive.matching import (
    evaluate_tool_calls,
    pair_tool_calls,
    prompt_summary,
    resolve_match_options,
)
from valuechain.derive.measurements import (
    derive_measurements,
    reach_for_state,
    reach_is_consistent_with_state,
    stage_measurement_disagreements,
)
from valuechain.derive.outcome import finalize
from valuechain.derive.stages import derive_rows

__all__ = [
    "build_stage_authored_case",
    "derive_chain",
    "derive_chains",
    "derive_measurements",
    "evaluate_tool_calls",
    "pair_tool_calls",
    "prompt_summary",
    "reach_for_state",
    "reach_is_consistent_with_state",
    "resolve_match_options",
    "stage_measurement_disagreements",
]


def _check_analyzer(analyzer: int) -> None:
    if type(analyzer) is not int or analyzer not in SELECTABLE_ANALYZER_VERSIONS:
        selectable = " or ".join(str(v) for v in SELECTABLE_ANALYZER_VERSIONS)
        raise ValueError(
            f"derive_chain: analyzer {analyzer!r} is not selectable; valuechain derives at "
            f"analyzer {selectable}. Hint: older chains are read as stored, never re-derived "
            "at their own version (CONTRACT §7.2, §7.3)"
        )


def _derive(inp: StageDerivationInput, analyzer: int) -> StageDerivation:
    facts = Facts(inp, analyzer)
    rows, force_setup = derive_rows(inp, facts)
    return finalize(rows, facts, force_setup=force_setup, analyzer=analyzer)


def derive_chain(
    inp: StageDerivationInput, *, analyzer: int = STAGE_ANALYZER_VERSION
) -> StageDerivation:
    """`deriveStageResults` (CONTRACT §2.7): six rows in stage order, outcome, analyzer stamp.

    Raises:
        ValueError: `analyzer` is not one valuechain can derive at (11 or 12).
    """
    _check_analyzer(analyzer)
    return _derive(inp, analyzer)


def derive_chains(
    inputs: Iterable[StageDerivationInput], *, analyzer: int = STAGE_ANALYZER_VERSION
) -> list[StageDerivation]:
    """`derive_chain` over a batch, in input order.

    CPython's cyclic GC otherwise rescans every retained chain and input as the batch grows
    (about half the time of a 100k batch). Derivation creates no reference cycles, so the
    collector is paused for the batch and restored afterwards; refcounting frees everything.
    """
    _check_analyzer(analyzer)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return [_derive(inp, analyzer) for inp in inputs]
    finally:
        if was_enabled:
            gc.enable()
