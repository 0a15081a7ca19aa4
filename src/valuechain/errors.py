"""One root error for everything a user can act on.

Messages lead with *where*, then *what*, then a hint (STYLE.md habit 5). The CLI turns a
``ValuechainError`` into one red line and exit code 1; any other exception is a bug and keeps
its traceback.
"""

from __future__ import annotations


class ValuechainError(Exception):
    """Root of every expected, user-actionable error."""

    def __init__(
        self, where: str, problem: str, hint: str | None = None, *, detail: str | None = None
    ) -> None:
        self.where = where
        self.problem = problem
        self.hint = hint
        self.detail = detail  # lines shown as they are (a query and the caret under its error)
        super().__init__(self.render())

    def render(self) -> str:
        """Render as ``where: problem. Hint: …``, the detail's lines under it."""
        text = f"{self.where}: {self.problem}" if self.where else self.problem
        text = f"{text}. Hint: {self.hint}" if self.hint else text
        return f"{text}\n{self.detail}" if self.detail else text


class IngestError(ValuechainError):
    """A source could not be imported at all (it was rejected; the store is unchanged)."""

    def __init__(
        self, source: str, pointer: str | None, problem: str, hint: str | None = None, *, code: str
    ) -> None:
        self.source = source
        self.pointer = pointer
        self.code = code
        where = f"{source}: {pointer}" if pointer else source
        super().__init__(where, problem, hint)


class StoreError(ValuechainError):
    """The store cannot be opened or used as asked."""


class VersionAheadError(StoreError):
    """Written by a newer valuechain: refused, never rewritten."""


class UsageError(ValuechainError):
    """The user asked for something that cannot be done with these arguments."""


class StoreBusyError(StoreError):
    """Another process holds the store (a writer, or readers while this one would write)."""


class QueryTimeoutError(UsageError):
    """A user's query ran longer than the time it was given and was stopped."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a verb; ``kept`` says what of its work stays and what was undone (the
    command line prints it). A `KeyboardInterrupt`, so whoever catches one catches this."""

    def __init__(self, kept: str) -> None:
        self.kept = kept
        super().__init__(kept)
