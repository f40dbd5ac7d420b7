"""Release notes from Markdown to HTML that is safe to put in a page as it is.

markdown-it-py (already a kept dependency: Reflex's Markdown uses it) with raw HTML off: a `<script>` or an
`<img onerror=...>` typed in the notes comes out as text, and its link check drops `javascript:`, `vbscript:`,
`file:` and `data:` targets. The same HTML is sent to bots on the server-rendered page and shown by the agent
page, so the two cannot differ.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def render_notes(text: str) -> str:
    """The notes as safe HTML (empty notes: an empty string)."""
    return _renderer().render(text) if text.strip() else ""
