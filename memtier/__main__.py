"""Entry point for the ``memtier`` script and ``python -m memtier``."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        # Fast path: agents and shims ask for the version often; skip loading the CLI.
        from memtier import __version__

        sys.stdout.write(f"memtier {__version__}\n")
        return 0
    from memtier.cli import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
