"""Sync across hosts through git (PROTOCOL §14; the host-local files of §1 and §3).

`run` is one round of `memtier sync` (fetch, commit, merge, push) and the automatic sync of
session-start and session-end; `setup` is `memtier sync init` and the repository's place and
settings; `driver` is `memtier merge-driver`, the merges git calls back for each kind of memory
file (notes §2, facts §10, lines). The modules whose names start with `_` (git plumbing, moves
of archived notes, the conflict records) are the feature's own: no other part of memtier
imports them.
"""
