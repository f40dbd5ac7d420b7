"""The search box of the admin tables and the vendor's key list: one case-insensitive substring match, the same
rules for every table.

Matching is always `lower(column) LIKE '%term%'` (wildcards in the term literal). What serves it differs: on
PostgreSQL the trigram indexes of revision 0021; on SQLite, for the admin tables and terms of three or more
characters, the FTS5 trigram shadows of revision 0023 (`source`), whose phrase match is a superset of the
substring match, so the LIKE test on the shadow's copy of the row still decides.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import FromClause, Table, column, func, or_
from sqlalchemy import select as sa_select
from sqlalchemy import table as table_clause
from sqlmodel import Session, select

from marketplace import db
from marketplace.services.errors import InvalidParameter

MAX_SEARCH = 200
MIN_INDEXED = 3  # a trigram tokenizer has nothing to look up in a shorter term

# table -> the columns its SQLite shadow copies (revision 0023): those a search filters and orders on, then
# those it matches.
SHADOWED: dict[str, tuple[str, ...]] = {
    "users": ("id", "role", "deleted_at", "created_at", "username", "email", "first_name", "last_name"),
    "agents": ("id", "status", "deleted_at", "created_at", "name", "short_description"),
    "orders": ("id", "status", "created_at", "agent_name", "customer_email"),
}


def _term(search: str | None) -> str:
    term = (search or "").strip()
    if len(term) > MAX_SEARCH:
        raise InvalidParameter(f"search must be at most {MAX_SEARCH} characters", field="search")
    return term


def pattern(search: str | None) -> str | None:
    """A LIKE pattern for `search` (wildcards in it escaped), or None when there is nothing to match."""
    term = _term(search)
    if not term:
        return None
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped.lower()}%"


def matches(like: str, *columns: Any) -> Any:
    """Any of `columns` contains the pattern, ignoring case."""
    return or_(*(func.lower(column).like(like, escape="\\") for column in columns))


def source(table: Table, search: str | None) -> FromClause:
    """Where to count and page a search of `table` from: the table itself, or on SQLite, for a term of
    MIN_INDEXED+ characters, the rows of its shadow whose FTS5 trigram phrase matches (the same column names).

    The phrase (the term's trigrams in order, case folded by the tokenizer) holds for every row the LIKE test
    matches, so narrowing to it loses nothing; the caller's conditions, `matches` included, decide."""
    term = _term(search).lower()
    if table.name not in SHADOWED or len(term) < MIN_INDEXED or db.engine().dialect.name != "sqlite":
        return table
    shadow = table_clause(f"admin_search_{table.name}", column("search_key"),
                          *(column(name) for name in SHADOWED[table.name]))
    fts_name = f"{shadow.name}_fts"
    fts = table_clause(fts_name, column("rowid"), column(fts_name))
    phrase = '"' + term.replace('"', '""') + '"'  # one FTS5 string: every character literal
    return (sa_select(*(shadow.c[name] for name in SHADOWED[table.name]))
            .join_from(shadow, fts, fts.c.rowid == shadow.c.search_key)
            .where(fts.c[fts_name].match(phrase))
            .subquery(f"found_{table.name}"))


def page_and_total(session: Session, *, rows: FromClause, conditions: list[Any], limit: int, offset: int
                   ) -> tuple[list[Any], int]:
    """The ids of one page of `rows` (newest first, ties by id) and the number of rows the conditions hold for.

    From a table (PostgreSQL, or a term too short for the shadows): a count, then the page from the date index,
    which stops after the page. From a SQLite shadow (`source`), one statement: the FTS5 matches are gathered
    once (a materialised CTE) and both counted and sorted for the page, instead of running the phrase and
    reading the copies twice (25-45% less CPU); only a page past the end needs a second statement. On
    PostgreSQL the same statement was measured no cheaper: the count's recheck of every match dominates, and
    materialising the matches costs what the date-index page saves.
    """
    if isinstance(rows, Table):
        total = session.exec(select(func.count()).select_from(rows).where(*conditions)).one()
        ids = session.exec(select(rows.c.id).where(*conditions).order_by(rows.c.created_at.desc(),
                                                                         rows.c.id.desc())
                           .limit(limit).offset(offset)).all()
        return list(ids), int(total)
    matched = (select(rows.c.id, rows.c.created_at).where(*conditions)
               .cte("matched").prefix_with("MATERIALIZED"))
    counted = select(func.count()).select_from(matched).scalar_subquery()
    found = session.exec(select(matched.c.id, counted).order_by(matched.c.created_at.desc(), matched.c.id.desc())
                         .limit(limit).offset(offset)).all()
    if found:
        return [row[0] for row in found], int(found[0][1])
    if offset == 0:
        return [], 0
    return [], int(session.exec(select(func.count()).select_from(matched)).one())
