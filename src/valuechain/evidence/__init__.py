"""Evidence adapter: span rows → trials and one `StageDerivationInput` each (TRACE-FORMAT §3).

`build_trials` is the pure core (Arrow/polars in, Arrow and frozen inputs out);
`evidence.load` is the store edge that reads a set of traces' rows with `sql/evidence/`.
"""

from __future__ import annotations

from valuechain.evidence.trials import TrialEvidence, build_trials, source_run_id

__all__ = ["TrialEvidence", "build_trials", "source_run_id"]
