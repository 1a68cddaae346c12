"""Other forms of a query word that English spelling hides from a term's open ending
(`tokens.query_terms`, PROTOCOL §9 `search`): a silent final e and a doubled l. Each is
looked for beside the word and counts as it (`tokens.Term.form_of`); the caller leaves
stopwords and names (`named`) without a silent e's form. Also the head of a negated
auxiliary (`negated`), which an apostrophe cuts off and which is no word of its own."""

from __future__ import annotations

import re

# English drops a word's silent final e before -ing and -ed: a term of the word finds
# "dances" and "danced" by its open ending, never "dancing"; a term of "hiking" or
# "baked", kept whole since its stem is too short to stand (`stem`), never "hike".
_SHORT_CVC_RE = re.compile(r"([^aeiou][aeiou][^aeiouwxy])(?:ing|ed)")


def silent_e_forms(word: str) -> tuple[str, ...]:
    """The other form of a query word that a silent final e hides (`Term.form_of`):
    ``dance`` → ``dancing``, ``hiking`` and ``hiked`` → ``hike``; () for the rest."""
    if not word.isalpha():
        return ()
    if len(word) >= 3 and word[-1] == "e" and word[-2] not in "aeiou":
        return (word[:-1] + "ing",)
    short = _SHORT_CVC_RE.fullmatch(word)
    return (short.group(1) + "e",) if short else ()


def doubled_l_forms(word: str) -> tuple[str, ...]:
    """British spelling doubles a final l after one vowel before -ing and -ed (travelling,
    modelled), American does not: a stem that kept the doubled l (`stem` never undoubles
    an l, since falling is fall) also looks for the word with one (travell → travel)."""
    if word.isalpha() and len(word) >= 6 and word.endswith("ll") and word[-3] in "aeiou":
        return (word[:-1],)
    return ()


# What may end a sentence before a word: a capital after it is no name (`named`).
# Compiled on first use, by re's own cache: only a query with a capital needs it.
_SENTENCE_END = r"(?:^|[.!?:]\s*|[\"“„(]\s*)$"


def named(written: str, start: int) -> bool:
    """Whether the word at *start* of a query as written is a name: capitalised where no
    sentence starts ("What did Nate win?"). A name has no -ing form to look for
    (`silent_e_forms`: "Nate" gave "nating", "Caroline" "carolining")."""
    return written[start : start + 1].isupper() and not re.search(_SENTENCE_END, written[:start])


def negated(text: str, end: int) -> bool:
    """Whether the word matched up to *end* in *text* is the head of a negated
    auxiliary (the ``won`` of ``won't``): it ends in n, then an apostrophe and a t
    end the word. The apostrophe cuts such a word, and its head is no word of its
    own (v4): "won't" gave "won", a form of "win", and "don't" the name "Don". In a
    query the head is a term of its own, with no other forms, and in the text it
    counts only for such a term (`Term.negation`): "couldn't" still finds "couldn't"."""
    return (
        end >= 1
        and text[end - 1 : end].lower() == "n"
        and text[end : end + 1] in ("'", "\u2019")
        and text[end + 1 : end + 2].lower() == "t"
        and not text[end + 2 : end + 3].isalnum()
    )
