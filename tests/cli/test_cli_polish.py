"""The friendly command line (issue 21): every help has an example, every reading command's
formats carry the same rows, --quiet leaves only the result, every error is one red line and a
hint, and the long verbs draw a progress bar — on a terminal, never with --quiet."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from cli_runner import error_and_hint, red_line, run
from rich.console import Console

from valuechain.cli import main
from valuechain.cli.messages import QUIET_KEY, error_lines
from valuechain.cli.progress import PhaseBar, working
from valuechain.cli.sample import sample_export_path
from valuechain.contract.vocab import Stage
from valuechain.pipeline.progress import BatchesDone, Phase

TRIAL = "it_9acdadc414"  # the sample's trial that fails at selection
RUN_A, RUN_B = "run_7d2d741dbb", "run_2a17bb55e5"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample (two runs of twelve trials) imported once; tests copy it."""
    store = tmp_path_factory.mktemp("sample") / "sample.duckdb"
    result = run("--store", store, "import", sample_export_path())
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture
def copy(sample: Path, tmp_path: Path) -> Path:
    """A store of its own, for a test that writes."""
    target = tmp_path / "copy.duckdb"
    shutil.copy2(sample, target)
    return target


def commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield prefix
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*prefix, name))
        else:
            yield (*prefix, name)


ALL = list(commands())


# ---------------------------------------------------------------------------- help
@pytest.mark.parametrize("command", ALL, ids=[" ".join(c) or "valuechain" for c in ALL])
def test_every_help_shows_an_example(command: tuple[str, ...]) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0, result.output
    _, _, examples = result.stdout.partition("\n  Examples:\n\n")
    lines = [line.strip() for line in examples.split("\n\n")[0].splitlines()]
    assert lines, f"no Examples: paragraph in {command} --help"
    assert all(line.startswith("valuechain") for line in lines), lines
    if command:  # the example runs the command it documents
        assert any(" ".join(command) in line for line in lines), lines


# ---------------------------------------------------------------------------- formats
def _json(text: str) -> Any:
    return json.loads(text)


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _stages_of_overall(document: dict[str, Any]) -> list[str]:
    (overall,) = (s for s in document["slices"] if s["slice"]["dimension"] == "overall")
    return [tally["stage"] for tally in overall["stages"]]


# (command, how the json rows read, how the csv rows read, what the table must name)
READERS: list[tuple[tuple[str, ...], Any, Any, list[str]]] = [
    (("runs",), lambda j: [r["run_id"] for r in j], lambda c: [r["run_id"] for r in c], [RUN_A]),
    (
        ("trial", TRIAL),
        lambda j: [r["stage"] for r in j["stageResults"]],
        lambda c: [r["stage"] for r in c],
        ["Selection"],
    ),
    (
        ("funnel", RUN_A),
        _stages_of_overall,
        lambda c: [r["stage"] for r in c if r["slice_dimension"] == "overall"],
        ["Connection", "User value"],
    ),
    (
        ("trend",),
        lambda j: sorted(
            (run["runId"], stage["stage"])
            for part in j["partitions"]
            for run in part["runs"]
            for stage in run["stages"]
        ),
        lambda c: sorted((r["run_id"], r["stage"]) for r in c),
        ["partition 1/2"],
    ),
    (
        ("coverage",),
        lambda j: [(run["runId"], link["stage"]) for run in j for link in run["links"]],
        lambda c: [(r["run_id"], r["stage"]) for r in c],
        ["Connection"],
    ),
    (
        ("coverage", "--lint"),
        lambda j: [(f["caseId"], f["rule"]) for f in j],
        lambda c: [(r["case_id"], r["rule"]) for r in c],
        [],
    ),
    (("issues",), lambda j: j, lambda c: c, ["no rows"]),
    (
        ("verify",),
        lambda j: [(r["trial_id"], r["stage"]) for r in j],
        lambda c: [(r["trial_id"], r["stage"]) for r in c],
        ["trials carry a producer chain"],
    ),
    (
        ("sql", "SELECT run_id, stage, passed FROM stage_funnel ORDER BY ALL"),
        lambda j: [(r["run_id"], r["stage"], str(r["passed"])) for r in j],
        lambda c: [(r["run_id"], r["stage"], r["passed"]) for r in c],
        [RUN_A],
    ),
]


@pytest.mark.parametrize(
    ("command", "from_json", "from_csv", "named"), READERS, ids=[" ".join(r[0]) for r in READERS]
)
def test_each_format_of_a_reader_holds_the_same_rows(
    sample: Path, command: tuple[str, ...], from_json: Any, from_csv: Any, named: list[str]
) -> None:
    results = {f: run("--store", sample, *command, "--format", f) for f in ("table", "json", "csv")}
    assert all(r.exit_code == 0 and not r.stderr for r in results.values()), results
    as_json = from_json(_json(results["json"].stdout))
    assert as_json == from_csv(_csv(results["csv"].stdout))
    assert all(name in results["table"].stdout for name in named)


def test_compare_and_verdict_print_their_documents_as_json(sample: Path) -> None:
    """The document readers: json is the model the table is drawn from, field for field."""
    compared = _json(run("--store", sample, "compare", RUN_A, RUN_B, "--format", "json").stdout)
    table = run("--store", sample, "compare", RUN_A, RUN_B).stdout
    assert (compared["a"], compared["b"], compared["comparable"]) == (RUN_A, RUN_B, False)
    assert [f"blocker: {b}" for b in compared["blockers"]] == [
        line.strip() for line in table.splitlines() if line.strip().startswith("blocker:")
    ]
    assert [s["stage"] for s in compared["stages"]] == [s.value for s in Stage]
    decided = _json(run("--store", sample, "verdict", RUN_A, "--format", "json").stdout)
    shown = run("--store", sample, "verdict", RUN_A).stdout
    assert shown.split()[0] == decided["verdict"].upper()
    assert decided["runId"] == RUN_A


def test_json_is_the_data_not_the_table(sample: Path) -> None:
    """Stable keys and raw values, where the table shows labels and fits its width."""
    runs = _json(run("--store", sample, "runs", "--format", "json").stdout)
    assert {"run_id", "suite_id", "completed_at", "included_trials"} <= set(runs[0])
    trial = _json(run("--store", sample, "trial", TRIAL, "--format", "json").stdout)
    assert trial["stageResults"][2]["state"] == "failed"  # the wire value, not "✘ failed"


# ---------------------------------------------------------------------------- --quiet
@pytest.mark.parametrize(
    "command",
    [("runs",), ("funnel", RUN_A), ("trial", TRIAL), ("trend", "--format", "csv")],
    ids=" ".join,
)
@pytest.mark.parametrize("where", ["global", "command"])
def test_quiet_prints_the_result_and_nothing_else(
    sample: Path, command: tuple[str, ...], where: str
) -> None:
    plain = run("--store", sample, *command)
    args = ("-q", *command) if where == "global" else (*command, "--quiet")
    quiet = run("--store", sample, *args)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, plain.stdout, "")


@pytest.mark.parametrize(
    "command",
    [
        ("derive",),
        ("materialize",),
        ("recompute",),
        ("store", "purge-content"),
        ("store", "vacuum"),
        ("import", str(sample_export_path())),
    ],
    ids=" ".join,
)
def test_quiet_writing_commands_say_nothing_on_success(
    copy: Path, command: tuple[str, ...]
) -> None:
    assert run("--store", copy, *command).stdout  # it does say something without --quiet
    quiet = run("--store", copy, "--quiet", *command)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")


def test_quiet_keeps_a_dry_run_s_answer(copy: Path) -> None:
    quiet = run("--store", copy, "-q", "store", "delete", "--run", RUN_A, "--dry-run")
    assert quiet.exit_code == 0 and "would remove" in quiet.stdout and not quiet.stderr


def test_quiet_drops_the_notes_but_never_the_error(copy: Path, tmp_path: Path) -> None:
    store = tmp_path / "pending.duckdb"
    assert run("--store", store, "import", "--no-derive", sample_export_path()).exit_code == 0
    noted = run("--store", store, "runs")
    assert "warning:" in noted.stderr  # the underived import is named…
    quiet = run("--store", store, "-q", "runs")
    assert quiet.stderr == "" and quiet.stdout == noted.stdout  # …but not under --quiet
    failed = run("--store", copy, "-q", "funnel", "run_nope")
    assert failed.exit_code == 1 and red_line(failed).startswith("error: run_nope")


# ---------------------------------------------------------------------------- errors
ERRORS: list[tuple[tuple[str, ...], int, str]] = [
    (("import", "no/such/file.json"), 1, "no/such/file.json"),
    (("sql", "DELETE FROM spans"), 1, "refused"),
    (("issues", "--severity", "fatal"), 2, "--severity"),
    (("derive", "--analyzer", "99"), 2, "--analyzer"),
    (("verify", "run_nope"), 1, "run run_nope"),
    (("trial", "it_nope"), 1, "it_nope"),
    (("runs", "--format", "xml"), 2, "--format"),
    (("funnel", "run_nope"), 1, "run_nope"),
    (("materialize", "run_nope"), 1, "run run_nope"),
    (("schema", "nope"), 2, "nope"),
    (("compare", RUN_A, "run_nope"), 1, "run_nope"),
    (("trend", "--since", "someday"), 2, "someday"),
    (("trend", "--suite", "nope"), 1, "suite nope"),
    (("coverage", "--run", "run_nope"), 1, "--run run_nope"),
    (("verdict", "run_nope"), 1, "run_nope"),
    (("recompute", "--runs", "run_nope"), 1, "run run_nope"),
    (("store", "info", "--limit", "0"), 2, "--limit"),
    (("store", "delete"), 2, "--run"),
    (("store", "delete", "--run", "run_nope"), 1, "run_nope"),
    (("store", "purge-content", "--bogus"), 2, "--bogus"),
    (("store", "migrate", "--bogus"), 2, "--bogus"),
    (("store", "vacuum", "--bogus"), 2, "--bogus"),
    (("synth", "--out", "x.json", "--gzip", "--zstd"), 1, "choose one compression"),
    (("demo", "--bogus"), 2, "--bogus"),
    (("report", "--runs", "run_nope"), 1, "run_nope"),
    (("export", "--parquet", "lake", "--runs", "run_nope"), 1, "run_nope"),
    (("scale", "no/such/file.json", "--out", "lake"), 1, "no/such/file.json"),
    (("--memory-limit", "3", "runs"), 2, "--memory-limit"),
    (("serve", "--host", "0.0.0.0"), 1, "--host 0.0.0.0"),
    (("trials", "run_nope"), 1, "run_nope"),
]


def test_the_error_table_covers_every_command() -> None:
    covered = {args[: 2 if args[0] == "store" else 1] for args, _, _ in ERRORS}
    leaves = {c for c in ALL if c and c != ("store",)}
    assert leaves <= covered, leaves - covered


@pytest.mark.parametrize(("args", "code", "names"), ERRORS, ids=[" ".join(e[0]) for e in ERRORS])
def test_an_error_is_one_red_line_and_a_hint(
    sample: Path, args: tuple[str, ...], code: int, names: str
) -> None:
    result = run("--store", sample, *args)
    assert result.exit_code == code, result.output
    problem, hint = error_and_hint(result, "rejected:" if args[0] == "import" else "error:")
    assert names in problem and hint, (problem, hint)
    assert not result.stdout or args[0] == "import"  # its summary lists the rejected source


@pytest.mark.parametrize("width", [40, 80, 120])
def test_an_error_wraps_at_the_width_and_keeps_a_path_whole(width: int) -> None:
    path = "/" + "/".join(["folder"] * 12) + "/store.duckdb"  # 86 characters
    lines = [
        t.plain
        for t in error_lines(f"{path}: the store is busy (pid 12) for a while", "wait", width)
    ]
    assert lines[0].startswith(f"error: {path}:")  # whole, however wide
    assert all(len(line) <= width for line in lines[1:]) and len(lines) > 2
    assert lines[-1] == "hint: wait" and all(line.startswith("  ") for line in lines[1:-1])
    assert " ".join(" ".join(lines).split()) == (
        f"error: {path}: the store is busy (pid 12) for a while hint: wait"
    )


# ---------------------------------------------------------------------------- progress
def _terminal() -> Console:
    return Console(file=io.StringIO(), force_terminal=True, width=100, color_system=None)


def _shown(bar: PhaseBar) -> str:
    progress = bar._progress
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(progress.make_tasks_table(progress.tasks))
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def test_a_recompute_bar_counts_batches_once_it_knows_how_many() -> None:
    with PhaseBar(_terminal()) as bar:
        on_batch = BatchesDone(bar)
        before = _shown(bar)
        on_batch(1, 4, 250)
        on_batch(3, 4, 250)
        after = _shown(bar)
    assert before.startswith("recompute") and "batches" not in before
    assert "3/4 batches" in after


@pytest.mark.parametrize("phase", [Phase.VACUUM, Phase.MIGRATE, Phase.DELETE, Phase.PURGE])
def test_a_store_operation_shows_a_pulsing_bar_by_name(phase: Phase) -> None:
    with working(phase, "s.duckdb", _terminal()) as bar:
        shown = _shown(bar)
        assert not bar._progress.disable
    assert shown.startswith(f"{phase.value} s.duckdb") and "/" not in shown.split("s.duckdb")[1]


def test_no_bar_off_a_terminal_or_under_quiet() -> None:
    assert PhaseBar(Console(file=io.StringIO()))._progress.disable  # not a terminal
    ctx = click.Context(main)
    ctx.meta[QUIET_KEY] = True
    with ctx:
        assert PhaseBar(_terminal())._progress.disable
    assert not PhaseBar(_terminal())._progress.disable
