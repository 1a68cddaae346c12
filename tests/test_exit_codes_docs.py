"""One list of exit codes (PROTOCOL §9): the contract, the README and the skill say the
same four, and they are the ones `memtier.errors` defines."""

from __future__ import annotations

import re

import pytest

from memtier.errors import EXIT_BUG, EXIT_INPUT, EXIT_OK, EXIT_REFUSED
from tests.conftest import REPO

MEANINGS = {
    EXIT_OK: "done",
    EXIT_REFUSED: "refused",
    EXIT_INPUT: "input",
    EXIT_BUG: "bug in memtier",
}


@pytest.mark.parametrize("doc", ["docs/PROTOCOL.md", "README.md", "SKILL.md"])
def test_every_doc_lists_the_same_exit_codes(doc: str) -> None:
    text = " ".join((REPO / doc).read_text(encoding="utf-8").split())
    found = re.search(r"Exit codes: (.+?)(?:\. |;? errors are)", text)
    assert found is not None, doc
    sentence = found.group(1).replace("`", "")
    codes = [int(c) for c in re.findall(r"(?<![\w.])([0-9]) (?=[a-z])", sentence)]
    assert codes == sorted(MEANINGS), (doc, sentence)
    for code, meaning in MEANINGS.items():
        part = sentence.split(f"{code} ", 1)[1]
        assert meaning in part.split(f"{code + 1} ", 1)[0], (doc, code, sentence)
