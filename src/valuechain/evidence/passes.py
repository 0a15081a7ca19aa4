"""The evidence adapter as one list: the passes that build a batch's evidence, in order.

`build_trials` puts a batch's span and attribute rows in an `EvidenceFrame` and runs `PASSES`
over it, top to bottom: each pass is a pure function from the frame to a new frame (it reads
what the passes above it filled and adds its own fields, exclusion codes and issues; see
`evidence_frame`), in a module of its own, so the build never goes back to an earlier step.
The order is the order of TRACE-FORMAT §5.2's issues in `trial_issues`, and the order of each
excluded trial's codes. The input conventions are not passes but readers
(`evidence.readers.READERS`), run once by the first pass: every later pass reads the
normalised columns they fill and never a convention's keys.
"""

from __future__ import annotations

from collections.abc import Callable

from valuechain.evidence.assemble import inputs_pass
from valuechain.evidence.calls import calls_pass
from valuechain.evidence.checks import contract_types_pass
from valuechain.evidence.evidence_frame import EvidenceFrame
from valuechain.evidence.graders import graders_pass
from valuechain.evidence.grouping import grouping_pass
from valuechain.evidence.integrity import integrity_pass
from valuechain.evidence.prepare import root_objects_pass
from valuechain.evidence.prepare_tools import tools_pass
from valuechain.evidence.producer import producer_pass
from valuechain.evidence.reading import reading_pass
from valuechain.evidence.roots import roots_pass
from valuechain.evidence.runs import runs_pass
from valuechain.evidence.setup import setup_pass
from valuechain.evidence.table import tables_pass
from valuechain.evidence.tree import tree_pass

Pass = Callable[[EvidenceFrame], EvidenceFrame]

PASSES: tuple[Pass, ...] = (
    reading_pass,  # spans normalised, attributes read, the convention readers' columns
    grouping_pass,  # spans → trials (contract roots, foreign roots, sessions)
    tree_pass,  # orphans, children outside their parent
    contract_types_pass,  # contract keys of a wrong type, unknown keys
    roots_pass,  # one row per trial: root columns and what its spans imply
    integrity_pass,  # the codes that exclude trials (version, integrity)
    tools_pass,  # tool spans: status, code, error kind, prompt index
    root_objects_pass,  # per trial the objects read from its root
    graders_pass,  # grader objects, widget renders
    setup_pass,  # foreign set-up request spans
    inputs_pass,  # one StageDerivationInput per trial
    calls_pass,  # one row per logical tool call
    producer_pass,  # the producer's persisted chain, verified
    runs_pass,  # runs with fewer trials than they expect
    tables_pass,  # the trials, tool_calls and timed-spans tables
)


def run_passes(frame: EvidenceFrame) -> EvidenceFrame:
    """`frame` after every pass of `PASSES`, in order."""
    for step in PASSES:
        frame = step(frame)
    return frame
