"""Seeded generator of realistic MCPJam-style OTLP/JSON eval exports (TRACE-FORMAT §3).

Every draw comes from `random.Random` instances seeded from `SynthConfig.seed`, so the same
config always yields the same bytes. The modules, each importing only those listed before it:
`config` (what to generate, the seeded streams), `ids`, `vocabulary` (models, servers, case
templates), `attributes` (pair builders of each span kind), `chain` (the persisted producer
chain), `suite`, `trial` (one trial's trace), `failures` (the failure scenarios, each a
`trial.Trial` variant), `runs` (trials in order, one request per trace), `writers` (files).

Its names load on first use (PEP 562 ``__getattr__``), so the command line can read the
archive's bounds (`history_bounds`) at start-up without the generator and derive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from valuechain._lazy import lazy_names

if TYPE_CHECKING:
    from valuechain.synth.config import SynthConfig
    from valuechain.synth.failures.catalogue import (
        CATALOGUE,
        REASONS_NOT_PRODUCED,
        SCENARIO_KEY,
        Scenario,
        scenario_named,
    )
    from valuechain.synth.runs import generate_requests
    from valuechain.synth.writers import SynthSummary, write_export

_LAZY = {
    "SynthConfig": ".config",
    "CATALOGUE": ".failures.catalogue",
    "REASONS_NOT_PRODUCED": ".failures.catalogue",
    "SCENARIO_KEY": ".failures.catalogue",
    "Scenario": ".failures.catalogue",
    "scenario_named": ".failures.catalogue",
    "generate_requests": ".runs",
    "SynthSummary": ".writers",
    "write_export": ".writers",
}

__all__ = [
    "CATALOGUE",
    "REASONS_NOT_PRODUCED",
    "SCENARIO_KEY",
    "Scenario",
    "SynthConfig",
    "SynthSummary",
    "generate_requests",
    "scenario_named",
    "write_export",
]


__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
