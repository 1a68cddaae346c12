"""Facts (PROTOCOL §10, in the tiers of §1): `remember`, `replace`, `retire`, `verify`, `get`.

`remember` writes a new fact to the home of its kind; `edits` changes or retires one line and
records the old text in the retirement log; `files` is what every fact command shares (which
file a fact may live in, the duplicate check across HOT and WARM, the HOT cap, the dates);
`get` reads bounded, numbered lines of any memory file.
"""
