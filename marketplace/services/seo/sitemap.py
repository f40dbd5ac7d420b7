"""`/sitemap.xml`: the public pages, each category's address and every live agent's page, with the time of its last
approved change (`agents.reviewed_at`: set when an admin approves the agent or a revision of it, the only ways a
live page's content changes) as `lastmod`.

Past `page_size` addresses (the protocol's limit, 50,000) `/sitemap.xml` is an index of `/sitemaps/{n}.xml`
files, numbered from 1. Agents come in creation order (the live `created_at` index), so a new agent lands in the
last file and the others keep their places. One query of ids and times per file (no ORM objects); the answer is
kept per catalog version like the other public reads (`catalog.reads`), and the version moves with every change
an approval makes (`updated_at` moves with `reviewed_at`).
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape

from sqlalchemy import String, cast, func, select, type_coerce
from sqlalchemy.engine import Connection, Row
from sqlalchemy.sql import ColumnElement

from marketplace.models import Agent, Category
from marketplace.services.catalog import reads
from marketplace.services.catalog.visibility import LIVE
from marketplace.services.seo.addresses import absolute, agent_path, category_path

MAX_URLS = 50_000  # per file, the sitemap protocol's limit
PAGE_PATHS = ("/", "/agents", "/categories")
AGENTS = Agent.__table__
CATEGORIES = Category.__table__
XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NAMESPACE = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def _reviewed_text(dialect: str) -> ColumnElement[str]:
    """`reviewed_at` as the database writes it in UTC ('2026-03-04 05:06:07.891011'), sliced into W3C time by
    `_agent_url`: 50,000 `datetime` objects and their `isoformat` cost more than the query (PostgreSQL's
    `to_char` too), benchmarks/README.md (issue 29)."""
    if dialect == "postgresql":
        return cast(func.timezone("UTC", AGENTS.c.reviewed_at), String)
    return type_coerce(AGENTS.c.reviewed_at, String)  # SQLite keeps that text, in UTC


def _fixed_paths(conn: Connection) -> list[str]:
    """The addresses before the agents: the public pages, then the categories in the order the app lists them."""
    c = CATEGORIES.c
    slugs = conn.execute(select(c.slug).order_by(c.sort_order, c.name, c.id)).scalars()
    return [*PAGE_PATHS, *(category_path(slug) for slug in slugs)]


def _live_count(conn: Connection) -> int:
    return conn.execute(select(func.count()).select_from(AGENTS).where(LIVE)).scalar_one()


def _agent_rows(conn: Connection, *, offset: int, limit: int) -> Iterable[Row[str, str | None]]:
    """Rows are made one at a time as the XML is written (not a list of 50,000 first: a third of the peak)."""
    a = AGENTS.c
    stmt = (select(a.id, _reviewed_text(conn.dialect.name)).where(LIVE).order_by(a.created_at, a.id)
            .offset(offset).limit(limit))
    return conn.execute(stmt)


def _agent_url(base: str, agent_id: str, reviewed: str | None) -> str:
    # Ids are hex in practice: quoting and escaping are skipped for plain ASCII letters and digits.
    path = f"/agents/{agent_id}" if agent_id.isascii() and agent_id.isalnum() else escape(agent_path(agent_id))
    lastmod = f"<lastmod>{reviewed[:10]}T{reviewed[11:19]}+00:00</lastmod>" if reviewed else ""
    return f"<url><loc>{base}{path}</loc>{lastmod}</url>\n"


def _urlset(paths: list[str], agents: Iterable[Row[str, str | None]]) -> bytes:
    base = escape(absolute(""))
    parts = [XML_HEAD, f"<urlset {NAMESPACE}>\n"]
    parts += [f"<url><loc>{base}{escape(path)}</loc></url>\n" for path in paths]
    parts += [_agent_url(base, agent_id, reviewed) for agent_id, reviewed in agents]
    parts.append("</urlset>\n")
    return "".join(parts).encode()


def _index(files: int) -> bytes:
    base = escape(absolute(""))
    parts = [XML_HEAD, f"<sitemapindex {NAMESPACE}>\n"]
    parts += [f"<sitemap><loc>{base}{page_path(n)}</loc></sitemap>\n" for n in range(1, files + 1)]
    parts.append("</sitemapindex>\n")
    return "".join(parts).encode()


def page_path(number: int) -> str:
    return f"/sitemaps/{number}.xml"


def _files(fixed: int, agents: int, page_size: int) -> int:
    return -(-(fixed + agents) // page_size)


def _sitemap(conn: Connection, page_size: int) -> bytes:
    fixed = _fixed_paths(conn)
    agents = _live_count(conn)
    if len(fixed) + agents > page_size:
        return _index(_files(len(fixed), agents, page_size))
    return _urlset(fixed, _agent_rows(conn, offset=0, limit=page_size))


def _page(conn: Connection, number: int, page_size: int) -> bytes | None:
    fixed = _fixed_paths(conn)
    total = len(fixed) + _live_count(conn)
    if total <= page_size or not 1 <= number <= _files(len(fixed), total - len(fixed), page_size):
        return None  # one file holds everything (it is /sitemap.xml itself), or no such file
    start, end = (number - 1) * page_size, number * page_size
    agent_slots = end - max(start, len(fixed))
    agents = _agent_rows(conn, offset=max(start - len(fixed), 0), limit=agent_slots) if agent_slots > 0 else []
    return _urlset(fixed[start:end], agents)


def sitemap_xml(*, page_size: int = MAX_URLS) -> bytes:
    """`/sitemap.xml`: every address in one file, or the index of the files when they do not fit in one."""
    return reads.cached(("sitemap", page_size), lambda conn: _sitemap(conn, page_size)) or b""


def sitemap_page_xml(*, number: int, page_size: int = MAX_URLS) -> bytes | None:
    """`/sitemaps/{number}.xml` (from 1) of the index, or None when there is no such file (and when there is no
    index: everything is in `/sitemap.xml`)."""
    return reads.cached(("sitemap", page_size, number), lambda conn: _page(conn, number, page_size))
