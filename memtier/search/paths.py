"""The tier names and the walk over each tier's files, as the scanners name them.

Both live in `memtier.workspace` (PROTOCOL §1), beside the tier table, so that
`stats` and `export` read them without importing the search engine.
"""

from __future__ import annotations

from memtier.workspace import (
    TIERS,
    search_paths,
    symlink_warnings,
    tier_file_pairs,
    tier_files,
    tier_of,
)

# The tier table and the walk over its files live in `memtier.workspace`;
# re-exported under the names the scanners use.
TIER_ORDER = TIERS
__all__ = [
    "TIER_ORDER",
    "search_paths",
    "symlink_warnings",
    "tier_file_pairs",
    "tier_files",
    "tier_of",
]
