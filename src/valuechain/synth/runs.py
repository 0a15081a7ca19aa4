"""The runs of a suite: each trial of each run in §3.9 order, one OTLP request per trace."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from valuechain.synth.attributes import Attrs, Pairs
from valuechain.synth.config import SynthConfig, seeded
from valuechain.synth.failures.trial import ScenarioCycle
from valuechain.synth.ids import hex_id
from valuechain.synth.suite import DAY_MS, Suite, build_suite
from valuechain.synth.trial import Trial
from valuechain.synth.vocabulary import MODELS, SCOPE


def traces(config: SynthConfig, suite: Suite) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(run index, spans) per trial, in case × model × repetition order like §3.9."""
    models = MODELS[: config.models]
    cycle = ScenarioCycle(config.seed) if config.failures else None
    for r in range(config.runs):
        rng = seeded(config, f"run:{r}")
        head: Pairs = [
            ("mcp.app.run.id", "run_" + hex_id(rng, 5)),
            ("mcp.app.run.number", suite.first_run_number + r),
            ("mcp.app.run.group_id", hex_id(rng, 16)),
            ("mcp.app.run.config_revision", f"cr_{suite.revisions[r]:04d}"),
            ("mcp.app.run.case_set_fingerprint", suite.fingerprint),
            ("mcp.app.run.status", "completed"),
            ("mcp.app.run.source", rng.choice(("ui", "sdk", "schedule", "github_check"))),
            ("mcp.app.run.trials_expected", len(suite.cases) * len(models) * config.reps),
            ("mcp.app.run.measurement_unit", "caseVariant"),
            ("mcp.app.run.materialization_state", "final"),
        ]
        if config.verdict_policy:  # §3.7.2: the verdict inputs of a v2 run
            head += [
                ("mcp.app.run.verdict_policy_version", 2),
                ("mcp.app.suite.default_pass_threshold", 0.5),
            ]
        t_ms, iteration = r * DAY_MS + rng.randint(0, 3_600_000), 0  # one run a day
        for case in suite.cases:
            for model in models:
                for rep in range(config.reps):
                    iteration += 1
                    numbering: Pairs = [
                        ("mcp.app.trial.iteration_number", iteration),
                        ("mcp.app.trial.repetition", rep),
                        ("mcp.app.trial.repetitions_configured", config.reps),
                    ]
                    t0_ns = config.start_unix_nano + t_ms * 10**6
                    trial_rng = random.Random(rng.getrandbits(64))  # one stream per trial
                    trial = (Trial if cycle is None else cycle.draw(case))(
                        suite,
                        case,
                        model,
                        trial_rng,
                        t0_ns=t0_ns,
                        head=head,
                        numbering=numbering,
                        redacted=config.redacted,
                    )
                    yield r, trial.build()
                    t_ms += rng.randint(1500, 6000)  # trials overlap, as parallel workers do


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
