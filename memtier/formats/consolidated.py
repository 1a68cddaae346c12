"""Generation files ``memory/consolidated/<slug>-gen<N>-<date>.md`` (PROTOCOL §13, v3).

Pure text in, text out. A generation is extractive: every line it keeps is
followed by `` — [<D>.md:<line>](<relative path>)``, a markdown link to the note
line it came from (PROTOCOL §2, §13 v4; generations written before cite the
root-relative path as plain text, ``— <path>:<line>``, and still verify). The header's
``Digest: sha256:<hex>`` covers every byte after its own line; the lines above
it are checked against the file's name and body (`generation_problems`), so a
changed byte anywhere is found. A generation is never rewritten: a correction
is the next generation.
"""

from __future__ import annotations

import hashlib
import posixpath
import re

from memtier.values import Fields

NONE = "none"
SECTIONS: tuple[str, ...] = ("Summary", "Decisions", "Open", "Evidence", "Carried forward")
# A name two hosts both wrote keeps both (PROTOCOL §14): the second as ``<stem>.<k>.md``,
# the archive's way with a taken name (§7). Its header still names the generation.
NAME_RE = re.compile(
    r"^(?P<slug>[a-z0-9-]+)-gen(?P<n>[1-9][0-9]*)-(?P<day>\d{4}-\d\d-\d\d)"
    r"(?:\.(?P<copy>[1-9][0-9]*))?\.md$"
)
# The folder every generation stands in: its links are relative to it.
FOLDER = "memory/consolidated"
_CITED_RE = re.compile(r"^- (?P<text>.*) — (?P<path>\S+\.md):(?P<line>[1-9][0-9]*)$")
# PROTOCOL §2 (v4): the citation is a relative link whose text is `D.md:L`.
_LINKED_RE = re.compile(
    r"^- (?P<text>.*) — \[(?P<name>[^\]\s/]+\.md):(?P<line>[1-9][0-9]*)\]"
    r"\((?P<href>[^()\s]+\.md)\)$"
)
_BULLET_RE = re.compile(r"^\s*[-*+]\s+")
_DIGEST_PREFIX = "Digest: sha256:"
_DAY_IN_PATH = re.compile(r"(\d{4}-\d\d-\d\d)[^/]*\.md$")
CARRIED_KINDS = ("decision", "open")


class Cited(Fields):
    """One kept line (or closure item) and where it stands."""

    text: str
    path: str  # root-relative note path
    line: int
    kind: str = ""  # in Carried forward: "decision" or "open"

    def render(self) -> str:
        prefix = f"{self.kind}: " if self.kind else ""
        return f"- {prefix}{self.text} — {self.link()}"

    def link(self) -> str:
        """``[2026-03-02.md:5](../episodic/2026-03-02.md)``: a link a preview follows."""
        name = posixpath.basename(self.path)
        return f"[{name}:{self.line}]({posixpath.relpath(self.path, FOLDER)})"

    @property
    def day(self) -> str:
        found = _DAY_IN_PATH.search(self.path)
        return found.group(1) if found else ""


class GenerationFile(Fields):
    slug: str
    number: int
    created: str
    covers: tuple[str, ...]
    previous: str | None
    summary: str | None  # None: no summary written
    decisions: tuple[Cited, ...] = ()
    open: tuple[Cited, ...] = ()
    evidence: tuple[Cited, ...] = ()
    carried: tuple[Cited, ...] = ()

    @property
    def name(self) -> str:
        return generation_name(self.slug, self.number, self.created)

    @property
    def summary_by(self) -> str:
        return "agent" if self.summary is not None else NONE


def evidence_text(line: str) -> str:
    """A note line as Evidence keeps it: its own list marker dropped, since the
    Evidence line is a list item already (no ``- - move qdrant``, §2 v4)."""
    return _BULLET_RE.sub("", line, count=1)


def generation_name(slug: str, number: int, created: str) -> str:
    return f"{slug}-gen{number}-{created}.md"


def _header(gen: GenerationFile) -> list[str]:
    return [
        f"# {gen.slug} — generation {gen.number}",
        f"Created: {gen.created}",
        f"Covers: {', '.join(gen.covers) or NONE}",
        f"Previous: {gen.previous or NONE}",
        f"Summary-by: {gen.summary_by}",
    ]


def _body(gen: GenerationFile) -> str:
    parts: dict[str, list[str]] = {
        "Summary": (gen.summary or NONE).split("\n"),
        "Decisions": [c.render() for c in gen.decisions],
        "Open": [c.render() for c in gen.open],
        "Evidence": [c.render() for c in gen.evidence],
        "Carried forward": [c.render() for c in gen.carried],
    }
    out: list[str] = []
    for title in SECTIONS:
        out += ["", f"## {title}", *(parts[title] or [NONE])]
    return "\n".join(out) + "\n"


def digest_of(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def render_generation(gen: GenerationFile) -> str:
    """The file's text: same generation, same bytes (PROTOCOL §13)."""
    body = _body(gen)
    return "\n".join([*_header(gen), _DIGEST_PREFIX + digest_of(body)]) + "\n" + body


class GenerationError(ValueError):
    pass


def _cited_path(line: str) -> tuple[str, str, int] | None:
    """(text, root-relative note path, line number) of a cited line, either form."""
    linked = _LINKED_RE.match(line)
    if linked is not None:
        path = posixpath.normpath(posixpath.join(FOLDER, linked.group("href")))
        if posixpath.basename(path) != linked.group("name") or not path.startswith("memory/"):
            return None
        return linked.group("text"), path, int(linked.group("line"))
    found = _CITED_RE.match(line)
    if found is None:
        return None
    return found.group("text"), found.group("path"), int(found.group("line"))


def _cited(line: str, carried: bool) -> Cited:
    found = _cited_path(line)
    if found is None:
        raise GenerationError(f"line without a citation: {line[:50]!r}")
    (text, path, number), kind = found, ""
    if carried:
        kind, sep, rest = text.partition(": ")
        if kind not in CARRIED_KINDS or not sep:
            raise GenerationError(f"carried line is neither decision nor open: {line[:50]!r}")
        text = rest
    return Cited(text, path, number, kind)


def _field(line: str, name: str) -> str:
    if not line.startswith(name + ": "):
        raise GenerationError(f"expected '{name}: …', found {line[:40]!r}")
    return line[len(name) + 2 :]


def parse_generation(text: str) -> GenerationFile:
    """The generation *text* holds; `GenerationError` when it does not parse."""
    lines = text.split("\n")
    if len(lines) < 8 or lines[-1] != "":
        raise GenerationError("too short, or no newline at the end")
    title = re.match(r"^# (?P<slug>[a-z0-9-]+) — generation (?P<n>[1-9][0-9]*)$", lines[0])
    if title is None:
        raise GenerationError("line 1 must be '# <slug> — generation <N>'")
    covers = _field(lines[2], "Covers")
    previous = _field(lines[3], "Previous")
    _field(lines[5], "Digest")
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[6:-1]:
        if line.startswith("## "):
            current = sections.setdefault(line[3:], [])
        elif current is not None and line:
            current.append(line)
        elif line:
            raise GenerationError(f"text before the first section: {line[:40]!r}")
    if tuple(sections) != SECTIONS:
        raise GenerationError(f"sections must be {', '.join(SECTIONS)} in this order")

    def cited(title: str) -> tuple[Cited, ...]:
        rows = sections[title]
        if rows == [NONE]:
            return ()
        return tuple(_cited(row, title == "Carried forward") for row in rows)

    summary = "\n".join(sections["Summary"])
    return GenerationFile(
        slug=title.group("slug"),
        number=int(title.group("n")),
        created=_field(lines[1], "Created"),
        covers=() if covers == NONE else tuple(covers.split(", ")),
        previous=None if previous == NONE else previous,
        summary=None if summary == NONE else summary,
        decisions=cited("Decisions"),
        open=cited("Open"),
        evidence=cited("Evidence"),
        carried=cited("Carried forward"),
    )


def digest_problem(text: str) -> str | None:
    """Why the Digest line does not prove the bytes after it, or None."""
    _head, sep, body = text.partition("\n" + _DIGEST_PREFIX)
    if not sep:
        return "no Digest line"
    recorded, newline, rest = body.partition("\n")
    if not newline:
        return "nothing after the Digest line"
    if recorded != digest_of(rest):
        return "Digest does not match the bytes after it (the file was changed)"
    return None


def checked_generation(name: str, text: str) -> tuple[list[str], GenerationFile | None]:
    """(every reason the file *name* holding *text* is not an untouched generation,
    the generation when there is none).

    The Digest proves the body; the header above it must be exactly what the
    name and the body say it is (slug, N, created day, the days the Evidence
    cites, whether a summary stands).
    """
    named = NAME_RE.match(name)
    if named is None:
        return [f"name is not <slug>-gen<N>-<YYYY-MM-DD>.md: {name}"], None
    problem = digest_problem(text)
    if problem is not None:
        return [problem], None
    try:
        gen = parse_generation(text)
    except GenerationError as exc:
        return [str(exc)], None
    slug, number, created = named.group("slug"), int(named.group("n")), named.group("day")
    expected = GenerationFile(
        slug=slug,
        number=number,
        created=created,
        covers=tuple(sorted({c.day for c in gen.evidence})),
        previous=gen.previous,
        summary=gen.summary,
    )
    if text.split("\n")[:5] != _header(expected):
        return ["header does not agree with the file name and its Evidence"], None
    if (number == 1) != (gen.previous is None):
        return ["Previous must be none for gen1 and name generation N-1 otherwise"], None
    if gen.previous is not None:
        prev = NAME_RE.match(gen.previous.rsplit("/", 1)[-1])
        if (
            prev is None
            or prev.group("slug") != slug
            or int(prev.group("n")) != number - 1
            or not gen.previous.startswith("memory/consolidated/")
        ):
            return [f"Previous does not name {slug} generation {number - 1}"], None
    return [], gen


def generation_problems(name: str, text: str) -> list[str]:
    """Every reason the file *name* holding *text* is not an untouched generation."""
    return checked_generation(name, text)[0]
