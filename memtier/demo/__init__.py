"""The sample memory `memtier init --demo` installs (PROTOCOL §12 export format).

``homelab.json`` is an export of a home-lab agent's first two weeks: WARM facts,
daily notes with closure blocks, lessons learned, and one error that recurs
often enough for the weekly review to flag it. Its dates are moved on install so
that the newest note is today's.
"""

from __future__ import annotations

from pathlib import Path

DEMO_EXPORT = Path(__file__).resolve().parent / "homelab.json"
# PROTOCOL §13: the demo's one topic, consolidated on install (its days, today excluded),
# so the first `memtier index` and `memtier recall qdrant` show a generation.
DEMO_TOPIC = ("qdrant-migration", "projects", ("qdrant",))
