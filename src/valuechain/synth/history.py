"""A seeded multi-week archive of eval runs: the history trends, recompute and reports read.

Four series of runs (`TRACKS`) over three suites, week after week: a nightly and a weekly run
group of the issue-tracker suite, a weekly release check of the weather suite (decided under
verdict policy v2), and ad-hoc calendar runs from the UI that carry no run group. The story
(`Timeline`) puts a config revision change, a regression and its fix in the tracker suite, a
case-set change in the weather suite, provisional runs at the end, and the first weeks at
analyzer 11. One NDJSON file per week; `history.json` (`history_manifest`) says which file
imports at which analyzer. Same seed and weeks, same bytes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import UsageError
from valuechain.synth.config import SynthConfig
from valuechain.synth.failures.catalogue import fits, scenario_named
from valuechain.synth.failures.trial import FailureTrial, ScenarioCycle
from valuechain.synth.history_bounds import MAX_WEEKS, MIN_WEEKS, PREVIOUS_ANALYZER
from valuechain.synth.history_manifest import (
    MANIFEST_NAME,
    HistoryFile,
    HistoryManifest,
    HistoryRun,
    Note,
)
from valuechain.synth.ids import hex_id
from valuechain.synth.runs import TrialMaker, otlp_request, run_head, run_traces
from valuechain.synth.suite import DAY_MS, Suite, build_suite, case_set_fingerprint
from valuechain.synth.trial import Trial
from valuechain.synth.vocabulary import MODELS, SERVERS, Case

START = dt.date(2026, 1, 5)  # a Monday; fixed so the same seed writes the same bytes
NOISE = 0.05  # the share of trials dealt a failure scenario of the catalogue
REGRESSION = 0.6  # the share of a regressed run's positive trials whose expected tool fails
HOUR_MS = 3_600_000


@dataclass(frozen=True, slots=True)
class Track:
    """One series of runs: its suite's server, run group, weekdays (0 = Monday), shape."""

    name: str
    server: str  # `Server.name` in the vocabulary
    grouped: bool  # False: the runs carry no run group (parity blocks them)
    days: tuple[int, ...]
    hour: int  # UTC hour the runs start
    every: int  # every n-th week, from the first
    models: int
    reps: int
    source: str
    verdict_policy: bool = False


# fmt: off
TRACKS: tuple[Track, ...] = (
    Track("nightly", "tracker", True, (0, 3), 2, 1, models=2, reps=2, source="schedule"),
    Track("weekly", "tracker", True, (5,), 9, 1, models=3, reps=1, source="sdk"),
    Track("release", "weather", True, (4,), 15, 1, models=2, reps=1, source="github_check",
          verdict_policy=True),
    Track("adhoc", "calendar", False, (2,), 11, 2, models=1, reps=1, source="ui"),
)
SUITE_CASES = {"tracker": 4, "weather": 5, "calendar": 3}  # distinct: each suite its own ids
# fmt: on


@dataclass(frozen=True, slots=True)
class Timeline:
    """When the story's events happen, in weeks counted from 1."""

    weeks: int
    upgrade: int  # weeks before it import at analyzer 11
    config: int  # the tracker suite's config revision changes in this week
    regression: int  # the tracker server regresses this week; the next one fixes it
    case_set: int  # the weather suite gains a case this week

    @classmethod
    def of(cls, weeks: int) -> Timeline:
        """The story of a ``weeks``-week history.

        Raises:
            UsageError: fewer weeks than the story needs, or more than a year.
        """
        if not MIN_WEEKS <= weeks <= MAX_WEEKS:
            raise UsageError(
                "weeks",
                f"a history has {MIN_WEEKS} to {MAX_WEEKS} weeks, not {weeks}",
                "the old analyzer's weeks, a config change, a regression and its fix need 5",
            )
        upgrade = weeks // 3 + 1  # then a config change, a regression, its fix: one a week
        return cls(weeks, upgrade, upgrade + 1, upgrade + 2, upgrade + 1)

    def analyzer(self, week: int) -> int:
        return PREVIOUS_ANALYZER if week < self.upgrade else STAGE_ANALYZER_VERSION


@dataclass(frozen=True, slots=True)
class PlannedRun:
    """One run to play: its track, suite (cases as of its week), keys and story notes."""

    track: Track
    suite: Suite
    week: int
    start_ms: int  # since the epoch
    revision: int
    group: str | None
    notes: tuple[Note, ...]
    number: int = 0  # the run's number within its suite, set once every run is planned

    @property
    def provisional(self) -> bool:
        return "provisional" in self.notes


def _suites(seed: int) -> dict[str, Suite]:
    """One suite per server the tracks use; the weather suite at its full case set."""
    servers = {server.name: server for server in SERVERS}
    return {
        name: build_suite(SynthConfig(cases=cases, models=len(MODELS), seed=seed), servers[name])
        for name, cases in SUITE_CASES.items()
    }


def plan_runs(seed: int, timeline: Timeline) -> list[PlannedRun]:
    """Every run of the archive in start order, with what it is there to show."""
    suites, rng = _suites(seed), random.Random(f"valuechain.synth.history:{seed}:plan")
    groups = {track.name: hex_id(rng, 16) for track in TRACKS if track.grouped}
    epoch_ms = int(dt.datetime.combine(START, dt.time(), dt.UTC).timestamp() * 1000)
    planned: list[PlannedRun] = []
    for track in TRACKS:
        suite, last = suites[track.server], None
        weeks = range(1, timeline.weeks + 1, track.every)
        for week in weeks:
            for day in track.days:
                notes: list[Note] = []
                revision = suite.revisions[0]
                if track.server == "tracker" and week >= timeline.config:
                    revision += 1
                    if last is not None and last < timeline.config:
                        notes.append("configChange")
                cases = suite.cases
                if track.server == "weather" and week < timeline.case_set:
                    cases = cases[:-1]
                elif track.server == "weather" and last is not None and last < timeline.case_set:
                    notes.append("caseSetChange")
                if track.server == "tracker" and week == timeline.regression:
                    notes.append("regression")
                elif track.server == "tracker" and last == timeline.regression:
                    notes.append("fix")
                if timeline.analyzer(week) != STAGE_ANALYZER_VERSION:
                    notes.append("analyzer11")
                if track.name == "nightly":
                    notes.append("catalogCheck")
                if not track.grouped:
                    notes.append("noRunGroup")
                final_run = week == weeks[-1] and day == track.days[-1]
                if final_run and track.name in ("nightly", "release"):
                    notes.append("provisional")
                start = ((week - 1) * 7 + day) * DAY_MS + track.hour * HOUR_MS
                planned.append(
                    PlannedRun(
                        track,
                        replace(suite, cases=cases, fingerprint=case_set_fingerprint(cases)),
                        week,
                        epoch_ms + start + rng.randint(0, HOUR_MS // 2),
                        revision,
                        groups.get(track.name),
                        tuple(notes),
                    )
                )
                last = week
    numbers = {name: suite.first_run_number for name, suite in suites.items()}
    numbered = []
    for run in sorted(planned, key=lambda run: run.start_ms):
        numbered.append(replace(run, number=numbers[run.track.server]))
        numbers[run.track.server] += 1
    return numbered


def _maker(run: PlannedRun, rng: random.Random, cycle: ScenarioCycle) -> TrialMaker:
    """Each trial's kind: a regressed tool, the nightly catalog check, a little noise."""
    tool_error, catalog = scenario_named("tool_error"), scenario_named("predicate_failed_discovery")
    pending = ["catalogCheck"] if "catalogCheck" in run.notes else []

    def make(case: Case) -> Callable[..., Trial]:
        if pending and fits(catalog.plan, case):  # one trial per run: the first positive one
            pending.clear()
            return partial(FailureTrial, scenario=catalog)
        regressed = "regression" in run.notes and fits(tool_error.plan, case)
        if regressed and rng.random() < REGRESSION:
            return partial(FailureTrial, scenario=tool_error)
        if rng.random() < NOISE:
            return cycle.draw(case)
        return Trial

    return make


def traces_of(seed: int, run: PlannedRun, cycle: ScenarioCycle) -> Iterator[list[dict[str, Any]]]:
    """The run's trials, each trace's spans, from the run's own stream."""
    track = run.track
    stream = f"valuechain.synth.history:{seed}:{track.name}:{run.start_ms}"
    rng = random.Random(stream)
    models = MODELS[: track.models]
    head = run_head(
        rng,
        run.suite,
        number=run.number,
        revision=run.revision,
        trials_expected=len(run.suite.cases) * len(models) * track.reps,
        group=run.group,
        source=track.source,
        materialization="provisional" if run.provisional else "final",
        verdict_policy=track.verdict_policy,
    )
    make = _maker(run, random.Random(stream + ":kinds"), cycle)
    yield from run_traces(
        run.suite, rng, head, models=models, reps=track.reps, t0_ns=run.start_ms * 10**6, make=make
    )


def root_keys(spans: list[dict[str, Any]]) -> dict[str, Any]:
    """The string keys of a trace's root span (the trial root comes first)."""
    return {
        kv["key"]: kv["value"].get("stringValue")
        for kv in spans[0]["attributes"]
        if "stringValue" in kv["value"]
    }


def write_history(folder: str | Path, *, weeks: int = 6, seed: int = 0) -> HistoryManifest:
    """Write the archive of ``weeks`` weeks into ``folder`` (created if missing): one NDJSON
    export per week, `week-NN.jsonl`, and `history.json`; returns the manifest written."""
    timeline, out = Timeline.of(weeks), Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    cycle = ScenarioCycle(seed)
    files: list[HistoryFile] = []
    runs: list[HistoryRun] = []
    planned = plan_runs(seed, timeline)
    for week in range(1, weeks + 1):
        name, week_runs, digest, size = f"week-{week:02d}.jsonl", [], hashlib.sha256(), 0
        with (out / name).open("wb") as file:
            for run in (r for r in planned if r.week == week):
                traces = list(traces_of(seed, run, cycle))
                for spans in traces:
                    line = orjson.dumps(otlp_request(run.suite, spans)) + b"\n"
                    file.write(line)
                    digest.update(line)
                    size += len(line)
                keys = root_keys(traces[0])
                runs.append(_history_run(run, keys, len(traces)))
                week_runs.append(keys["mcp.app.run.id"])
        monday = START + dt.timedelta(weeks=week - 1)
        files.append(
            HistoryFile(
                path=name,
                week=week,
                week_start=monday,
                week_end=monday + dt.timedelta(days=6),
                analyzer=timeline.analyzer(week),
                sha256=digest.hexdigest(),
                bytes=size,
                runs=tuple(week_runs),
            )
        )
    manifest = HistoryManifest(
        seed=seed,
        weeks=weeks,
        start=START,
        upgrade_week=timeline.upgrade,
        files=tuple(files),
        runs=tuple(runs),
    )
    (out / MANIFEST_NAME).write_bytes(manifest.to_json() + b"\n")
    return manifest


def _history_run(run: PlannedRun, keys: dict[str, Any], trials: int) -> HistoryRun:
    return HistoryRun(
        run_id=keys["mcp.app.run.id"],
        suite_name=keys["mcp.app.suite.name"],
        suite_id=keys["mcp.app.suite.id"],
        track=run.track.name,
        run_group_id=run.group,
        config_revision=keys["mcp.app.run.config_revision"],
        case_set_fingerprint=run.suite.fingerprint,
        started_at=dt.datetime.fromtimestamp(run.start_ms / 1000, dt.UTC),
        week=run.week,
        trials=trials,
        materialization_state="provisional" if run.provisional else "final",
        notes=run.notes,
    )
