"""Pure file formats: text in, text out, no I/O (PROTOCOL §2)."""
