"""Release notes as their HTML: rendered on the server from Markdown with raw HTML off
(services/versions/notes.py), so it is safe to insert as it is; lists keep their markers."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

NOTES_STYLE = {
    "& ul, & ol": {"padding_left": "1.5em", "list_style": "revert", "margin": "0.25em 0"},
    "& p": {"margin": "0 0 0.5em"},
    "& pre, & code": {"white_space": "pre-wrap"},
}


def release_notes(html: Var[str] | str) -> rx.Component:
    return rx.box(rx.html(html), class_name="release-notes", width="100%", overflow_wrap="anywhere", style=NOTES_STYLE)
