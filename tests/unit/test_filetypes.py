"""Upload type sniffing: allowed kinds judged by content and name; executables and the rest refused."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile

import pytest

from marketplace.services.errors import Invalid
from marketplace.services.filetypes import SNIFF_BYTES, is_text, judge


def _zip(empty: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        if not empty:
            z.writestr("a.txt", "hello")
    return buffer.getvalue()


def _tar_gz() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = b"print('x')\n" * 1000
        info = tarfile.TarInfo("agent.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _judge(name: str, data: bytes):
    return judge(name, data[:SNIFF_BYTES], size=len(data))


@pytest.mark.parametrize(("name", "data", "kind"), [
    ("agent.zip", _zip(), "zip"),
    ("empty.zip", _zip(empty=True), "zip"),
    ("agent.tar.gz", _tar_gz(), "tar.gz"),
    ("agent.TGZ", _tar_gz(), "tgz"),
    ("manual.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "pdf"),
    ("config.json", b'{"a": 1}', "json"),
    ("config.yaml", b"a: 1\n", "yaml"),
    ("config.yml", "name: caf\u00e9\n".encode(), "yml"),
    ("agent.py", b"\xef\xbb\xbfprint('hi')\r\n\tpass\n", "py"),
    ("index.js", b"console.log('\x1b[31mred\x1b[0m')", "js"),
    ("index.ts", b"const a: number = 1", "ts"),
    ("README.md", "# Caf\u00e9 \u2615\n".encode() * 2000, "md"),
    ("notes.txt", b"plain", "txt"),
])
def test_allowed_kinds(name, data, kind):
    found = _judge(name, data)
    assert found.kind == kind and found.content_type


def test_a_multibyte_character_cut_by_the_sniffed_prefix_is_text():
    data = ("a" * (SNIFF_BYTES - 1) + "\u20ac").encode()  # the euro sign's 3 bytes straddle the prefix end
    assert _judge("long.md", data).kind == "md"
    assert not is_text(data[:SNIFF_BYTES], complete=True)  # a whole file may not end mid-character
    with pytest.raises(Invalid, match=r"not a valid \.txt file"):
        judge("cut.txt", "\u20ac".encode()[:2], size=2)


@pytest.mark.parametrize(("name", "data"), [
    ("agent", b"\x7fELF\x02\x01\x01" + b"\0" * 64),
    ("agent.py", b"\x7fELF\x02\x01\x01" + b"\0" * 64),
    ("setup.zip", b"MZ\x90\x00\x03" + b"\0" * 64),
    ("tool.txt", b"\xcf\xfa\xed\xfe\x07\x00\x00\x01"),
    ("universal.md", b"\xca\xfe\xba\xbe\x00\x00\x00\x02"),
])
def test_executables_are_refused_whatever_their_name(name, data):
    with pytest.raises(Invalid, match=r"^Executable files are not allowed\. Allowed file types: zip, tar.gz"):
        _judge(name, data)


@pytest.mark.parametrize(("name", "data", "kind"), [
    ("", _zip(), "zip"), ("", _tar_gz(), "tar.gz"), ("", b"%PDF-1.7\n", "pdf"), ("README", b"# Read me\n", "txt"),
])
def test_a_name_without_extension_is_judged_by_content(name, data, kind):
    assert _judge(name, data).kind == kind


@pytest.mark.parametrize(("name", "data", "message"), [
    ("agent.py", b"print('x')\x00\x00", "not a valid .py file"),
    ("agent.json", b"\xff\xfe{\x00", "not a valid .json file"),
    ("notes.txt", b"bell\x07", "not a valid .txt file"),
    ("fake.zip", b"just text", "not a valid .zip file"),
    ("fake.tar.gz", gzip.compress(b"not a tar header" * 100), "not a valid .tar.gz file"),
    ("fake.tgz", b"\x1f\x8bgarbage", "not a valid .tgz file"),
    ("fake.pdf", b"%PDX", "not a valid .pdf file"),
    ("image.png", b"\x89PNG\r\n\x1a\n", "This file type is not allowed"),
    ("script.sh", b"#!/bin/sh\necho hi\n", "This file type is not allowed"),
    ("noextension", b"#!/bin/sh\necho hi\n", "This file type is not allowed"),
    ("", b"\x89PNG\r\n\x1a\n", "This file type is not allowed"),
    ("empty.txt", b"", "The file is empty"),
])
def test_refusals_say_why_and_list_the_allowed_types(name, data, message):
    with pytest.raises(Invalid, match=message) as refused:
        _judge(name, data)
    if "empty" not in message:
        assert "Allowed file types: zip, tar.gz, json, yaml, py, js, ts, md, txt, pdf" in refused.value.message
