"""Evidence adapter: span rows → trials and one `StageDerivationInput` each (TRACE-FORMAT §3).

`build_trials` is the pure core (Arrow/polars in, Arrow and frozen inputs out);
The store reads the rows of a set of traces (`Database.trial_rows`); the pipeline hands them here.
"""

from __future__ import annotations

from valuechain.evidence.roots import source_run_id
from valuechain.evidence.trials import TrialEvidence, build_trials

__all__ = ["TrialEvidence", "build_trials", "source_run_id"]
