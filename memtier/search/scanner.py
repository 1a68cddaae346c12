"""Find what matches: ripgrep when it is there, pure Python otherwise.

Both scanners search exactly the tier files of PROTOCOL §1 (see `memtier.tiers`) and
report the same thing: for every file with a match, how often each query term
occurs in it (for a raw ``--regex``: each match's text, and in the files the
ranking reads its line and byte column too, `locate`),
plus how many files were searched, BM25's corpus size. A parity test runs both
on one workspace.

Rules shared by both:
- Hidden folders and ignore files do not hide memory (ripgrep: ``--hidden
  --no-ignore``); no ripgrep configuration file is read (``--no-config``).
- Symlinks are never followed inside tier folders (ripgrep without
  ``--follow``); see `memtier.tiers` for tier files that are symlinks themselves.
- Binary files (a NUL byte) are skipped with a warning. A file that is not
  UTF-8 is skipped by the ranking step, which reads it, with a warning too.

One ripgrep run for all the terms, not one per term: measured on 100,000
notes, three ``--count-matches`` runs in parallel (one per term) took about
twice as long as this single ``--only-matching`` run, because each run opens
and reads every file again, and opening files is most of ripgrep's work here.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path

from memtier.errors import InputError
from memtier.search.engine import (
    ascii_lower,
    byte_matches,
    compile_pattern,
    matches_in,
    refuse_unsupported,
)
from memtier.search.found import (
    STATS_RE,
    FileHits,
    Match,
    ScanResult,
    counting_words,
    parse_blocks,
    split_tagged,
)
from memtier.search.phrases import phrase_re
from memtier.search.processes import Followed, anonymous_file
from memtier.search.tokens import (
    escape,
    has_cjk,
    normalise,
    normalise_bytes,
    python_pattern,
)
from memtier.search.wordcount import overlapping
from memtier.tiers import search_paths, symlink_warnings, tier_file_pairs
from memtier.workspace import tier_of

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtier.search.engine import LinePattern
    from memtier.spawn import Started

__all__ = ["FileHits", "ScanResult", "find_rg", "scan"]


def find_rg(override: str | None = None) -> str | None:
    """The ripgrep binary to use: *override*, else the one installed beside this
    Python (the ``ripgrep`` wheel puts it there), else the first ``rg`` on PATH."""
    from memtier.binaries import find_binary

    return find_binary("rg", override)


# ---------------------------------------------------------------------------
# ripgrep


class _RipgrepUnusable(Exception):
    """ripgrep could not run or failed for a reason other than the user's pattern."""


# A search that ripgrep has not answered in this time never will (a program that
# hangs named by $MEMTIER_RG, a stuck mount): it is stopped, and the built-in
# scanner answers instead, with a warning (PROTOCOL §9 search).
RG_TIME_LIMIT_SECONDS = 10.0


def _wait_bounded(process: Started, output: Followed) -> int:
    """ripgrep's exit status, its output read as it comes (`processes.Followed`), or
    `_RipgrepUnusable` once it has run past the limit (it and anything it started
    are killed: it leads a process group of its own)."""
    if not output.wait(process, RG_TIME_LIMIT_SECONDS):
        import signal  # here only: its enums cost a search ~0.7 ms at import
        from contextlib import suppress

        with suppress(OSError):  # (`close` kills the program itself in any case)
            os.killpg(process.pid, signal.SIGKILL)
        process.close()
        raise _RipgrepUnusable(f"no answer within {RG_TIME_LIMIT_SECONDS:g} s") from None
    return process.wait()


def scan_with_rg(
    rg: str,
    root: Path,
    tiers: tuple[str, ...],
    pattern: str,
    *,
    ignore_case: bool,
    words: list[str] | None = None,
    list_only: bool = False,
    collect_tags: bool = False,
    phrases: tuple[str, ...] = (),
    meanwhile: Callable[[], object] | None = None,
    located: list[str] | None = None,
) -> ScanResult:
    """Run ripgrep once. Query terms (*ignore_case*) need only the matched texts,
    the ranking finds their lines itself in the few files it reads; with *words*
    they are counted per file right away. A raw ``--regex`` needs each match's
    line and column, which ripgrep tells in a second run over the files the
    ranking reads only (`locate`: *located*, those files). *meanwhile* runs while
    ripgrep searches; *phrases* are the query's quoted phrases
    (`phrases.phrase_pattern`)."""
    result = ScanResult(scanner="ripgrep", words=words)
    if collect_tags:
        result.tagged = set()
    if located is not None:
        paths = located
    else:
        paths = search_paths(root, tiers, result.warnings)
        if not ignore_case and not list_only:
            result.plain = True
            result.locate = functools.partial(locate, rg, root, pattern, result)
    if not paths:
        return result
    argv = [
        rg, "--no-config", "--hidden", "--no-ignore", "--binary", "--null",
        "--heading", "--with-filename",  # a single path (--tier hot) is named too
        "--only-matching", "--color", "never", "--stats", "--glob", "*.md",
    ]  # fmt: skip
    if list_only:
        # Only which files match: a NUL after each path, read back as empty blocks.
        argv = [rg, "--no-config", "--hidden", "--no-ignore", "--null", "--files-with-matches",
                "--color", "never", "--glob", "*.md"]  # fmt: skip
    if list_only or ignore_case:
        # --multiline: ripgrep 14.1.0 (the one wheel there is) derives a "fast line
        # regex" from inner literals that can be wrong and skip matching lines (its
        # issue 2884, fixed in 14.1.1: the scan pattern of "receipt router" found
        # nothing). Multi-line search skips that step; the scan patterns hold no line
        # break, so every match and its output stay the same, at the same cost.
        argv += ["--ignore-case", "--multiline"]
    if not list_only:
        # The matched texts alone: a --regex's positions are asked for only in the
        # files the ranking reads (`locate`), which are few.
        argv += ["--line-number", "--column"] if located else ["--no-line-number"]
    if "archive" not in tiers:
        argv += ["--max-depth", "1"]  # every other tier folder is flat (PROTOCOL §1)
    argv += ["--regexp", pattern, "--", *paths]
    # ripgrep's output goes to an unlinked temporary file, not a pipe: a broad query
    # prints megabytes, and a pipe's small buffer stalls rg's search threads while
    # Python is busy elsewhere. The file is read as it grows (`processes.Followed`).
    with anonymous_file() as out, anonymous_file() as err:
        from memtier import spawn  # not `subprocess`: ~5 ms of every search's start

        try:
            process = spawn.start(
                argv, output=out.fileno(), errors=err.fileno(), group=True, cwd=str(root)
            )
        except OSError as exc:
            raise _RipgrepUnusable(exc.strerror or str(exc)) from None
        phrase = phrase_re(phrases) if words is None else None

        def take(blocks: list[bytes]) -> None:
            parse_blocks(blocks, result, phrase, last=False)

        followed = Followed(out.fileno(), None if list_only else take)
        try:
            # Listing the tier folders for symlinks overlaps with ripgrep's search,
            # and so does what the caller prepares for the ranking, and the reading
            # of the files' blocks ripgrep has printed so far.
            if located is None:
                symlink_warnings(root, paths, result.warnings)
            if meanwhile is not None:
                meanwhile()
        finally:
            code = _wait_bounded(process, followed)
        output, last = followed.finish()
        err.seek(0)
        errors = err.read().decode("utf-8", "replace")
    if code == 2 and followed.blank:
        message = errors.strip()
        if "regex" in message:
            # ripgrep prints the pattern and a caret, then "error: <what is wrong>".
            lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
            reason = next((ln for ln in reversed(lines) if ln.startswith("error:")), lines[0])
            raise InputError(f"invalid search pattern: {reason.removeprefix('error:').strip()}")
        raise _RipgrepUnusable(message.splitlines()[0] if message else f"exit status {code}")
    if list_only:
        for name in output.split(b"\0"):
            rel = name.decode("utf-8", "surrogateescape").strip().removeprefix("./")
            if rel and tier_of(rel) is not None:
                result.matches[rel] = FileHits()
        return result
    # ripgrep's statistics close its output, after its last blank line: looked for
    # there, not across the whole output (megabytes for a broad query), where a
    # matched text could also read "N files searched".
    if code not in (0, 1) or STATS_RE.search(last) is None:
        # Not ripgrep, or ripgrep that died: its silence is not "no matches".
        first = errors.strip().splitlines()[:1]
        raise _RipgrepUnusable(first[0] if first else f"no search statistics (exit status {code})")
    parse_blocks([last], result, phrase)  # the statistics, and what came with them
    for line in errors.splitlines():
        if line.strip():
            result.warnings.append(line.removeprefix("rg: ").strip())
    return result


def locate(
    rg: str, root: Path, pattern: str, result: ScanResult, files: list[tuple[str, list[str]]]
) -> dict[str, FileHits]:
    """The matches of a ``--regex`` in *files* (path, the lines the ranking read),
    with their lines and columns; the scan (*result*) printed the matched texts alone.

    They are found in the lines already read, with the built-in scanner's engine
    (`compile_pattern`), and kept where they are the very texts ripgrep printed for
    the file, in the same order. Where they differ (the engines disagree on the
    pattern, a line ending in CR, a file cut at `rank.MAX_FILE_LINES`), ripgrep
    runs once more over those files only; where ripgrep fails then, the built-in
    scanner reads the files themselves."""
    if not files:
        return {}
    located: dict[str, FileHits] = {}
    again: list[str] = []
    printed = result.printed([rel for rel, _ in files])
    regex = compile_pattern(pattern, ignore_case=False)
    for rel, lines in files:
        found = _located_in(lines, printed.get(rel), regex)
        if found is None:
            again.append(rel)
        else:
            located[rel] = FileHits(found=found, tier=tier_of(rel))
    if again:
        located.update(_locate_again(rg, root, pattern, regex, again))
    return located


def _located_in(lines: list[str], hits: FileHits | None, regex: LinePattern) -> list[Match] | None:
    """The matches of *regex* in *lines*, or None unless their texts are those ripgrep
    printed (*hits*), in order (its empty matches aside: they are never shown)."""
    texts = hits.raw_texts() if hits is not None else None
    if texts is None:
        return None
    printed = [t for t in texts if t]
    if isinstance(regex, re.Pattern):  # no RE2: Python's engine reads the text
        found = [(ln, col, ascii_lower(t)) for ln, col, t in matches_in("\n".join(lines), regex)]
        if [t.encode("utf-8") for _, _, t in found] != printed:
            return None
        return found
    spans = byte_matches("\n".join(lines).encode("utf-8"), regex)
    if [t.lower() for _, _, t in spans] != printed:
        return None
    try:
        return [(ln, col, t.lower().decode("utf-8")) for ln, col, t in spans]
    except UnicodeDecodeError:  # a match inside a character (`byte_matches`)
        return None


def _locate_again(
    rg: str, root: Path, pattern: str, regex: LinePattern, rels: list[str]
) -> dict[str, FileHits]:
    """`locate` for the files whose texts differed: ripgrep over those files only, or
    the built-in scanner reading them where ripgrep fails now."""
    try:
        found = scan_with_rg(rg, root, (), pattern, ignore_case=False, located=rels)
    except _RipgrepUnusable:
        located: dict[str, FileHits] = {}
        for rel in rels:
            try:
                data = _read_all(f"{root}/{rel}")
            except OSError:
                continue
            if b"\0" not in data:
                texts = [
                    (ln, col, ascii_lower(t)) for ln, col, t in matches_in(_decode(data), regex)
                ]
                located[rel] = FileHits(found=texts, tier=tier_of(rel))
        return located
    return found.matches


# ---------------------------------------------------------------------------
# pure Python


def scan_with_python(
    root: Path,
    tiers: tuple[str, ...],
    pattern: str,
    *,
    ignore_case: bool,
    literals: list[str],
    collect_tags: bool = False,
) -> ScanResult:
    """The fallback scanner. With *literals* (the query terms, lowercase) it only
    counts them per file, as the ripgrep path does; a raw pattern gets positions."""
    result = ScanResult(scanner="python", words=counting_words(literals))
    if collect_tags:
        result.tagged = set()
    # Query terms make a pattern of our own, which Python's ``re`` always accepts;
    # a --regex goes through the linear-time engine (`compile_pattern`).
    if literals:
        pattern = python_pattern(pattern)  # the scan's ASCII word starts, in `re` syntax
    terms_regex = re.compile(pattern, re.MULTILINE | re.IGNORECASE) if literals else None
    regex = terms_regex or compile_pattern(pattern, ignore_case=ignore_case)
    counted = result.counted
    encoded = [word.encode("utf-8") for word in literals]
    # ASCII text only meets this form, where ``\b`` and ASCII case folding agree with ``re``'s.
    byte_regex = (
        re.compile(pattern.encode("utf-8"), re.MULTILINE | re.IGNORECASE) if literals else None
    )
    base = str(root)
    for rel, tier in tier_file_pairs(root, tiers, result.warnings):
        try:
            data = _read_all(f"{base}/{rel}")
        except OSError as exc:
            result.warnings.append(f"skipped {rel}: cannot be read ({exc.strerror})")
            continue
        result.files_searched += 1
        if b"\0" in data:
            result.warnings.append(f"skipped {rel}: binary file")
            continue
        if literals:
            # Count in the matched texts, as ripgrep's output is counted: the pattern
            # anchors each term at a word start (`tokens.scan_pattern`).
            if data.isascii() and byte_regex is not None:
                # The common case, kept in bytes: no decoding, ASCII lowercase is exact.
                lowered = data.lower()
                if not any(word[:_MIN_PART] in lowered for word in encoded):
                    continue  # no term's first letters: the regex cannot match either
                texts, has_tag = split_tagged(b"\n".join(byte_regex.findall(data)))
                texts = normalise_bytes(texts)
                counts = tuple(map(texts.count, encoded))
            else:
                assert terms_regex is not None  # (literals: the terms' own pattern)
                joined = "\n".join(terms_regex.findall(_decode(data))).encode("utf-8")
                untagged, has_tag = split_tagged(joined)
                found_texts = normalise(untagged.decode("utf-8"))
                # A CJK term with its overlaps (哈哈 twice in 哈哈哈, `tokens.cjk_runs`).
                counts = tuple(
                    overlapping(found_texts, word) if has_cjk(word) else found_texts.count(word)
                    for word in literals
                )
            if has_tag and result.tagged is not None:
                result.tagged.add(rel)
            if not any(counts):
                continue
            if counted is not None:
                counted.add(rel, tier, counts)
            else:
                found = {word: n for word, n in zip(literals, counts, strict=True) if n}
                result.matches[rel] = FileHits(counted=found, tier=tier)
            continue
        assert regex is not None
        found_raw = [(ln, col, ascii_lower(t)) for ln, col, t in matches_in(_decode(data), regex)]
        if found_raw:
            result.matches[rel] = FileHits(found=found_raw, tier=tier)
    return result


def _decode(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # Scan it like ripgrep does (bytes); the ranking step reads it, warns, skips it.
        text = data.decode("utf-8", "replace")
    return text.removeprefix("\ufeff")


_READ_SIZE = 1 << 17
# A term's pattern may put a hyphen or space after its first four letters, and an
# accented letter never occurs in ASCII text: those four letters are always there.
_MIN_PART = 4


def _read_all(path: str) -> bytes:
    """A file's bytes with plain system calls (cheaper than `Path.read_bytes` per file).

    A read of a regular file that returns less than asked has reached its end, so
    a note (a few KB) costs one ``read``, not a second one that returns nothing.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.read(fd, _READ_SIZE)
        if len(data) < _READ_SIZE:
            return data
        chunks = [data]
        while chunk := os.read(fd, _READ_SIZE):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def scan(
    root: Path,
    tiers: tuple[str, ...],
    pattern: str,
    *,
    ignore_case: bool,
    rg: str | None,
    literals: list[str],
    tags: tuple[str, ...] = (),
    phrases: tuple[str, ...] = (),
    meanwhile: Callable[[], object] | None = None,
) -> ScanResult:
    """Scan with ripgrep when *rg* is given, else (or if it fails) with the Python fallback.

    With *tags* (``search --tag``), only files that carry one of them count: one
    more ripgrep run lists them (`tagged_files`), and the matches of every other
    file are dropped before the ranking sees them.
    """
    failure = None
    if not literals:
        refuse_unsupported(pattern)
    result: ScanResult | None = None
    # A word query looks for the tag lines in the same scan (one ripgrep run, not two);
    # a --regex lists them in a thread beside it (its matches are shown as they are).
    together = bool(tags and literals)
    if together:
        pattern = f"{pattern}|{tag_pattern(tags)}"
    listing = _TagListing(root, tiers, tags, rg) if tags and rg and not together else None
    if rg:
        try:
            words = counting_words(literals)
            result = scan_with_rg(
                rg, root, tiers, pattern, ignore_case=ignore_case, words=words,
                collect_tags=together, phrases=phrases, meanwhile=meanwhile,
            )  # fmt: skip
        except _RipgrepUnusable as exc:
            failure = f"ripgrep ({rg}) failed: {exc}; used the built-in scanner"
            rg = None
    if result is None:
        result = scan_with_python(
            root, tiers, pattern, ignore_case=ignore_case, literals=literals,
            collect_tags=together,
        )  # fmt: skip
    if failure:
        result.warnings.insert(0, failure)
    if tags:
        tagged = result.tagged
        if tagged is None and listing is not None and rg:
            tagged = listing.result()
        if tagged is None:
            tagged = tagged_files(root, tiers, tags, None, _matched(result))
        keep_tagged(result, tagged)
    return result


class _TagListing:
    """`tagged_files` with ripgrep in a thread, started before the main scan so the two
    ripgrep runs overlap (measured at 100,000 notes: the listing alone costs about
    one ``rg -l``); the thread mostly waits on the child process."""

    def __init__(self, root: Path, tiers: tuple[str, ...], tags: tuple[str, ...], rg: str) -> None:
        import threading

        self._found: set[str] | None = None
        self._thread = threading.Thread(target=self._run, args=(root, tiers, tags, rg))
        self._thread.start()

    def _run(self, root: Path, tiers: tuple[str, ...], tags: tuple[str, ...], rg: str) -> None:
        try:
            self._found = tagged_files(root, tiers, tags, rg, [])
        except (_RipgrepUnusable, InputError):
            self._found = None  # the built-in scanner lists them instead

    def result(self) -> set[str] | None:
        self._thread.join()
        return self._found


def tag_pattern(tags: tuple[str, ...]) -> str:
    """Lines that give a file one of *tags*: its ``#tags:`` line (PROTOCOL §2) naming
    it, or an inline ``#tag`` (as `sections.inline_tags` reads them)."""
    names = "|".join(escape(t.lower().lstrip("#")) for t in tags)
    return (
        rf"^#tags:(?:.*[\s,|])?(?:{names})(?:[\s,|]|$)"
        rf"|(?:^|[^\w#&/])#(?:{names})(?:[^\w-]|$)"
    )


def _matched(result: ScanResult) -> list[str]:
    if result.counted is not None:
        return result.counted.paths()
    return sorted(result.matches)


def tagged_files(
    root: Path, tiers: tuple[str, ...], tags: tuple[str, ...], rg: str | None, among: list[str]
) -> set[str]:
    """Which files have a line giving them one of *tags*: one ``rg -l`` over the
    tiers, or the built-in scanner reading only *among* (the files that matched)."""
    pattern = tag_pattern(tags)
    if rg:
        found = scan_with_rg(rg, root, tiers, pattern, ignore_case=True, list_only=True)
        return set(found.matches)
    regex = re.compile(pattern, re.MULTILINE | re.IGNORECASE)
    chosen: set[str] = set()
    for rel in among:
        try:
            data = _read_all(f"{root}/{rel}")
        except OSError:
            continue
        if b"\0" not in data and regex.search(_decode(data)):
            chosen.add(rel)
    return chosen


def keep_tagged(result: ScanResult, tagged: set[str]) -> None:
    """Drop the matches of files outside *tagged*."""
    grouped = {}
    for texts, paths in result.by_texts.items():
        if kept := [rel for rel in paths if rel in tagged]:
            grouped[texts] = kept
    result.matches = {rel: hits for rel, hits in result.kept().items() if rel in tagged}
    result.by_texts = grouped
    counted = result.counted
    if counted is not None:
        groups = {}
        for key, files in counted.groups.items():
            kept = [rel for rel in files if rel in tagged]
            if kept:
                groups[key] = kept
        counted.groups = groups
