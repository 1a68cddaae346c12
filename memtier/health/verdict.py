"""One verdict of PROTOCOL §6, shared by the report and every check that makes one.

Its own module so that the checks, the secrets scan and the report all import
it without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memtier.errors import Term
from memtier.values import Fields

PASS = "pass"
FAIL = "fail"
WARN = "warn"
# Freshness, not integrity (PROTOCOL §6 v4, §8 step 4): a WARM file not verified for
# `warm_max_age_days` still fails (compat), but it is verified when its facts are
# used; it is no reason to stop using the memory, nor to hold back the review.
STALENESS = frozenset({"warm.fresh"})

# One fix: text and the operations it names (PROTOCOL §6 v4). The core says *what*
# fixes a failure (`Term("verify", arg=path)`); each face words it once, in its own
# terms: a command on the CLI, a tool call on the tool server.
Fix = tuple[str | Term, ...]


def _plain(term: Term) -> str:
    return str(term)


class Check(Fields):
    """One verdict of PROTOCOL §6: which check, pass/fail/warn, on which file, and why."""

    id: str  # e.g. "hot.header", "secrets", "shims.version"
    status: str  # "pass" | "fail" | "warn"
    path: str | None  # relative to the root
    message: str  # the exact §6 message
    detail: tuple[str, ...] = ()  # what --verbose shows under the line
    # What fixes the failure, shown under it even without --verbose (PROTOCOL §6
    # v4: one fix per failure); never part of `message`, the exact compat text.
    fix: Fix = ()

    def __post_init__(self) -> None:
        """No verdict shows a credential (PROTOCOL §3, §6 v4): a line a check quotes
        (``line outside an entry: …``) or a file name is shown redacted."""
        from memtier.secrets import redact, redact_name

        fields = self.__dict__
        if self.path is not None:
            fields["path"] = redact_name(self.path)
        fields["message"] = redact(self.message).text
        fields["detail"] = tuple(redact(line).text for line in self.detail)
        fields["fix"] = tuple(redact(p).text if isinstance(p, str) else p for p in self.fix)

    def fix_text(self, words: Callable[[Term], str] = _plain) -> str:
        """The fix in one face's words (the command line's by default), or ``""``."""
        return "".join(part if isinstance(part, str) else words(part) for part in self.fix)

    def under(self, *, verbose: bool, words: Callable[[Term], str] = _plain) -> tuple[str, ...]:
        """The lines shown under a failure or warning: the fix, and with --verbose
        the detail before it. A pass shows none."""
        if self.status == PASS:
            return ()
        fix = (self.fix_text(words),) if self.fix else ()
        return (*self.detail, *fix) if verbose else fix

    def to_json(self, *, verbose: bool = False) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "path": self.path,
            "message": self.message,
        }
        if verbose:
            # --json --verbose carries what --verbose prints under the line.
            payload["detail"] = list(self.under(verbose=True))
        return payload
