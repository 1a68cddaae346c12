"""One module per command family: each takes the workspace and returns a result."""
