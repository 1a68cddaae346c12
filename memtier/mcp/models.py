"""The one output model of every tool: ``text`` and a compact ``data`` (PROTOCOL §11 v3).

``text`` is what the model reads (the CLI's words, bounded); ``data`` is a
handful of fields an agent acts on (counts, flags, the next call), never a
second copy of the text nor an uncut list. One small schema for all tools keeps
the tool list lean: a client pays for it on every turn.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class ToolOutput(BaseModel):
    text: str
    data: dict[str, Any] = {}


# The schema every tool publishes (what pydantic derives, without its titles).
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "data": {"type": "object"}},
}
