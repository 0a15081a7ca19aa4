"""The inputs pass: one `StageDerivationInput` per trial, put together by `inputs.Assembler`
from what the earlier passes prepared (TRACE-FORMAT §3.7, §3.8)."""

from __future__ import annotations

from dataclasses import replace

from valuechain.contract.issues import Code
from valuechain.evidence.evidence_frame import EvidenceFrame, need
from valuechain.evidence.inputs import Assembler
from valuechain.evidence.issues import TrialLog


def inputs_pass(frame: EvidenceFrame) -> EvidenceFrame:
    """Fills `inputs` (None for a trial whose versions are ahead, or whose trial id an
    earlier trial row carries) and `joined_calls`; adds unknown-authored-mode codes."""
    roots, log = need(frame.roots, "roots"), TrialLog()
    assembler = Assembler(
        roots=need(frame.root_objects, "root_objects"),
        tools=need(frame.tool_groups, "tool_groups"),
        graders=need(frame.graders, "graders"),
        renders=need(frame.renders, "renders"),
        setup=need(frame.setup, "setup"),
        log=log,
    )
    built = assembler.build(roots.height, roots["schema_ahead"].to_list())
    return replace(
        frame,
        inputs=tuple(None if i in frame.repeated else inp for i, inp in enumerate(built)),
        joined_calls=tuple(assembler.tool_call_rows),
        codes=frame.coded(Code.W_UNKNOWN_AUTHORED_MODE.value, assembler.unknown_mode),
        issues=frame.logged(log),
    )
