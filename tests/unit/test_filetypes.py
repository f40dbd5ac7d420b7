"""Upload type checks: allowed kinds judged by their whole content and their name; executables, disguised files,
unsafe archives and unsafe names refused, each refusal saying why."""

from __future__ import annotations

import gzip
import io
import re
import stat
import tarfile
import zipfile

import pytest
import yaml

from marketplace.config import settings
from marketplace.services import archives, filetypes
from marketplace.services.errors import Invalid
from marketplace.services.filenames import check_filename, entry_name
from marketplace.services.filetypes import SNIFF_BYTES, check_file, check_object, is_text

ELF = b"\x7fELF\x02\x01\x01\x00" + b"\0" * 56
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>'


def _zip(entries: dict[str, bytes] | None = None, *, links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in (entries or {}).items():
            z.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, target)
    return buffer.getvalue()


def _tar_gz(entries: dict[str, bytes] | None = None, *, extra: list[tarfile.TarInfo] = ()) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in (entries or {"agent.py": b"print('x')\n" * 1000}).items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in extra:
            tar.addfile(info)
    return buffer.getvalue()


def _tar_info(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, linkname
    return info


def _pdf(body: bytes = b"<< /Type /Catalog /Pages 2 0 R >>") -> bytes:
    head = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n" + body + b"\nendobj\n"
    return head + b"xref\n0 2\ntrailer\n<< /Size 2 /Root 1 0 R >>\nstartxref\n" + str(len(head)).encode() + b"\n%%EOF\n"


def _check(name: str, data: bytes):
    return check_file(name, io.BytesIO(data), size=len(data))


@pytest.mark.parametrize(("name", "data", "kind", "content_type"), [
    ("agent.zip", _zip({"a.txt": b"hello", "src/": b"", "src/main.py": b"print(1)\n"}), "zip", "application/zip"),
    ("empty.zip", _zip(), "zip", "application/zip"),
    ("links.zip", _zip({"a.py": b"x = 1\n"}, links={"b.py": "a.py"}), "zip", "application/zip"),
    ("agent.tar.gz", _tar_gz(), "tar.gz", "application/gzip"),
    ("agent.TGZ", _tar_gz(extra=[_tar_info("src", tarfile.DIRTYPE), _tar_info("latest", tarfile.SYMTYPE, "src")]),
     "tgz", "application/gzip"),
    ("manual.pdf", _pdf(), "pdf", "application/pdf"),
    ("config.json", b'{"a": 1}', "json", "application/json"),
    ("scalar.json", b'"just a string"', "json", "application/json"),
    ("config.yaml", b"a: 1\n", "yaml", "application/yaml"),
    ("config.yml", "name: caf\u00e9\n".encode(), "yml", "application/yaml"),
    ("many.yaml", b"---\na: 1\n---\n- b\n---\n", "yaml", "application/yaml"),
    ("comments.yaml", b"# nothing set yet\n", "yaml", "application/yaml"),
    ("agent.py", b"\xef\xbb\xbfprint('hi')\r\n\tpass\n", "py", "text/x-python"),
    ("index.js", b"console.log('\x1b[31mred\x1b[0m')", "js", "text/javascript"),
    ("index.ts", b"const a: number = 1", "ts", "text/plain"),
    ("README.md", "# Caf\u00e9 \u2615\n".encode() * 20000, "md", "text/markdown"),
    ("notes.txt", b"plain", "txt", "text/plain"),
])
def test_allowed_kinds_and_the_type_stored_for_them(name, data, kind, content_type):
    found = _check(name, data)
    assert (found.kind, found.content_type) == (kind, content_type)


def test_a_multibyte_character_cut_by_the_sniffed_prefix_is_text():
    data = ("a" * (SNIFF_BYTES - 1) + "\u20ac").encode()  # the euro sign's 3 bytes straddle the prefix end
    assert _check("long.md", data).kind == "md"
    assert not is_text(data[:SNIFF_BYTES], complete=True)  # a whole file may not end mid-character
    with pytest.raises(Invalid, match=r"not a valid \.txt file"):
        _check("cut.txt", "\u20ac".encode()[:2])


@pytest.mark.parametrize(("name", "data"), [
    ("agent", ELF),
    ("agent.py", ELF),
    ("setup.zip", b"MZ\x90\x00\x03" + b"\0" * 64),
    ("tool.txt", b"\xcf\xfa\xed\xfe\x07\x00\x00\x01"),
    ("universal.md", b"\xca\xfe\xba\xbe\x00\x00\x00\x02"),
])
def test_executables_are_refused_whatever_their_name(name, data):
    with pytest.raises(Invalid, match=r"^Executable files are not allowed\. Allowed file types: zip, tar.gz"):
        _check(name, data)


@pytest.mark.parametrize(("name", "data", "kind"), [
    ("", _zip({"a.txt": b"a"}), "zip"), ("", _tar_gz(), "tar.gz"), ("", _pdf(), "pdf"),
    ("README", b"# Read me\n", "txt"),
])
def test_a_name_without_extension_is_judged_by_content(name, data, kind):
    assert _check(name, data).kind == kind


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
    # Past the first bytes: the whole file counts, and the refusal names it.
    ("README.md", b"# Notes\n" * 1200 + ELF, "README.md is not a valid .md file: it holds binary data"),
    ("notes.txt", b"a" * 20000 + b"\xff\xfe", "notes.txt is not a valid .txt file: it is not UTF-8 text"),
    ("notes.txt", b"a" * 20000 + "\u20ac".encode()[:2], "notes.txt is not a valid .txt file: it is not UTF-8"),
    ("config.json", SVG, "config.json is not a valid .json file: Expecting value at line 1, column 1"),
    ("config.json", b'{"a": 1}\n<html></html>', "config.json is not a valid .json file: Extra data"),
    ("config.yaml", SVG, "config.yaml is not a valid .yaml file: a YAML file must hold mappings or lists"),
    ("config.yml", b"a: [1, 2\nb: 3\n", "config.yml is not a valid .yml file"),
    ("manual.pdf", b"%PDF-1.7\n<html><script>alert(1)</script></html>\n" * 50,
     "manual.pdf is not a valid .pdf file: no PDF object follows its header"),
    ("manual.pdf", _pdf()[:-30] + b"<html></html>", "manual.pdf is not a valid .pdf file: it has no PDF trailer"),
    ("bundle.zip", b"PK\x03\x04<html><script>alert(1)</script></html>", "bundle.zip is not a valid .zip file"),
    ("bundle.tar.gz", _tar_gz() + b"<html><script>alert(1)</script></html>", "bundle.tar.gz is not a valid .tar.gz"),
    ("bundle.tar.gz", _tar_gz()[:-40], "bundle.tar.gz is not a valid .tar.gz file"),
])
def test_refusals_say_why_and_list_the_allowed_types(name, data, message):
    with pytest.raises(Invalid, match=re.escape(message)) as refused:
        _check(name, data)
    if "empty" not in message:
        assert refused.value.message.endswith("Allowed file types: zip, tar.gz, json, yaml, py, js, ts, md, txt, pdf")
    assert refused.value.field == "agentFileURL"


@pytest.mark.parametrize(("data", "message"), [
    (_zip({"../evil.py": b"x"}), "bundle.zip contains an entry with an unsafe path: ../evil.py"),
    (_zip({"/etc/cron.d/x": b"x"}), "bundle.zip contains an entry with an unsafe path: /etc/cron.d/x"),
    (_zip({"a\\..\\..\\x.py": b"x"}), "bundle.zip contains an entry with an unsafe path"),
    (_zip({"C:/Windows/x.py": b"x"}), "bundle.zip contains an entry with an unsafe path: C:/Windows/x.py"),
    (_zip({"README.md": b"# hi", "bin/tool": ELF}), "bundle.zip contains an executable file"),
    (_zip({"setup.exe": b"MZ\x90\x00" + b"\0" * 60}), "bundle.zip contains an executable file"),
    (_zip(links={"passwd": "/etc/passwd"}), "bundle.zip contains a link that points outside the archive: passwd"),
    (_zip(links={"up": "../../x"}), "bundle.zip contains a link that points outside the archive: up"),
])
def test_a_zip_is_read_through_its_central_directory(data, message):
    with pytest.raises(Invalid, match=re.escape(message)):
        _check("bundle.zip", data)


def test_an_encrypted_zip_entry_cannot_be_checked():
    data = bytearray(_zip({"secret.py": b"print(1)\n"}))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # the flag in both headers
        at = data.index(signature) + offset
        data[at] |= 0x1
    with pytest.raises(Invalid, match=re.escape("contains an encrypted entry that cannot be checked: secret.py")):
        _check("bundle.zip", bytes(data))


@pytest.mark.parametrize(("data", "message"), [
    (_tar_gz({"../../etc/cron.d/x": b"x"}), "bundle.tar.gz contains an entry with an unsafe path: ../../etc/cron.d/x"),
    (_tar_gz({"/abs.py": b"x"}), "bundle.tar.gz contains an entry with an unsafe path: /abs.py"),
    (_tar_gz({"tool": ELF}), "bundle.tar.gz contains an executable file"),
    (_tar_gz(extra=[_tar_info("passwd", tarfile.SYMTYPE, "/etc/passwd")]), "a link that points outside the archive"),
    (_tar_gz(extra=[_tar_info("hard", tarfile.LNKTYPE, "../x")]), "a link that points outside the archive"),
    (_tar_gz(extra=[_tar_info("pipe", tarfile.FIFOTYPE)]), "bundle.tar.gz contains a special file"),
    (_tar_gz(extra=[_tar_info("disk", tarfile.BLKTYPE)]), "bundle.tar.gz contains a special file"),
])
def test_a_tar_gz_is_read_as_the_stream_it_is(data, message):
    with pytest.raises(Invalid, match=re.escape(message)):
        _check("bundle.tar.gz", data)


def test_archive_bombs_stop_at_their_limits(monkeypatch):
    monkeypatch.setattr(archives, "MAX_UNPACKED_BYTES", 1 << 20)
    bomb = _tar_gz({"zeros.txt": b"\0" * (4 << 20)})
    assert len(bomb) < 10_000
    with pytest.raises(Invalid, match=re.escape("bomb.tar.gz unpacks to more than 1 MB")):
        _check("bomb.tar.gz", bomb)
    monkeypatch.setattr(archives, "MAX_ENTRIES", 2)
    many = {f"{n}.txt": b"x" for n in range(3)}
    with pytest.raises(Invalid, match=re.escape("many.zip holds more than 2 entries")):
        _check("many.zip", _zip(many))
    with pytest.raises(Invalid, match=re.escape("many.tar.gz holds more than 2 entries")):
        _check("many.tar.gz", _tar_gz(many))


def test_json_and_yaml_are_parsed_up_to_a_size(monkeypatch):
    monkeypatch.setattr(filetypes, "PARSED_MAX_BYTES", {"json": 100, "yaml": 100, "yml": 100})
    assert _check("small.json", b"[" + b"1," * 40 + b"1]").kind == "json"
    with pytest.raises(Invalid, match=re.escape("big.json is too large to check: .json files can be at most")):
        _check("big.json", b"[" + b"1," * 60 + b"1]")
    with pytest.raises(Invalid, match=re.escape("big.yaml is too large to check")):
        _check("big.yaml", b"a: 1\n" * 30)


def test_a_yaml_alias_bomb_is_parsed_not_built(monkeypatch):
    """`safe_load` would expand these merge keys into 10**9 entries; parsing their events is linear, and no
    object is ever built from a YAML file."""

    def never(*args, **kwargs):
        raise AssertionError("a YAML file was built into objects")

    monkeypatch.setattr(yaml.constructor.BaseConstructor, "construct_document", never)
    lines = ["a0: &a0 {k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7, k8: 8, k9: 9}"]
    lines += [f"a{n}: &a{n} {{" + ", ".join(f"m{i}: {{<<: *a{n - 1}}}" for i in range(10)) + "}" for n in range(1, 9)]
    assert _check("bomb.yaml", "\n".join(lines).encode()).kind == "yaml"


@pytest.mark.parametrize("name", [".", "..", "...", " .. ", "", "a/b.txt", "a\\b.txt", "tab\there.txt"])
def test_names_that_are_paths_or_nothing_are_refused(name):
    message = "is not a valid file name. Rename the file and upload it again."
    with pytest.raises(Invalid, match=re.escape(message)) as refused:
        check_filename(name)
    assert refused.value.field == "agentFileURL"


@pytest.mark.parametrize(("name", "kept"), [(".env", ".env"), ("a..b.txt", "a..b.txt"), (" notes.md ", "notes.md"),
                                            ("Cafe\u0301.md", "Caf\u00e9.md")])
def test_plain_names_are_kept(name, kept):
    assert check_filename(name) == kept


@pytest.mark.parametrize(("stored", "entry"), [("..", "file"), (".", "file"), ("a/../../b.md", "b.md"),
                                               ("dir\\x.py", "x.py"), ("", "file"), ("README.md", "README.md")])
def test_a_download_entry_is_always_a_plain_name(stored, entry):
    assert entry_name(stored) == entry


@pytest.fixture(params=["local", "s3"])
def storage(request):
    return request.getfixturevalue("local_storage" if request.param == "local" else "s3_storage")


def test_check_object_reads_the_stored_object_whole(storage, monkeypatch):
    storage.put("agents/a/1", _zip({"a.txt": b"a"}))
    assert check_object(key="agents/a/1", filename="bundle.zip").content_type == "application/zip"
    storage.put("agents/a/2", b"# Notes\n" * 1200 + ELF)
    with pytest.raises(Invalid, match=re.escape("README.md is not a valid .md file")):
        check_object(key="agents/a/2", filename="README.md")
    with pytest.raises(Invalid, match=re.escape("'..' is not a valid file name")):
        check_object(key="agents/a/1", filename="..")
    with pytest.raises(Invalid, match=re.escape("not found in storage")):
        check_object(key="agents/a/missing", filename="a.zip")
    monkeypatch.setattr(settings, "upload_max_file_bytes", 10)
    with pytest.raises(Invalid, match=re.escape("File is too large")):
        check_object(key="agents/a/1", filename="bundle.zip")
