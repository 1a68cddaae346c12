"""The topic index, consolidation, recall and the daily flush (PROTOCOL §13).

`state` derives the index from the notes and generation files on disk, and `notes` finds
the notes that hold a topic by one ripgrep pass (both read-only; the health engine's
`index.*` checks read through them, so they import nothing but the infrastructure and
`formats`); `index` is `memtier index show|add|set|rebuild`; `consolidate` writes a topic's
next generation; `recall` answers "do you remember …" (falling back to the search of §9);
`flush` is the daily flush.
"""
