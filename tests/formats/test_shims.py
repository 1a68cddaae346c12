"""memtier.formats.shims: the text of the shell shims and their version stamp (PROTOCOL §9)."""

from __future__ import annotations

import shlex

import pytest

from memtier.formats.shims import SHIM_NAMES, VERSION_MARK, render_shim, shim_version


@pytest.mark.parametrize("name", SHIM_NAMES)
def test_each_shim_reads_back_its_version(name: str) -> None:
    text = render_shim(name, "3.1.4", ("/opt/py bin/python", "-m", "memtier"))
    assert text.startswith("#!/bin/sh\n" + VERSION_MARK + "3.1.4\n")
    assert shim_version(text.encode()) == "3.1.4"
    assert "@" + "NAME@" not in text and "@FALLBACK@" not in text
    # The fallback is quoted for the shell: a space in its path stays one word.
    assert shlex.join(("/opt/py bin/python", "-m", "memtier")) in text


def test_only_archive_shims_take_an_age_in_days() -> None:
    episodic = render_shim("archive-old-episodic.sh", "1", ("memtier",))
    assert 'set -- --days "$days"' in episodic
    assert "archive episodic" in episodic
    health = render_shim("health-check.sh", "1", ("memtier",))
    assert "--days" not in health


@pytest.mark.parametrize(
    ("data", "version"),
    [
        (b"#!/bin/sh\n# memtier-shim-version: 2.0\r\n", "2.0"),
        (b"#!/bin/sh\necho mine\n", None),
        (b"#!/bin/sh\n" + b"#" * 600 + b"\n# memtier-shim-version: 2.0\n", None),
    ],
)
def test_shim_version_of_other_scripts(data: bytes, version: str | None) -> None:
    assert shim_version(data) == version
