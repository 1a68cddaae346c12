"""One verdict of PROTOCOL §6, shared by the report and every check that makes one.

Its own module so that the checks, the secrets scan and the report all import
it without importing each other.
"""

from __future__ import annotations

from typing import Any

from memtier.values import Fields

PASS = "pass"
FAIL = "fail"
WARN = "warn"


class Check(Fields):
    """One verdict of PROTOCOL §6: which check, pass/fail/warn, on which file, and why."""

    id: str  # e.g. "hot.header", "secrets", "shims.version"
    status: str  # "pass" | "fail" | "warn"
    path: str | None  # relative to the root
    message: str  # the exact §6 message
    detail: tuple[str, ...] = ()  # what --verbose shows under the line
    # The command that fixes the failure, shown under it even without --verbose
    # (PROTOCOL §10: a stale file names `memtier verify`); never part of `message`,
    # which stays the exact compat text of §6.
    hint: str = ""

    def __post_init__(self) -> None:
        """No verdict shows a credential (PROTOCOL §3, §6 v4): a line a check quotes
        (``line outside an entry: …``) or a file name is shown redacted."""
        from memtier.secrets import redact, redact_name

        fields = self.__dict__
        if self.path is not None:
            fields["path"] = redact_name(self.path)
        fields["message"] = redact(self.message).text
        fields["detail"] = tuple(redact(line).text for line in self.detail)
        fields["hint"] = redact(self.hint).text

    def under(self, *, verbose: bool) -> tuple[str, ...]:
        """The lines shown under a failure or warning: the fixing command, and
        with --verbose the detail before it. A pass shows none."""
        if self.status == PASS:
            return ()
        hint = (self.hint,) if self.hint else ()
        return (*self.detail, *hint) if verbose else hint

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
