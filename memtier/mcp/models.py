"""What the tools return: pydantic models, so every tool has an ``outputSchema`` (PROTOCOL §11).

Every result carries ``text``, the same words the CLI prints, because some
clients hand the model only the structured part; ``data`` is the object the
CLI prints with ``--json`` (one contract for both). The typed fields beside
them are the ones an agent acts on.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ToolOutput(BaseModel):
    text: str = Field(description="What happened, in the words the memtier CLI prints.")
    data: dict[str, Any] = Field(
        default_factory=dict, description="The object `memtier <command> --json` prints."
    )


class WriteOutput(ToolOutput):
    redacted: dict[str, int] = Field(
        default_factory=dict,
        description="Secrets replaced by [REDACTED:<RULE>] before writing, counted by rule.",
    )


class BufferOutput(WriteOutput):
    active_tasks: list[str] = Field(description="The buffer's active task lines after the call.")
    oversized: bool = Field(description="True when the buffer is due for rotation.")


class BoundedOutput(ToolOutput):
    truncated: bool = Field(description="True when the text was cut to fit max_chars.")
    more: str | None = Field(
        default=None, description="When truncated: the call that returns the rest."
    )


class CutPart(BaseModel):
    path: str
    shown_lines: int
    total_lines: int
    more: str = Field(description="The call that reads the lines not shown.")


class SessionStartOutput(BoundedOutput):
    actions: list[str] = Field(description="What session-start did (recovery, heartbeat).")
    health_ok: bool = Field(description="The health-check verdict; false: run memory_health.")
    health_failed: list[str] = Field(description="Ids of the failed health checks.")
    last_open: str | None = Field(
        description="The Open: items of the last closed day, however long ago, or null."
    )
    cut: list[CutPart] = Field(description="Parts of the context cut or left out.")


class SearchHit(BaseModel):
    path: str
    tier: str
    line: int = Field(description="First matching line (read around it with memory_get).")
    line_start: int
    line_end: int
    score: float
    excerpt: str


class SearchOutput(BoundedOutput):
    total_matched: int = Field(description="Sections that matched, before the limit.")
    results: list[SearchHit] = Field(description="The results shown in text, best first.")


class GetOutput(BoundedOutput):
    path: str
    next_from_line: int | None = Field(
        default=None, description="When truncated: pass this as from_line to read on."
    )


class HealthProblem(BaseModel):
    id: str
    status: str = Field(description="fail (the memory cannot be trusted) or warn.")
    path: str | None
    message: str
    fix: str | None = Field(description="The tool call or command that fixes it.")


class HealthOutput(BoundedOutput):
    ok: bool = Field(description="True when every required check passed.")
    problems: list[HealthProblem] = Field(description="Failures and warnings, in report order.")
