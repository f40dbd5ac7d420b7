"""Release notes from Markdown to HTML that is safe to put in a page as it is.

markdown-it-py (already a kept dependency: Reflex's Markdown uses it) with raw HTML off: a `<script>` or an
`<img onerror=...>` typed in the notes comes out as text, and its link check drops `javascript:`, `vbscript:`,
`file:` and `data:` targets. The same HTML is sent to bots on the server-rendered page and shown by the agent
page, so the two cannot differ.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def render_notes(text: str) -> str:
    """The notes as safe HTML (empty notes: an empty string)."""
    return _renderer().render(text) if text.strip() else ""


def _inline_text(children: list[Token]) -> str:
    out: list[str] = []
    href: str | None = None
    start = 0
    for token in children:
        if token.type in ("text", "code_inline", "html_inline"):
            out.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif token.type == "image":
            out.append(token.content or "")
        elif token.type == "link_open":
            href, start = str(token.attrGet("href") or ""), len(out)
        elif token.type == "link_close" and href is not None:
            label = "".join(out[start:])
            if href and href != label and f"mailto:{label}" != href:
                out.append(f" ({href})")
            href = None
    return "".join(out)


def notes_text(text: str) -> str:
    """The notes as readable plain text, for a notification or a mail's text part: no Markdown marks ('**', '#',
    '[..](..)'); a link reads 'its text (its address)', a list item '- item' (or '1. item'), a table row its cells
    separated by ' | '. A link the HTML would not make (`javascript:` ...) stays the text typed, as there."""
    if not text.strip():
        return ""
    blocks: list[str] = []
    lists: list[list[int]] = []  # per open list: [ordered (0/1), next number]
    prefix = ""
    row: list[str] | None = None
    for token in _renderer().parse(text):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            lists.append([int(kind == "ordered_list_open"), int(token.attrGet("start") or 1)])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            if not lists:
                blocks.append("")
        elif kind == "list_item_open" and lists:
            ordered, number = lists[-1]
            prefix = "  " * (len(lists) - 1) + (f"{number}. " if ordered else "- ")
            lists[-1][1] += 1
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and row is not None:
            blocks.append(" | ".join(row))
            row = None
        elif kind == "inline":
            line = _inline_text(token.children or [])
            if row is not None:
                row.append(line)
            else:
                blocks.append(prefix + line)
                prefix = ""
        elif kind in ("fence", "code_block"):
            blocks.append(token.content.rstrip("\n"))
        elif kind in ("paragraph_close", "heading_close", "hr", "table_close") and not lists:
            blocks.append("")  # a blank line between blocks, none between a list's items
    return "\n".join(blocks).strip()

