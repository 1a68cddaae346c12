"""Pure text rules of facts (PROTOCOL §10): normalisation, near-duplicates, headers.

One normalisation serves both the duplicate check of `remember` / `replace` and
the recurrence count of `learn` (PROTOCOL §2, §10): the text as people read it
(`read_as_people_do`: NFKC, invisible format characters such as zero-width and
bidirectional controls removed, Cyrillic and Greek look-alikes of Latin letters
folded), lowercase, every run of punctuation and space folded into one space, so
``rate limit !``, ``rate-limit`` and ``ｒａｔｅ limit`` are the same text.
Near-duplicates compare word sets with the Jaccard index.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from memtier.formats.tags import format_tag_line, is_tag_line, parse_tag_line

NEAR_DUPLICATE_THRESHOLD = 0.85
HOT_HEADER_LINES = 4
WARM_HEADER_LINES = 3

# Punctuation and underscores fold like spaces; letters and digits of any script stay.
# ASCII goes through a translation table (ten times faster than the regex, and the
# duplicate check folds every HOT and WARM line on every write); the regex handles
# the rest of Unicode when a text has any.
_FOLD = re.compile(r"[^\w\n]+|_+", re.UNICODE)
_ASCII_FOLD = str.maketrans(
    {c: " " for c in (*map(chr, range(32)), chr(127), *"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
     if c != "\n"}
)  # fmt: skip
_LAST_VERIFIED = re.compile(r"^(> )?last_verified:")
TOPIC_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# A tag is split out of a #tags: line on spaces, commas and "|" (PROTOCOL §2), and is
# written into memtier.toml as a TOML string: none of those may appear in one.
TAG_RE = re.compile(r'^[^\s,|"\\#\[\]]+$')


# Cyrillic and Greek letters that a reader takes for Latin ones, each case mapped
# as it looks (uppercase Greek Eta is an H, its lowercase is not). Each script's
# letters map to distinct Latin letters, so two Cyrillic facts still differ where
# their letters differ.
_LOOK_ALIKES = str.maketrans(
    # Cyrillic А В Е К М Н О Р С Т У Х Ѕ І Ј Ԛ Ԝ Ӏ, а е о р с у х ѕ і ј ԁ ԛ ԝ һ ӏ ѵ
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425"
    "\u0405\u0406\u0408\u051a\u051c\u04c0"
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u0501\u051b"
    "\u051d\u04bb\u04cf\u0475"
    # Greek Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ, α ι κ ν ο ρ υ χ
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4"
    "\u03a5\u03a7"
    "\u03b1\u03b9\u03ba\u03bd\u03bf\u03c1\u03c5\u03c7",
    "ABEKMHOPCTYXSIJQWIaeopcyxsijdqwhlvABEZHIKMNOPTYXaikvopux",
)


def read_as_people_do(text: str) -> str:
    """*text* as a reader sees it (issue 19, PROTOCOL §10): NFKC (a decomposed
    accent, fullwidth or ligature letters become the plain ones), invisible format
    characters removed (zero-width spaces and joiners, bidirectional controls, soft
    hyphens), Cyrillic and Greek look-alikes folded to Latin letters, lowercase.
    Line breaks are kept. ASCII text is only lowered (none of this changes it)."""
    if text.isascii():
        return text.lower()
    visible = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    looked = unicodedata.normalize("NFKC", visible).translate(_LOOK_ALIKES)
    # NFKC again after lowering: a compatibility character may stand for an
    # uppercase letter (U+3392 is "MHz"), and lowering may undo a composition.
    return unicodedata.normalize("NFKC", looked.lower()).lower().translate(_LOOK_ALIKES)


def has_word_character(text: str) -> bool:
    """True when *text*, as people read it, holds a letter or a digit (PROTOCOL §10:
    ``---`` or a lone zero-width space is not a fact)."""
    return any(ch.isalnum() for ch in read_as_people_do(text))


def _fold_chars(text: str) -> str:
    """*text* as people read it, with every punctuation or control character
    (newlines kept) and every underscore turned into a space."""
    folded = read_as_people_do(text).translate(_ASCII_FOLD)
    return folded if folded.isascii() else _FOLD.sub(" ", folded)


def fold_text(text: str) -> str:
    """Lowercase, punctuation and runs of space folded to single spaces, trimmed."""
    return " ".join(_fold_chars(text).split())


def fold_lines(text: str) -> list[str]:
    """`fold_text` of every line of *text* (split on ``\n``), in order: one pass
    over a whole file instead of one per line."""
    return [" ".join(line.split()) for line in _fold_chars(text).split("\n")]


def normalise_fact(line: str) -> str:
    """The text two fact lines share when they state the same fact (PROTOCOL §10).

    A bullet (``-``, ``*``, ``+``) is punctuation, so the fold drops it too: this is
    `fold_text`, and `fold_lines` gives the same for a whole file.
    """
    return fold_text(line)


def word_set(normalised: str) -> frozenset[str]:
    return frozenset(normalised.split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0.0 when both are empty."""
    union = a | b
    if not union:
        return 0.0
    return len(a & b) / len(union)


def is_fence(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith("```") or stripped.startswith("~~~")


def fact_lines(lines: Sequence[str], header_lines: int) -> list[tuple[int, str]]:
    """(1-based number, line) of every line a fact could stand on: past the header,
    not blank, not a heading, not a code fence."""
    found: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        if index < header_lines or not line.strip() or line.startswith("#") or is_fence(line):
            continue
        found.append((index + 1, line))
    return found


def warm_header(title: str, tags: Sequence[str], today: str) -> str:
    """The three header lines of a new WARM file (PROTOCOL §2) and a blank line."""
    return f"# {title}\n{format_tag_line(tags)}\n> last_verified: {today}\n\n"


def topic_title(topic: str) -> str:
    words = [w for w in re.split(r"[-_.\s]+", topic) if w]
    return " ".join(words).capitalize() or topic


def refresh_last_verified(lines: list[str], today: str) -> str | None:
    """Set the first ``last_verified:`` line (quoted or plain) to *today*, in place.

    Returns the previous value (stripped), or None when the file had no such
    line, in which case one is inserted under the title and tags lines.
    """
    for index, line in enumerate(lines):
        match = _LAST_VERIFIED.match(line)
        if match:
            previous = line[match.end() :].strip()
            lines[index] = f"{match.group(1) or ''}last_verified: {today}"
            return previous
    at = 2 if len(lines) > 1 and is_tag_line(lines[1]) else min(1, len(lines))
    lines.insert(at, f"> last_verified: {today}")
    return None


def merge_tags_line(line: str, tags: Sequence[str]) -> str:
    """A ``#tags:`` line with *tags* added after the ones it has (none repeated)."""
    have = parse_tag_line(line) or ()
    return format_tag_line(dict.fromkeys([*have, *tags]))


def section_insert_index(lines: list[str], heading: str, start: int) -> int | None:
    """Where a line goes at the end of the ``## heading`` section (index into *lines*),
    or None when no such heading stands at or after *start*. Headings compare
    case-insensitively, spacing folded."""
    wanted = " ".join(heading.split()).lower()
    for index in range(start, len(lines)):
        line = lines[index]
        if line.startswith("## ") and " ".join(line[3:].split()).lower() == wanted:
            end = index + 1
            while end < len(lines) and not re.match(r"^#{1,2}\s", lines[end]):
                end += 1
            while end > index + 1 and not lines[end - 1].strip():
                end -= 1
            return end
    return None


def end_insert_index(lines: list[str], start: int) -> int:
    """After the last non-blank line, never inside the header."""
    end = len(lines)
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


_FALLBACK_TAGS = ("fixes", "workflow", "memory")


def default_topic_tags(topic: str, vocabulary: Sequence[str]) -> list[str]:
    """Tags for a new procedural file given none: the topic's words that are in the
    vocabulary, else the first of a few generic tags that is."""
    allowed = set(vocabulary)
    words = [w for w in re.split(r"[-_.\s]+", topic) if w]
    tags = list(dict.fromkeys(w for w in words if w in allowed))
    if not tags:
        tags = [t for t in _FALLBACK_TAGS if t in allowed][:1]
    return tags
