"""The suite an export's runs evaluate: its server, its cases, its resource (§3.4, §3.5)."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import UTC, datetime

from valuechain.synth.attributes import Pairs
from valuechain.synth.config import SynthConfig, seeded
from valuechain.synth.ids import URLSAFE, hex_id, token
from valuechain.synth.vocabulary import MODELS, PRODUCER, SERVERS, Case, Server, Tool, fill

DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class Suite:
    """The generated suite and what every run of it shares."""

    server: Server
    tools: dict[str, Tool]
    cases: tuple[Case, ...]
    head: Pairs  # project and suite keys of every trial root (§3.5)
    resource: Pairs  # §3.4
    revisions: tuple[int, ...]
    fingerprint: str
    first_run_number: int


def _new_case(rng: random.Random, server: Server, i: int) -> Case:
    """Case `i` of the suite; every fourth, from the third, is negative (§3.9 has both kinds)."""
    subject = rng.choice(server.subjects)
    # CONTRACT §7.5: minted case ids are `c_` + 21 characters of the URL-safe alphabet
    ids = ("c_" + token(rng, 21, URLSAFE), "ck_" + hex_id(rng, 3), subject, rng.uniform(0.5, 1.6))
    if server.negatives and i % 4 == 2:
        neg = server.negatives[i // 4 % len(server.negatives)]
        return Case(
            *ids,
            negative=True,
            title=neg.title,
            intent="meta-question",
            prompt=neg.prompt,
            tool=neg.forbidden,
            expected={},
            expected_output=None,
            answer=neg.answer,
            broke=neg.broke,
        )
    ordinal = i - (i + 1) // 4 if server.negatives else i  # positives before this one
    pos = server.positives[ordinal % len(server.positives)]
    return Case(
        *ids,
        negative=False,
        title=fill(pos.title, subject, 0),
        intent=pos.intent,
        prompt=fill(pos.prompt, subject, 0),
        tool=pos.tool,
        expected={k: fill(v, subject, 0) for k, v in pos.expected.items()},
        expected_output=fill(pos.expected_output, subject, 0),
        answer=pos.answer,
    )


def case_set_fingerprint(cases: tuple[Case, ...]) -> str:
    """The `mcp.app.run.case_set_fingerprint` of a set of cases: a hash of their keys."""
    return "csf_" + hashlib.sha256("|".join(c.key for c in cases).encode()).hexdigest()[:10]


def build_suite(config: SynthConfig, server: Server | None = None) -> Suite:
    """Draw the export's suite: one server (drawn unless given), `config.cases` cases, the
    run revisions."""
    counts = (config.runs, config.cases, config.reps)
    if min(counts) < 1 or not 1 <= config.models <= len(MODELS) or config.start_unix_nano < 0:
        raise ValueError(
            f"{config}: runs, cases and reps must be >= 1, models 1..{len(MODELS)}, and "
            "start_unix_nano >= 0. Hint: add pairs to valuechain.synth_attrs.MODELS for more."
        )
    rng = seeded(config, "suite")
    drawn = rng.choice(SERVERS)  # drawn either way: a given server leaves the stream as is
    server = server or drawn
    cases = tuple(_new_case(rng, server, i) for i in range(config.cases))
    revisions, revision = [], rng.randint(1, 40)
    for _ in range(config.runs):  # the suite's config is edited now and then between runs
        revision += rng.random() < 0.2
        revisions.append(revision)
    head: Pairs = [
        ("mcp.app.project.id", "prj_" + hex_id(rng, 4)),
        ("mcp.app.project.name", server.project),
        ("mcp.app.suite.id", "s_" + token(rng, 21, URLSAFE)),
        ("mcp.app.suite.name", server.suite),
    ]
    created_ms = config.start_unix_nano // 10**6 + config.runs * DAY_MS
    resource: Pairs = [
        ("service.name", "mcpjam-evals"),
        ("openinference.project.name", server.project),
        ("mcp.app.export.schema_version", 1),
        ("mcp.app.export.producer", PRODUCER),
        ("mcp.app.export.scope", "run" if config.runs == 1 else "project"),
        ("mcp.app.export.include_content", not config.redacted),
        (
            "mcp.app.export.created_time",
            datetime.fromtimestamp(created_ms // 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        ),
    ]
    fingerprint = case_set_fingerprint(cases)
    tools = {t.name: t for t in server.tools}
    return Suite(
        server,
        tools,
        cases,
        head,
        resource,
        tuple(revisions),
        fingerprint,
        first_run_number=rng.randint(1, 200),
    )
