"""The file formats (PROTOCOL §2): text in, text out, no workspace I/O.

`templates` alone reads files, and only the package's own template files.
"""
