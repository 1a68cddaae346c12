"""Query terms and how they are matched in the text (PROTOCOL §9 `search`).

A *term* is what the ranking counts. Terms come from the query only; the text
is never tokenised as a whole. Each term becomes one alternative of a single
regular expression that ripgrep (or the Python fallback) runs over the files,
so the scan itself tells which term matched where.

Rules:
- Latin and other alphabetic scripts: runs of word characters joined by ``-``
  or ``.`` stay one term (``group-identify``, ``v4.6.14``, ``10.0.0.5``). A term
  matches on word boundaries, and may be followed by up to four more word
  characters (``restart`` finds ``restarted``, ``container`` finds
  ``containers``) unless it holds a digit (``10.0.0.5`` never finds
  ``10.0.0.50``): a cheap stand-in for stemming that keeps ripgrep's literal
  prefilter fast. A term shorter than four letters takes only an inflection
  (``go`` finds ``goes`` and ``going``, never ``good``). A query word with a
  common English suffix is reduced to its stem first (``restarting`` →
  ``restart``), and the word as the query wrote it is an other form that counts
  whole (v4); an irregular form (``went`` for ``go``) is looked for too and
  counts as the word itself (`Term.form_of`).
- Accents are folded (``café`` is the term ``cafe``) and each letter's pattern
  takes its accented forms, so ``cafe``, ``Café`` and ``CAFÉ`` meet. A hyphen
  between letters is dropped from a term (``rate-limit`` is ``ratelimit``); the
  pattern of a long word takes an optional hyphen or space between parts of
  four letters or more, and two neighbouring query words also give their
  compound (``smart watch`` looks for ``smartwatch``). Matched texts are put in
  the same form before they are counted (`normalise`).
- Common English words (`STOPWORDS`) and single letters or digits are dropped
  from a query that has other terms.
- CJK scripts have no spaces between words: a run of one or two CJK characters
  is one term, matched anywhere; a longer run becomes its overlapping
  character pairs, so a two-character query finds its line.

Both pattern flavours used here (escapes of ASCII punctuation, ``\\b``, ``\\w``,
``{0,4}``) mean the same thing in Python's ``re`` and in ripgrep's Rust regex.
"""

from __future__ import annotations

import functools
import re
from itertools import pairwise

from memtier.search.accents import (
    ACCENTED,
    FOLD_LINE,
    ascii_classes,
    cheap_classes,
    folds_exactly,
)
from memtier.search.forms import (
    doubled_l_forms,
    irregular_forms,
    named,
    negated,
    number_forms,
    particle_joint,
    same_word_forms,
    short_endings,
    silent_e_forms,
)
from memtier.search.shapes import SHAPES, asks_for_a_planned_day, asks_for_a_time, shape_re
from memtier.search.wordcount import WORD_RE, count_words, reaches
from memtier.values import NamedTuple

# Han, Hiragana, Katakana, Hangul: scripts written without spaces.
_CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
)
_FIRST_CJK = chr(min(low for low, _ in _CJK_RANGES))
_FIRST_CJK_UTF8 = _FIRST_CJK.encode("utf-8")  # three bytes (`wordcount.reaches`)
_BELOW_CJK_LEAD = bytes(range(_FIRST_CJK_UTF8[0]))
# Plain classes only: a character-class regex over the CJK ranges costs milliseconds
# to compile, paid on every start, so CJK is told apart with `is_cjk` instead.
_WORD_RE = re.compile(r"\w+(?:[-.]\w+)*")
_SUFFIXES: tuple[str, ...] = ("ing", "ed", "es", "s", "ly")
_MIN_STEM = 4
_NOT_PLURAL = ("ss", "us", "is", "os", "as")
# How many extra word characters a Latin term may carry and still match.
EXTENSION = 4
_PUNCTUATION = frozenset("\\.+*?()|[]{}^$#&-~")
# Words that carry no meaning in a question; dropped unless the query is nothing else.
# Without this, "what port does qdrant use" would scan for "what" and "does" in every line.
STOPWORDS = frozenset(
    (
        "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
        "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between",
        "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during",
        "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her",
        "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is",
        "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not",
        "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out",
        "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the",
        "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those",
        "through", "to", "too", "under", "until", "up", "us", "very", "was", "we", "were", "what",
        "when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would",
        "you", "your", "yours", "yourself", "yourselves",
        # A modal or a hedge says how sure the asker is, never what about: "what might
        # John's status be", "would Caroline likely have" ("likely" is no form of "like").
        "might", "must", "likely", "probably", "possibly", "potentially", "perhaps",
    )
)  # fmt: skip


class Term(NamedTuple):
    """One query term: its normalised text (lowercase, accents folded, a hyphen
    between letters dropped), whether it is CJK, and where the query had a
    hyphen or space inside it (*joints*: offsets into *text*)."""

    text: str
    cjk: bool = False
    joints: tuple[int, ...] = ()
    compound: bool = False  # two query words joined: looked for, never required
    form_of: str = ""  # another form of this query term (met for meet): counts as it
    whole: bool = False  # found with its inflections only, as a short word is (v4)
    negation: bool = False  # the head of a negated auxiliary ("won" of "won't", v4)

    def shown(self) -> str:
        """The term as the query wrote it (its hyphens back), for ``matched_terms``."""
        if self.compound or not self.joints:
            return self.text
        cuts = (0, *self.joints, len(self.text))
        return "-".join(self.text[a:b] for a, b in pairwise(cuts))

    def body(self, first: str = "any") -> str:
        """The term as a pattern: accented forms of its letters, and an optional
        hyphen or space at its joints and, in a long word, between any two parts
        of four letters or more (``smartwatch`` finds ``smart watch``).

        *first* ``"ascii"`` keeps only the ASCII form of the first letter,
        ``"other"`` only its other forms (`scan_pattern`); "" when there is none."""
        if self.cjk:
            return escape(self.text)
        head = self.text[0]
        if first == "ascii" and not head.isascii():
            return ""
        if first == "other" and head.isascii() and head not in ACCENTED:
            return ""
        text = self.text
        joints = set(self.joints)
        # Two query words joined are found apart anyway: here only as one word or hyphened.
        joint = "-?" if self.compound else f"{_JOINT_CLASS}?"
        if text.isalpha() and len(text) >= 2 * _MIN_PART and not self.compound:
            joints.update(range(_MIN_PART, len(text) - _MIN_PART + 1))
        particle = particle_joint(text) if text.isalpha() and not self.compound else 0
        if particle:
            joints.add(particle)
        out: list[str] = []
        for i, ch in enumerate(text):
            if i in joints:
                out.append(joint)
            if i == 0 and first == "ascii":
                out.append(escape(ch))
            elif i == 0 and first == "other" and ch in ACCENTED:
                out.append(f"[{ACCENTED[ch]}]")
            else:
                out.append(_VARIANTS.get(ch) or escape(ch))
        return "".join(out)

    def pattern(self) -> str:
        """The term's exact pattern (`combined_pattern`); a shape word also takes
        its shape (`SHAPES`)."""
        body = self.body()
        if self.cjk:
            return body
        if self.text in SHAPES and not self.compound:
            return rf"\b{body}\w{{0,{EXTENSION}}}\b|{SHAPES[self.text]}"
        if self.text.isdigit() and len(self.text) <= 2:
            return rf"\b{body}(?:st|nd|rd|th)?\b"  # a day's number: 10 finds 10th (v4)
        if not self.text[-1].isalpha() or any(ch.isdigit() for ch in self.text):
            return rf"\b{body}\b"  # a version or an address is exact: 10.0.0.5 ≠ 10.0.0.50
        if len(self.text) < _MIN_STEM or self.whole:
            # A short word takes an inflection only (v4): "go" finds "goes" and "going",
            # never "good" or "got"; "art" finds "arts", not "artist". So does a word
            # written another way (`forms.same_word_forms`): "exam" never "example".
            return rf"\b{body}{short_endings(self.text, self.whole)}\b"
        return rf"\b{body}\w{{0,{EXTENSION}}}\b"


# Accents (`accents.ACCENTED`): each plain letter's class takes its accented forms.
_VARIANTS = {plain: f"[{plain}{forms}]" for plain, forms in ACCENTED.items()}
# What a word's joint may hold: a hyphen or a space (`Term.body`).
_JOINT_CLASS = "[- ]"
# The classes of the ranking's pattern that take an accented letter exactly when they
# take its plain letter: the accent classes, and the joint's, which takes neither.
_FOLDING_CLASSES = frozenset((*_VARIANTS.values(), _JOINT_CLASS))
_MIN_PART = 4  # the shortest part of a compound split at an optional hyphen or space
_MIN_HYPHEN_PART = 3  # the shortest part of a query's hyphened word found apart too
_JOINED_RE = re.compile(r"(?<=[^\W\d_])[- ](?=[^\W\d_])")
_JOINED_BYTES_RE = re.compile(rb"(?<=[a-z])[- ](?=[a-z])")


def fold(text: str) -> str:
    """Lowercase with accents folded: the form terms are compared in (the line fold,
    `accents.FOLD_LINE`, whose capitals the lowercasing has already taken)."""
    return text.lower().translate(FOLD_LINE)


def normalise(matched: str) -> str:
    """A matched text in a term's form: folded, a hyphen or space between letters dropped."""
    return _JOINED_RE.sub("", fold(matched))


def normalise_bytes(body: bytes) -> bytes:
    """`normalise` for a scan's matched texts (one per line), in bytes: what the
    per-file counts are taken from, by both scanners alike."""
    if not body.isascii():
        body = _JOINED_RE.sub("", fold(body.decode("utf-8", "replace"))).encode("utf-8")
        return body
    body = body.lower()
    if b"-" in body or b" " in body:
        body = _JOINED_BYTES_RE.sub(b"", body)
    return body


def escape(text: str) -> str:
    """Escape regex punctuation the same way for Python ``re`` and ripgrep."""
    return "".join("\\" + ch if ch in _PUNCTUATION else ch for ch in text)


_UNDOUBLE = frozenset(("ing", "ed", "ings"))


def stem(word: str) -> str:
    """Strip one common English suffix when a word of some length remains."""
    if not word.isalpha():
        return word
    if word in STOPWORDS:
        return word
    if len(word) == _MIN_STEM and word.endswith("s") and not word.endswith(_NOT_PLURAL):
        return word[:-1]  # a short plural (v4): "cats" finds "cat", "dogs" "dog's"
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            if suffix == "s" and word.endswith(("ss", "us")):
                return word  # "status", "famous": no plural (v4; "statu" before)
            base = word[: -len(suffix)]
            if suffix in _UNDOUBLE and base[-1] == base[-2] and base[-1] not in "aeiouylsz":
                return base[:-1]  # "running" finds "run", "planned" "plan" (Porter's 1b)
            return base
    return word


# Words that frame a question rather than say what it is about ("what kind of",
# "did she mention", "what happened"): still searched for, but weighed
# `FRAME_WEIGHT` of their idf, so in a short query they cannot outweigh the one
# word that matters. Listed in the form `stem` leaves them.
FRAME_WORDS = frozenset(
    (
        "kind", "sort", "type", "mention", "say", "said", "says", "tell", "told", "happen",
        "talk", "talked", "done", "thing", "things", "stuff", "remember", "know", "think",
        "ask", "asked", "note", "noted", "write", "wrote", "chat", "describe", "describ",
        "accord", "regard",
    )
)  # fmt: skip
FRAME_WEIGHT = 0.25

# Words that ask for the newest occurrence ("when did we last renew the cert"): they
# say which note is wanted rather than what it contains, so they raise the recency
# boost (`rank.RECENT_QUERY_BONUS`) instead of being searched for.
RECENT_WORDS = frozenset({"last", "latest", "lately", "newest", "recent", "recently"})


def wants_recent(query: str) -> bool:
    return any(word in RECENT_WORDS for word in WORD_RE.findall(query.lower()))


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def _pieces(word: str) -> list[tuple[str, bool]]:
    """*word* cut into its CJK and non-CJK runs."""
    runs: list[tuple[str, bool]] = []
    for ch in word:
        cjk = is_cjk(ch)
        if runs and runs[-1][1] == cjk:
            runs[-1] = (runs[-1][0] + ch, cjk)
        else:
            runs.append((ch, cjk))
    return runs


def _latin_term(text: str) -> Term | None:
    text = fold(text).strip("-.")
    if not text:
        return None
    if any(ch.isdigit() for ch in text):
        return Term(stem(text))
    joints: list[int] = []
    pieces = text.split("-")
    # Parts of three letters or more (v4; four before): "ice-cream" also finds "ice
    # cream" and "icecream", "pet-friendly" "pet friendly"; "e-mail" and "co-op" stay
    # one hyphened word.
    if len(pieces) > 1 and all(p.isalpha() and len(p) >= _MIN_HYPHEN_PART for p in pieces):
        for piece in pieces[:-1]:
            joints.append((joints[-1] if joints else 0) + len(piece))
        text = "".join(pieces)
    return Term(stem(text), joints=tuple(joints))


def _parts(term: Term) -> list[str]:
    """The parts of a hyphened word (`Term.joints`), each in a term's form; stopwords and
    question-frame words left out."""
    cuts = (0, *term.joints, len(term.text))
    parts = [stem(term.text[a:b]) for a, b in pairwise(cuts)]
    return [p for p in parts if p not in STOPWORDS and p not in FRAME_WORDS]


# "How many" asks for a count, which the text gives as a number ("twice", "three
# dogs"), never as "many" (v4): the word is dropped. "How long", "how old" and "how
# often" keep theirs, which answers say ("a long time", "years old", "often").
_HOW_MANY_RE = re.compile(r"\b(how)\s+many\b", re.IGNORECASE)
_MEASURE_RE = re.compile(r"(\d{2,}(?:\.\d+)?)[a-z]{1,3}")


def query_terms(query: str) -> tuple[Term, ...]:
    """The distinct terms of *query*, in order of first appearance, stopwords dropped.

    Two neighbouring words also give their compound (``smart watch`` also looks
    for ``smartwatch``, whose pattern finds ``smart-watch`` too)."""
    found: list[Term] = []
    previous: Term | None = None
    previous_word = ""
    written = _HOW_MANY_RE.sub(r"\1", query)
    lowered = written.lower()
    if len(lowered) != len(written):
        written = lowered  # a letter whose lowercase is longer: no names told apart
    for match in _WORD_RE.finditer(lowered):
        if negated(lowered, match.end()):
            found.append(Term(fold(match.group()), negation=True))
            previous = None
            continue
        for text, cjk in _pieces(match.group()):
            if cjk:
                pairs = (
                    [text] if len(text) <= 2 else [text[i : i + 2] for i in range(len(text) - 1)]
                )
                candidates = [Term(pair, cjk=True) for pair in pairs]
                previous = None
            else:
                term = _latin_term(text)
                candidates = [term] if term else []
                unit = _MEASURE_RE.fullmatch(term.text) if term else None
                if unit:
                    # A measure's number alone too (v4): 177cm finds 177厘米 and 177 cm.
                    candidates.append(Term(unit.group(1), compound=True))
                if term and term.joints:
                    # A hyphened word's parts are words too (v4): "card-playing" also
                    # finds "card-night", "transgender-specific" "transgender poetry".
                    candidates += [Term(part, compound=True) for part in _parts(term)]
                if term and term.text not in FRAME_WORDS:
                    # Other forms are looked for, never required (as a compound is).
                    forms = irregular_forms(fold(text), term.text) + number_forms(term.text)
                    if not term.joints:  # a hyphened name ("docker-compose") is no verb
                        name = named(written, match.start())
                        meant = term.text not in STOPWORDS and not name
                        forms += silent_e_forms(term.text) if meant else ()
                        forms += doubled_l_forms(term.text)
                        surface = fold(text).strip("-.")
                        if surface != term.text and surface.isalpha():
                            forms += (surface,)  # the query's own word counts whole
                    candidates += [Term(form, compound=True, form_of=term.text) for form in forms]
                    candidates += [
                        Term(form, compound=True, form_of=term.text, whole=True)
                        for form in same_word_forms(fold(text), term.text)
                    ]
                if term and previous and _joinable(previous, term):
                    head = fold(previous_word).strip("-.")
                    candidates.append(Term(head + term.text, joints=(len(head),), compound=True))
                previous, previous_word = (term, text) if term else (None, "")
            found.extend(t for t in candidates if t not in found)
    # One term per text: a word the query says is its own term, never also another
    # word's form or a compound ("go … gone" gave "gone" twice, and the scan counted
    # each file of it twice: a document frequency above the number of files).
    plain = {t.text for t in found if not t.compound}
    kept: dict[str, Term] = {}
    for t in found:
        if t.text not in kept and not (t.compound and t.text in plain):
            kept[t.text] = t
    found = list(kept.values())
    # A stopword or a lone Latin letter or digit ("what's" gives "s") would match
    # nearly every line; such terms count only when the query has nothing else.
    meaningful = [
        t
        for t in found
        if t.text not in STOPWORDS
        and t.text not in RECENT_WORDS
        and (t.cjk or len(t.text) > 1 or number_forms(t.text))
    ]
    if meaningful and asks_for_a_time(query) and Term("time") not in meaningful:
        meaningful.append(Term("time"))
    if meaningful and asks_for_a_day(query) and Term("yesterday") not in meaningful:
        meaningful.append(Term("yesterday"))
    if meaningful and asks_for_a_planned_day(query) and Term("tomorrow") not in meaningful:
        meaningful.append(Term("tomorrow"))
    return tuple(meaningful or found)


_PAST_WHEN_RE = re.compile(r"\bwhen\s+(?:did|was|were|had)\b")


def asks_for_a_day(query: str) -> bool:
    """Whether *query* asks when something happened ("when did", "when was"): then a
    line telling the day relative to its note ("yesterday", "last Friday") answers it
    (`TOLD_DAY`). Not a question for the newest ("when did we last…", `wants_recent`):
    the newest note's own date answers that, whatever its lines say."""
    return _PAST_WHEN_RE.search(query.lower()) is not None and not wants_recent(query)


def _joinable(first: Term, second: Term) -> bool:
    """Two words that could be written as one: both plain words, neither a stopword."""
    return (
        first.text != second.text
        and first.text.isalpha()
        and second.text.isalpha()
        and not first.joints
        and not second.joints
        and len(first.text) >= 3
        and len(second.text) >= 3
        and first.text not in STOPWORDS
        and second.text not in STOPWORDS
        and first.text not in FRAME_WORDS
        and second.text not in FRAME_WORDS
    )


def _longest_first(terms: tuple[Term, ...]) -> list[Term]:
    return sorted(terms, key=lambda t: (-len(t.text), t.text))


def combined_pattern(terms: tuple[Term, ...]) -> str:
    """The exact alternation (word boundaries, short endings), longest term first."""
    return "|".join(t.pattern() for t in _longest_first(terms))


@functools.lru_cache(maxsize=64)
def precise_re(terms: tuple[Term, ...], ascii_text: bool = False) -> re.Pattern[str]:
    """`combined_pattern`, compiled once per process for the same terms (the tool
    server answers many searches), its accent classes as `accents.cheap_classes`;
    *ascii_text*: for ASCII text only (most lines), `accents.ascii_classes`, the
    quickest to compile and to match."""
    rewrite = ascii_classes if ascii_text else cheap_classes
    return re.compile(rewrite(combined_pattern(terms)), re.IGNORECASE)


@functools.lru_cache(maxsize=64)
def folds_to_ascii(terms: tuple[Term, ...]) -> bool:
    """Whether a line without CJK text is matched exactly by `precise_re` for ASCII
    text once its accented letters are folded (`accents.FOLD_LINE`): true unless a
    term's pattern names a plain letter outside its accent class (a short word's
    endings, a day's ordinal, a shape) or a letter outside ASCII (`accents.folds_exactly`)."""
    return folds_exactly(combined_pattern(terms), _FOLDING_CLASSES)


def _cjk_class() -> str:
    return "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES)


@functools.lru_cache(maxsize=8)
def beside_cjk(pattern: str) -> re.Pattern[str]:
    """*pattern* (`combined_pattern`'s) for a line holding CJK text (v4): a CJK
    character ends a word there, as a space does, so ``41`` finds ``今年41岁`` and a
    Latin word's ending never runs into the CJK text after it. Compiled only for a
    line that needs it (the class over the CJK ranges costs milliseconds). The
    classes are matched with case (``(?-i:…)``): no character of the CJK ranges has
    a case, and case-blind, the compiler folded every one of them, about five times
    the compile."""
    cjk = _cjk_class()
    edge = rf"(?:\b|(?<=(?-i:[{cjk}]))|(?=(?-i:[{cjk}])))"
    tail = rf"(?-i:[^\W{cjk}]){{0,{EXTENSION}}}"
    return re.compile(
        pattern.replace(rf"\w{{0,{EXTENSION}}}", tail).replace(r"\b", edge), re.IGNORECASE
    )


def cjk_matches(text: str, terms: tuple[Term, ...]) -> list[tuple[int, Term]]:
    """Every occurrence of each CJK term in *text*, overlapping ones too (v4): on
    ``会的时间是`` the pairs ``会的``, ``的时``, ``时间`` and ``间是`` all count,
    where one pass of an alternation takes ``会的`` and ``时间`` only."""
    found: list[tuple[int, Term]] = []
    for term in terms:
        if not term.cjk:
            continue
        start = text.find(term.text)
        while start >= 0:
            found.append((start, term))
            start = text.find(term.text, start + 1)
    return sorted(found, key=lambda item: item[0])


def has_cjk(text: str) -> bool:
    return reaches(text, _FIRST_CJK_UTF8, _BELOW_CJK_LEAD)  # max(text) >= _FIRST_CJK


# ASCII word boundaries in ripgrep's syntax (`scanner` writes them in Python's for `re`).
ASCII_BOUNDARY = r"(?-u:\b)"
ASCII_NON_BOUNDARY = r"(?-u:\B)"


def scan_pattern(terms: tuple[Term, ...]) -> str:
    """The terms for the scan, each anchored at the start of a word (a CJK term,
    anywhere): ``art`` is then found in ``artist`` but not in ``start``, so the
    document frequency the scan reports counts words, not substrings. The end of
    the word is left open, which keeps ripgrep on its literal prefilter (measured:
    no slower than the bare alternation; the full word-boundary form is twice as
    slow on common words); `combined_pattern` checks the ending in the files read.

    The word start is ASCII's (PROTOCOL §9 v3, measured): a Unicode ``\\b`` in front
    of the accent classes made ripgrep 2.7 times slower on notes with some
    non-ASCII text (4.0 against 1.5 times ``rg -l`` at 10,000 notes), since its
    fast engine gives up on such text. A term whose first letter is written
    accented (``Über`` for ``uber``) is then anchored where no ASCII word
    boundary is (after a space, a dash or another non-ASCII letter). Approximation:
    a term right after a non-ASCII letter (``éqdrant``) counts as a word start;
    the ranking checks real word boundaries in the files it reads."""
    ordered = [t for t in _longest_first(terms) if not t.cjk]
    plain = [body for t in ordered if (body := t.body("ascii"))]
    other = [body for t in ordered if (body := t.body("other"))]
    return "|".join(at_word_starts(plain, other) + cjk_runs(terms))


def cjk_runs(terms: tuple[Term, ...]) -> list[str]:
    """The scan's alternative for the CJK terms: a run of their characters (v4). An
    alternation of the pairs takes them left to right without overlap (``会的`` and
    ``时间`` of ``会的时间是``, never ``的时``), so the per-file counts missed pairs;
    every occurrence of a pair lies inside a longest run of the query's characters,
    which is what this matches, and the counts are taken in it with overlaps
    (`overlapping`)."""
    cjk = [t.text for t in terms if t.cjk]
    if not cjk:
        return []
    chars = "".join(sorted(set("".join(cjk))))
    least = "+" if min(map(len, cjk)) < 2 else "{2,}"
    return [f"[{chars}]{least}" if len(chars) > 1 else f"{chars}{least}"]


def at_word_starts(plain: list[str], other: list[str], rest: str = "") -> list[str]:
    """Alternatives anchored where a word starts, each followed by *rest*: *plain*
    (beginning with an ASCII letter) at an ASCII word boundary, *other* (beginning
    with a non-ASCII one) where no ASCII boundary is (see `scan_pattern`)."""
    parts = [rf"{ASCII_BOUNDARY}(?:{'|'.join(plain)}){rest}"] if plain else []
    if other:
        parts.append(rf"{ASCII_NON_BOUNDARY}(?:{'|'.join(other)}){rest}")
    return parts


def python_pattern(pattern: str) -> str:
    """*pattern* (`scan_pattern`'s) in Python's syntax for the same ASCII boundaries."""
    return pattern.replace(ASCII_BOUNDARY, r"(?a:\b)").replace(ASCII_NON_BOUNDARY, r"(?a:\B)")


def re2_pattern(pattern: str) -> str:
    """*pattern* in RE2's syntax for the same boundaries (RE2's are ASCII's)."""
    return pattern.replace(ASCII_BOUNDARY, r"\b").replace(ASCII_NON_BOUNDARY, r"\B")


def term_of(matched: str, terms: tuple[Term, ...]) -> Term | None:
    """The query term a matched piece of text belongs to (None if none does)."""
    lowered = normalise(matched)
    best: Term | None = None
    for term in terms:
        if lowered.startswith(term.text) and (best is None or len(term.text) > len(best.text)):
            best = term
    if best is None:
        for t in terms:
            if t.text in SHAPES and not t.compound:
                shape = shape_re(t.text)
                if shape.fullmatch(lowered) or shape.fullmatch(fold(matched)):
                    return t
    return best


def exactness(matched: str, term: Term) -> float:
    """1.0 for the word itself (or, for a shape word, its shape), less for a longer
    word that merely starts with it."""
    lowered = normalise(matched)
    if len(lowered) == len(term.text) or not lowered.startswith(term.text):
        return 1.0
    return 0.7


def length_in_words(text: str) -> int:
    """The length of a piece of text for BM25: words, with each CJK character one word."""
    words = count_words(text)
    if not has_cjk(text):
        return words  # no CJK character (the common case, also for accented text)
    return words + len(_cjk_re().findall(text))


@functools.cache
def _cjk_re() -> re.Pattern[str]:
    """One CJK character. Compiled on the first text that may hold one (it costs ~4 ms,
    which a call on plain text never pays); a line with an emoji or a CJK word is then
    counted by the regex engine, not character by character in Python (25× faster)."""
    return re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES) + "]")
