"""The runs of a suite: each trial of each run in §3.9 order, one OTLP request per trace.

`run_head` and `run_traces` play one run; `traces` plays an export's runs with them, and
`synth.history` plays a multi-week archive's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from valuechain.synth.attributes import Attrs, Pairs
from valuechain.synth.config import SynthConfig, seeded
from valuechain.synth.failures.trial import ScenarioCycle
from valuechain.synth.ids import hex_id
from valuechain.synth.suite import DAY_MS, Suite, build_suite
from valuechain.synth.trial import Trial
from valuechain.synth.vocabulary import MODELS, SCOPE, Case, Model

DRAW = "draw"  # `run_head`'s group: draw a fresh run group id from the run's stream
TrialMaker = Callable[[Case], Callable[..., Trial]]  # a case → the constructor of its trial


def run_head(
    rng: random.Random,
    suite: Suite,
    *,
    number: int,
    revision: int,
    trials_expected: int,
    group: str | None = DRAW,
    source: str | None = None,
    materialization: str = "final",
    verdict_policy: bool = False,
) -> Pairs:
    """The run keys every trial root of one run carries (§3.5); ``group=None``: no run group
    (a parity blocker), ``source=None``: drawn."""
    head: Pairs = [("mcp.app.run.id", "run_" + hex_id(rng, 5))]
    head += [("mcp.app.run.number", number)]
    if group is not None:
        head.append(("mcp.app.run.group_id", hex_id(rng, 16) if group == DRAW else group))
    head += [
        ("mcp.app.run.config_revision", f"cr_{revision:04d}"),
        ("mcp.app.run.case_set_fingerprint", suite.fingerprint),
        ("mcp.app.run.status", "completed"),
        ("mcp.app.run.source", source or rng.choice(("ui", "sdk", "schedule", "github_check"))),
        ("mcp.app.run.trials_expected", trials_expected),
        ("mcp.app.run.measurement_unit", "caseVariant"),
        ("mcp.app.run.materialization_state", materialization),
    ]
    if verdict_policy:  # §3.7.2: the verdict inputs of a v2 run
        head += [
            ("mcp.app.run.verdict_policy_version", 2),
            ("mcp.app.suite.default_pass_threshold", 0.5),
        ]
    return head


def run_traces(
    suite: Suite,
    rng: random.Random,
    head: Pairs,
    *,
    models: tuple[Model, ...],
    reps: int,
    t0_ns: int,
    redacted: bool = False,
    make: TrialMaker | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """The spans of each trial of one run, case × model × repetition like §3.9, the first
    starting at ``t0_ns``; ``make`` picks each trial's kind (default: an ordinary trial)."""
    t_ns, iteration = t0_ns, 0
    for case in suite.cases:
        for model in models:
            for rep in range(reps):
                iteration += 1
                numbering: Pairs = [
                    ("mcp.app.trial.iteration_number", iteration),
                    ("mcp.app.trial.repetition", rep),
                    ("mcp.app.trial.repetitions_configured", reps),
                ]
                trial_rng = random.Random(rng.getrandbits(64))  # one stream per trial
                trial = (Trial if make is None else make(case))(
                    suite,
                    case,
                    model,
                    trial_rng,
                    t0_ns=t_ns,
                    head=head,
                    numbering=numbering,
                    redacted=redacted,
                )
                yield trial.build()
                t_ns += rng.randint(1500, 6000) * 10**6  # trials overlap, as parallel workers do


def traces(config: SynthConfig, suite: Suite) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(run index, spans) per trial, in case × model × repetition order like §3.9."""
    models = MODELS[: config.models]
    make = ScenarioCycle(config.seed).draw if config.failures else None
    for r in range(config.runs):
        rng = seeded(config, f"run:{r}")
        head = run_head(
            rng,
            suite,
            number=suite.first_run_number + r,
            revision=suite.revisions[r],
            trials_expected=len(suite.cases) * len(models) * config.reps,
            verdict_policy=config.verdict_policy,
        )
        t_ms = r * DAY_MS + rng.randint(0, 3_600_000)  # one run a day
        for spans in run_traces(
            suite,
            rng,
            head,
            models=models,
            reps=config.reps,
            t0_ns=config.start_unix_nano + t_ms * 10**6,
            redacted=config.redacted,
            make=make,
        ):
            yield r, spans


def otlp_resource(suite: Suite) -> dict[str, Any]:
    """The export's Resource (§3.4), shared by every run."""
    resource = Attrs(redacted=False)
    resource.extend(*suite.resource)
    return {"attributes": resource.encode()}


def otlp_request(suite: Suite, spans: list[dict[str, Any]]) -> dict[str, Any]:
    """One trace as an ExportTraceServiceRequest dict: the resource, the scope, the spans."""
    return {
        "resourceSpans": [
            {
                "resource": otlp_resource(suite),
                "scopeSpans": [{"scope": dict(SCOPE), "spans": spans}],
            }
        ]
    }


def generate_requests(config: SynthConfig) -> Iterator[dict[str, Any]]:
    """One ExportTraceServiceRequest dict per trace (one trial = one trace, §3.3)."""
    suite = build_suite(config)
    for _, spans in traces(config, suite):
        yield otlp_request(suite, spans)
