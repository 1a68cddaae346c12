"""Moving memory in and out (PROTOCOL §12): `import`, `export` and `capture`.

`importers` reads what the neighbouring memory systems write and plans every write before any
is made; `export` is a whole backup of the memory as one file; `capture` files a "remember
this: …" sentence from the agent's conversation into the right tier.
"""
