"""One verdict of PROTOCOL §6, shared by the report and every check that makes one.

Its own module so that the checks, the secrets scan and the report all import
it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PASS = "pass"
FAIL = "fail"
WARN = "warn"


@dataclass(frozen=True)
class Check:
    """One verdict of PROTOCOL §6: which check, pass/fail/warn, on which file, and why."""

    id: str  # e.g. "hot.header", "secrets", "shims.version"
    status: str  # "pass" | "fail" | "warn"
    path: str | None  # relative to the root
    message: str  # the exact §6 message
    detail: tuple[str, ...] = ()  # what --verbose shows under the line

    def to_json(self, *, verbose: bool = False) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "path": self.path,
            "message": self.message,
        }
        if verbose:
            # --json --verbose carries what --verbose prints under the line.
            payload["detail"] = list(self.detail) if self.status != PASS else []
        return payload
