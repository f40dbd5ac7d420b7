"""Names of uploaded files: which are refused, and how a name is shown in a message or a download's zip.

A name is metadata only (objects are stored under keys the server makes), but it becomes an entry name in the
zip a buyer downloads, and an entry named `..` or `a/b` is a path there. So a file to attach must have a plain
name: not `.` or `..`, not only dots and spaces (Windows strips those to nothing), no path separators and no
control characters.
"""

from __future__ import annotations

import unicodedata
from pathlib import PurePosixPath

from marketplace.services.errors import Invalid

SHOWN_CHARS = 100
FALLBACK = "file"


def _has_control(name: str) -> bool:
    return any(unicodedata.category(ch)[0] == "C" for ch in name)


def shown_name(name: str) -> str:
    """A name as a message may quote it: control characters dropped, at most SHOWN_CHARS characters."""
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    return name if len(name) <= SHOWN_CHARS else name[:SHOWN_CHARS - 1] + "\u2026"


def is_plain(name: str) -> bool:
    return bool(name.strip(". ")) and "/" not in name and "\\" not in name and not _has_control(name)


def check_filename(filename: str) -> str:
    """The name normalised (NFC, outer spaces trimmed), or Invalid naming it."""
    name = unicodedata.normalize("NFC", filename).strip()
    if not is_plain(name):
        raise Invalid(f"'{shown_name(name)}' is not a valid file name. Rename the file and upload it again.",
                      field="agentFileURL")
    return name


def entry_name(filename: str) -> str:
    """The name a download's zip gives a stored file: its last path part, and FALLBACK for anything that is not
    a plain name (rows written before names were checked may hold `..`)."""
    name = PurePosixPath(unicodedata.normalize("NFC", filename).replace("\\", "/")).name.strip()
    return name if is_plain(name) else FALLBACK
