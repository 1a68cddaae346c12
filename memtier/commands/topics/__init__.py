"""The topic index, consolidation, recall and the daily flush (PROTOCOL §13).

`state` derives the index from the notes and generation files on disk (read-only; the health
engine's `index.*` checks read it too, so it imports nothing but the infrastructure and
`formats`); `index` is `memtier index show|add|set|rebuild`; `consolidate` writes a topic's
next generation; `recall` answers "do you remember …" (falling back to the search of §9);
`flush` is the daily flush.
"""
