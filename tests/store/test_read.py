"""memtier.store.read: confined reads of regular UTF-8 files, CRLF and BOM noted (PROTOCOL §3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier import store
from memtier.errors import ConfinementError, InputError


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x01binary", "binary file"),
        (b"caf\xe9\n", "not UTF-8"),
    ],
)
def test_read_refuses_binary_and_non_utf8(tmp_path: Path, data: bytes, message: str) -> None:
    target = tmp_path / "bad.md"
    target.write_bytes(data)
    with pytest.raises(InputError, match=message):
        store.read_text(target, root=tmp_path)


def test_read_of_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        store.read_text(tmp_path / "nope.md")
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        store.read_text(tmp_path / "dir.md")


def test_confine_refuses_parent_absolute_and_symlink_escapes(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    for path in (Path("../x.md"), outside / "x.md", Path("link/x.md")):
        with pytest.raises(ConfinementError, match="outside the workspace"):
            store.write_text(path if path.is_absolute() else root / path, "x\n", root=root)
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "x.md").exists()


def test_confine_follows_links_that_stay_inside(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("a\n")
    (tmp_path / "alias.md").symlink_to(tmp_path / "real.md")
    store.write_text(tmp_path / "alias.md", "b\n", root=tmp_path)
    assert (tmp_path / "alias.md").is_symlink()
    assert (tmp_path / "real.md").read_text() == "b\n"


def test_symlink_loop_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(InputError, match="symlink loop"):
        store.write_text(tmp_path / "a", "x\n", root=tmp_path)


def test_decode_notes_and_strips_bom_and_crlf() -> None:
    doc = store.decode_document(b"\xef\xbb\xbfa\r\nb\r\n", "x.md")
    assert (doc.text, doc.crlf, doc.bom) == ("a\nb\n", True, True)
    plain = store.decode_document(b"a\nb\n", "x.md")
    assert (plain.text, plain.crlf, plain.bom) == ("a\nb\n", False, False)


def test_non_utf8_names_the_offset_of_the_bad_byte() -> None:
    with pytest.raises(InputError, match=r"x\.md: not UTF-8 text \(invalid byte at offset 3\)"):
        store.decode_document(b"caf\xe9", "x.md")


@settings(max_examples=50)
@given(
    text=st.text(st.sampled_from("ab \n\té✅\u2028")),
    crlf=st.booleans(),
    bom=st.booleans(),
)
def test_encode_then_decode_gives_the_text_back(text: str, crlf: bool, bom: bool) -> None:
    """What a writer encodes in a document's conventions reads back as the same text."""
    data = store.Document(text="", crlf=crlf, bom=bom).encode(text)
    doc = store.decode_document(data, "x.md")
    assert doc.text == text
    assert doc.bom == bom
    assert doc.crlf == (crlf and "\n" in text)


def test_read_document_stamps_the_file_as_read(tmp_path: Path) -> None:
    target = tmp_path / "note.md"
    target.write_text("hello\n")
    doc = store.read_document(target, root=tmp_path)
    assert doc.stamp == store.file_stamp(os.stat(target))
    assert doc.source == os.path.realpath(target)


def test_read_through_a_link_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.md").write_text("outside\n")
    (root / "link.md").symlink_to(tmp_path / "secret.md")
    with pytest.raises(ConfinementError, match=r"link\.md: points outside the workspace; not read"):
        store.read_text(root / "link.md", root=root)
    # Without a root nothing confines the read.
    assert store.read_text(root / "link.md") == "outside\n"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"pipe\.md: .*not a regular file"):
        store.read_text(fifo, root=tmp_path)


def test_a_nul_byte_in_a_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="NUL byte"):
        store.confine(tmp_path, Path("a\0b.md"))


def test_read_text_or_none(tmp_path: Path) -> None:
    assert store.read_text_or_none(tmp_path / "missing.md", root=tmp_path) is None
    (tmp_path / "here.md").write_text("x\n")
    assert store.read_text_or_none(tmp_path / "here.md", root=tmp_path) == "x\n"
    # A dangling link is not "no file": it is reported.
    (tmp_path / "dangling.md").symlink_to(tmp_path / "gone.md")
    with pytest.raises(InputError, match="no such file"):
        store.read_text_or_none(tmp_path / "dangling.md", root=tmp_path)


def _case(tmp_path: Path, kind: str) -> tuple[Path, Path]:
    """A root and a path inside it that is *kind*."""
    root = tmp_path / "root"
    (root / "memory").mkdir(parents=True)
    outside = tmp_path / "outside.md"
    outside.write_text("secret outside\n")
    path = root / "memory" / "x.md"
    if kind == "file":
        path.write_text("inside\n")
    elif kind == "link-inside":
        (root / "memory" / "real.md").write_text("inside\n")
        path.symlink_to(root / "memory" / "real.md")
    elif kind == "link-out":
        path.symlink_to(outside)
    elif kind == "folder-out":
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere" / "x.md").write_text("secret outside\n")
        (root / "memory" / "sub").symlink_to(tmp_path / "elsewhere")
        path = root / "memory" / "sub" / "x.md"
    elif kind == "dangling-out":
        path.symlink_to(tmp_path / "gone.md")
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    return root, path


@pytest.mark.parametrize("lookup", ["kernel", "walk"])
@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("file", None),
        ("link-inside", None),
        ("link-out", "points outside the workspace"),
        ("folder-out", "points outside the workspace"),
        ("dangling-out", "points outside the workspace"),
        ("loop", "symlink loop"),
        ("fifo", "FIFO"),
        ("folder", "is a directory"),
        ("missing", "no such file"),
    ],
)
def test_a_confined_read_says_the_same_by_either_lookup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lookup: str, kind: str, error: str | None
) -> None:
    """The kernel's lookup (``O_PATH``, Linux) and the walk of `confine` (elsewhere,
    or where the kernel's fails) read the same files and refuse the same ones, with
    the same words."""
    from memtier.store import read as read_module

    if lookup == "walk":
        from memtier import workspace

        monkeypatch.setattr(read_module, "O_PATH", 0)
        monkeypatch.setattr(workspace, "O_PATH", 0)
    root, path = _case(tmp_path, kind)
    if error is None:
        document = store.read_document(path, root=root)
        assert document.text == "inside\n"
        assert document.source == os.path.realpath(path)
    else:
        with pytest.raises(InputError, match=error):
            store.read_document(path, root=root)


def test_bytes_read_without_a_root_resolve_no_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: a topic's 200 notes were each resolved (realpath: an lstat per
    folder of the path) only to have a real path nobody used; `read_regular_bytes`
    returns bytes alone. A document keeps its source, resolved."""
    from memtier.store import read as store_read

    note = tmp_path / "2026-11-30.md"
    note.write_text("# 2026-11-30\n- qdrant\n", encoding="utf-8")
    resolved: list[str] = []
    realpath = os.path.realpath

    def counted(path: str | os.PathLike[str], **kwargs: bool) -> str:
        resolved.append(os.fspath(path))
        return realpath(path, **kwargs)

    monkeypatch.setattr(store_read.os.path, "realpath", counted)
    assert store.read_regular_bytes(note) == b"# 2026-11-30\n- qdrant\n"
    assert resolved == []
    assert store.read_document(note).source == realpath(note)
