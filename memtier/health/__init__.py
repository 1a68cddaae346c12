"""`memtier health-check`: the report, the file checks and the secrets scan (PROTOCOL §6)."""
