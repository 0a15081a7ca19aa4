"""Failure injection for synthetic exports: `SynthConfig(failures=True)`, `synth --failures`.

`CATALOGUE` is a table of named scenarios. Each says what it changes in an ordinary passing
trial (`Scenario.changes`: spans, span attributes, trial-root attributes), how (`Plan`), and
which (stage, reason) pairs of CONTRACT §1.3 the trial's chain then holds (`Scenario.expects`;
`Scenario.category` when the failure category is part of the point). Together the scenarios
cause every reason analyzer 12 emits — all of §1.3 except the legacy `noSpanChannel`.

A failures run gives every trial one scenario, drawn by `ScenarioCycle`: the catalogue in a
seeded rotation, each trial taking the first scenario that fits its case (a few need a
negative case, or an expected argument with a concrete value), so a few hundred trials cover
the whole table. The trial root records its scenario as `SCENARIO_KEY`. That key is kept out
of `mcp.app.*` on purpose: it is not part of the contract (TRACE-FORMAT §3.2 goal 6), and an
unknown `mcp.app.*` key would be reported as `W_UNKNOWN_CONTRACT_KEY` on every import.

The persisted chain (`mcp.app.stages.*`, §3.5) of a failure trial is what analyzer 12
derives (`derive_chain`) from the `StageDerivationInput` its spans encode: `FailureTrial`
keeps, beside every tool span, render, grader row and root key it writes, the input field
TRACE-FORMAT §3.7 maps it to (read back from the attribute pairs it emitted). Producer and
derived chains therefore agree by construction, and a reader's evidence adapter must reach
the same input from the export.

Modules, each importing only those before it: `catalogue` (the table and its vocabulary),
`spans` (setup, turn, tool and render spans as a plan shapes them), `graders` (matcher,
predicate and judge rows), `trial` (`FailureTrial`: build order, the root with the derived
chain; `ScenarioCycle`).
"""

from __future__ import annotations
