"""Other forms of a query word that English spelling hides from a term's open ending
(`tokens.query_terms`, PROTOCOL §9 `search`): a silent final e and a doubled l. Each is
looked for beside the word and counts as it (`tokens.Term.form_of`); the caller leaves
stopwords and names (`named`) without a silent e's form. Irregular forms (met for meet,
children for child) come from a small table (`irregular_forms`). Also the head of a negated
auxiliary (`negated`), which an apostrophe cuts off and which is no word of its own."""

from __future__ import annotations

import re
from collections.abc import Iterable

# Irregular forms the suffix rule cannot reach (met/meet, children/child): a query
# word in one of these groups also looks for the others. Forms that are common
# words of their own are left out ("left", "saw", "found", "felt", "rose", "fell").
# The Snowball stemmer and the simplemma lemmatiser were measured against this on
# the recall bench: neither reaches a past form from a base form, so neither helped.
_IRREGULAR_GROUPS = (
    "meet met", "lose lost", "win won", "grow grew grown", "child children", "buy bought",
    "sell sold", "write wrote written", "run ran", "break broke broken",
    "forget forgot forgotten", "teach taught", "bring brought", "catch caught",
    "give gave given", "take took taken", "speak spoke spoken",
    "keep kept", "send sent", "spend spent", "build built", "begin began begun",
    "choose chose chosen", "drive drove driven", "eat ate eaten", "fly flew flown",
    "ride rode ridden", "sing sang sung", "swim swam swum", "throw threw thrown",
    "wear wore worn", "pay paid", "hold held", "stand stood", "understand understood",
    "man men", "woman women", "mouse mice", "foot feet", "tooth teeth", "person people",
    # (v4) More verbs' past forms, and a few plurals in -ves.
    "make made", "get got gotten", "come came", "think thought", "hear heard",
    "sleep slept", "feed fed", "become became", "draw drew drawn", "hang hung",
    "lend lent", "lead led", "mean meant", "steal stole stolen", "freeze froze frozen",
    "hide hid hidden", "wake woke woken", "shake shook shaken", "dig dug", "stick stuck",
    "swing swung", "seek sought", "fight fought", "flee fled", "forgive forgave forgiven",
    "sit sat", "see seen", "fall fallen", "rise risen", "lay laid", "tear tore torn",
    "blow blew blown", "drink drank drunk", "deal dealt", "learn learnt", "dream dreamt",
    "burn burnt", "spell spelt", "smell smelt", "sweep swept", "weep wept", "leap leapt",
    "go goes went gone", "wife wives", "knife knives", "shelf shelves", "half halves",
    "wolf wolves", "thief thieves", "scarf scarves",
)  # fmt: skip


def _others(groups: Iterable[tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """Each form of each group, to the other forms of its group."""
    return {
        form: tuple(other for other in group if other != form) for group in groups for form in group
    }


# (v4) One word written short, informally or in the other English spelling: a chat
# says "gf" and "tourney", a question "girlfriend" and "tournament". Each is another
# form of the others, as an irregular form is. Clippings with a second common meaning
# are left out ("vet": veteran, "doc": document, "app": an application).
_SAME_WORD_GROUPS = (
    "girlfriend gf", "boyfriend bf", "kid child children", "mom mum mommy mother",
    "dad daddy father", "grandma granny grandmother", "grandpa grandfather", "husband hubby",
    "movie film", "photo pic photograph", "tournament tourney", "festival fest", "birthday bday",
    "conversation convo", "congratulations congrats", "information info",
    "refrigerator fridge", "math maths mathematics", "university uni", "bicycle bike",
    "television tv", "telephone phone", "airplane aeroplane plane", "examination exam",
    "laboratory lab", "favorite favourite fave fav", "color colour", "center centre",
    "theater theatre", "gray grey", "neighbor neighbour", "humor humour",
    "organize organise", "realize realise", "apologize apologise", "puppy pup",
    "vacation vacay", "business biz", "brother bro", "sister sis", "gymnasium gym",
    "vegetable vegetables veggie veggies", "demonstration demo", "rehabilitation rehab",
    "teenager teen", "microphone mic", "professor prof", "pajamas pyjamas",
    "jewelry jewellery", "mustache moustache", "cozy cosy", "program programme",
    "traveler traveller",
)  # fmt: skip
_IRREGULAR = _others(tuple(group.split()) for group in _IRREGULAR_GROUPS)
_SAME_WORD = _others(tuple(group.split()) for group in _SAME_WORD_GROUPS)


def irregular_forms(word: str, stem: str) -> tuple[str, ...]:
    """The irregular forms of a query word as written (folded), else of its stem or of
    the word its silent e hides (v4): "winning" finds "won", "making" "made"."""
    return _looked_up(_IRREGULAR, word, stem)


def same_word_forms(word: str, stem: str) -> tuple[str, ...]:
    """The other ways of writing a query word (`_SAME_WORD_GROUPS`), looked up as
    `irregular_forms` are. Each is found with its inflections only (`tokens.Term.whole`):
    "exam" for "examination" never finds "example", nor "plane" "planet". A form whose
    silent e English drops before -ing has that form too ("bike": "biking"), and a stem
    that lost its e is looked up with it ("organizing": "organize", so "organising")."""
    restored = (stem + "e",) if len(stem) >= 5 and stem.isalpha() and stem[-1] != "e" else ()
    found = _looked_up(_SAME_WORD, word, stem, restored)
    return tuple(f for form in found for f in (form, *silent_e_forms(form)))


def _looked_up(
    table: dict[str, tuple[str, ...]], word: str, stem: str, more: tuple[str, ...] = ()
) -> tuple[str, ...]:
    for base in (word, stem, *silent_e_forms(stem), *more):
        if base in table:
            return table[base]
    return ()


# A number is written as a word or in digits, "three dogs" or "3 dogs" (v4): each also
# looks for the other, as another form of the query's word; "two" and "three" also
# "twice" and "thrice" (a thing done two times), and those the numbers.
_NUMBERS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen", "twenty",
)  # fmt: skip
_TIMES = {"two": "twice", "three": "thrice"}
_NUMBER_GROUPS = [
    (word, str(n), *filter(None, [_TIMES.get(word)])) for n, word in enumerate(_NUMBERS)
]
_NUMBER_FORMS = _others(_NUMBER_GROUPS)


def number_forms(word: str) -> tuple[str, ...]:
    """The other forms of a number up to twenty: its digits, its word, "twice"."""
    return _NUMBER_FORMS.get(word, ())


def short_endings(word: str, whole: bool = False) -> str:
    """The endings a word shorter than four letters (`tokens._MIN_STEM`) may carry in
    the text: -s, -es, -ed, -ing, the last two also after its last letter doubled when
    that is a consonant (run: running; plan: planned). Only that letter: "pic" never
    finds "picked", nor "uni" "united". A word written another way (*whole*,
    `same_word_forms`) takes -s, -es, -d, -ed and -ing, nothing doubled: "kid" (of
    "child") never finds "kidding"."""
    if whole:
        return "(?:e?s|e?d|ing)?"
    last = word[-1]
    doubled = f"|{last}(?:ed|ing)" if last.isalpha() and last not in "aeiouwxy" else ""
    return f"(?:e?s|ed|ing{doubled})?"


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


# A compound ending in a short particle is also written apart or hyphened ("checkup",
# "check-up", "check up"; "workout", "layoff"): the split a long word gets between parts
# of four letters (`tokens.Term.body`) never reaches a particle of two or three (v4).
_PARTICLES = ("up", "out", "off")


def particle_joint(word: str) -> int:
    """Where a particle ending *word* begins, after a head of three letters or more; 0
    when it has none."""
    for particle in _PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= 3:
            return len(word) - len(particle)
    return 0


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
