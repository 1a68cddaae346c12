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
    # The hot commands in their commonest shapes start without typer (memtier.cli.fast);
    # every other call, and every shape the fast path does not know, goes to typer.
    from memtier.cli.fast import read_line, run_fast

    read = read_line(args)  # once, for whichever path runs the command
    code = run_fast(args, read)
    if code is not None:
        return code
    from memtier.cli import run

    return run(args, read)


if __name__ == "__main__":
    sys.exit(main())
