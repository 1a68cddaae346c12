"""The scoring constants and per-file boosts that `rank` and `pick` share (PROTOCOL §9 `search`).

`rank` scores sections; `pick` decides, from the scan alone, which files the
ranking reads. Both must agree on BM25's constants, the tier weights and the
recency boost, so those live here, below both.
"""

from __future__ import annotations

import math
from datetime import date

K1 = 1.2
# How much a section's length counts (BM25's b): half. A section is a few lines, in a chat
# one turn, whose length says how much it tells more than that it repeats itself (v4).
B = 0.5
TITLE_WEIGHT = 2.0
HEADING_CONTEXT = 0.5
TAGS_CONTEXT = 0.5
TURN_CONTEXT = 0.5  # a chat turn's neighbouring turns (`rank._beside`)
TIER_WEIGHTS: dict[str, float] = {
    "hot": 1.3,
    "warm": 1.3,
    "index": 1.2,  # PROTOCOL §13: INDEX.md and consolidated/, after WARM
    "buffer": 1.15,
    "scratch": 1.15,
    "cold": 1.0,
    "archive": 0.8,
}
RECENCY_BONUS = 0.12
RECENT_QUERY_BONUS = 1.0  # replaces RECENCY_BONUS when the query asks for the latest
RECENCY_HALF_LIFE = 30.0
COVER_BONUS = 1.0
PHRASE_BONUS = 0.5
SAME_LINE_BONUS = 1.0
MIN_CANDIDATES = 50
# How much a file's second and third best sections add to its best one (`rank._aggregate`).
EVIDENCE_WEIGHTS = (0.5, 0.25)
# A copy of a HOT or WARM line elsewhere scores this share (`copies.discount_copies`).
COPY_WEIGHT = 0.5
PHRASE_GAP = 3  # bytes allowed between two words of a phrase: a space, "-", ", "


def recency(path: str, today: date, bonus: float = RECENCY_BONUS) -> float:
    """The boost of a dated note (file name ``YYYY-MM-DD…``), 1 for anything else."""
    return recency_of(path, today.toordinal(), bonus)


def idf(df: int, n: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def recency_of(rel: str, today: int, bonus: float) -> float:
    """`recency`, for a path and a proleptic ordinal *today* (the hot loop's form)."""
    name = rel[rel.rfind("/") + 1 :]
    if len(name) < 10 or name[4] != "-" or name[7] != "-":
        return 1.0
    try:
        age = today - date.fromisoformat(name[:10]).toordinal()
    except ValueError:
        return 1.0
    return 1.0 + bonus * math.pow(0.5, max(0, age) / RECENCY_HALF_LIFE)
