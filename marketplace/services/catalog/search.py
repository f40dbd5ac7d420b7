"""Full-text search over agents, one implementation per dialect, both served by an index (never LIKE).

The search text of an agent is its name, short description, description, tags and vendor username
(see alembic revision 0002 for the index and the triggers that keep it current). Callers get a
subquery of `(agent_id, rank)`, where a smaller rank is a better match, to join with their filters.

Query words are letters and digits; every word must match and the last one may be a prefix of a
word, so results appear while the user is still typing.
- PostgreSQL: earlier words are stemmed (`plainto_tsquery('english')`), the last matches its stem or
  any word starting with it; ranked by `ts_rank_cd` (name A > short description, tags B > vendor C >
  description D). A one-word query is answered from `agent_search_terms` (revision 0014) with the same
  matches and the same ranks: `ts_rank_cd` of a one-word query is the sum of the matching lexemes' position
  weights, which that table holds per (lexeme, agent), so nothing has to read or rank whole documents.
- SQLite (FTS5): no stemmer, so every word is a prefix match and a trailing plural "s" is dropped
  ("agents" finds "agent"); ranked by `bm25` with column weights in the same order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import (
    CTE,
    REAL,
    Float,
    String,
    Text,
    bindparam,
    cast,
    column,
    func,
    literal_column,
    or_,
    select,
    table,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY

from marketplace.services.errors import InvalidParameter

MAX_QUERY_LENGTH = 200
MAX_WORDS = 12
_WORD = re.compile(r"[^\W_]+")

# SQLite bm25 column weights, in FTS column order: name, short_description, description, tags, vendor.
BM25_WEIGHTS = (10.0, 5.0, 1.0, 4.0, 2.0)

_docs = table("agent_search_docs", column("search_key"), column("agent_id"))
_fts = table("agents_fts")
_pg_search = table("agent_search", column("agent_id"), column("live"), column("document"))
_pg_terms = table("agent_search_terms", column("lexeme"), column("agent_id"), column("score"))
_ASCII_WORD = re.compile(r"[a-z0-9]+")
MAX_CODE_POINT = 0x10FFFF  # a prefix's upper bound: prefix || chr(MAX_CODE_POINT) (lexemes compare as "C" text)


@dataclass(frozen=True)
class SearchQuery:
    words: tuple[str, ...]

    @property
    def head(self) -> tuple[str, ...]:
        return self.words[:-1]

    @property
    def last(self) -> str:
        return self.words[-1]


def parse_query(raw: str | None) -> SearchQuery | None:
    """The words to look for, or None when the text holds none (then the caller does not filter)."""
    if raw is None:
        return None
    if len(raw) > MAX_QUERY_LENGTH:
        raise InvalidParameter(f"search must be at most {MAX_QUERY_LENGTH} characters", field="search")
    words = tuple(w[:64] for w in _WORD.findall(raw.lower()))[:MAX_WORDS]
    return SearchQuery(words) if words else None


def _fts5_term(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return f'"{word}"*'  # words hold no quotes: letters and digits only


def fts5_match_expression(query: SearchQuery) -> str:
    return " AND ".join(_fts5_term(w) for w in query.words)


def by_terms(query: SearchQuery, dialect_name: str) -> bool:
    """Whether PostgreSQL answers this query from `agent_search_terms`: one word of ASCII letters and digits
    (one token for its text parser, so the word's stem is the one lexeme `to_tsvector` gives it)."""
    return dialect_name == "postgresql" and not query.head and _ASCII_WORD.fullmatch(query.last) is not None


def bind_values(query: SearchQuery, dialect_name: str) -> dict[str, str]:
    """Values for the bind parameters of `matches` (the query text never becomes SQL)."""
    if dialect_name == "postgresql":
        if by_terms(query, dialect_name):
            return {"search_word": query.last}
        values = {"search_last": f"'{query.last}':*"}  # letters and digits cannot break out of the quotes
        if query.head:
            values["search_head"] = " ".join(query.head)
        return values
    return {"search_match": fts5_match_expression(query)}


def _pg_tsquery(has_head: bool):  # noqa: ANN202 (SQL expression)
    last_word = bindparam("search_last", type_=String)
    last = func.to_tsquery(literal_column("'english'::regconfig"), last_word).op("||")(
        func.to_tsquery(literal_column("'simple'::regconfig"), last_word)
    )
    if not has_head:
        return last
    head = func.plainto_tsquery(literal_column("'english'::regconfig"), bindparam("search_head", type_=String))
    return head.op("&&")(last)


def _pg_term_matches(name: str, ranked: bool) -> CTE:
    """One word, from `agent_search_terms` (live agents only): lexemes starting with the word's English stem
    or with the word itself (what `to_tsquery('english', 'w:*') || to_tsquery('simple', 'w:*')` matches),
    found by one range scan of the primary key; rank = -(sum of their scores), as `-ts_rank_cd` (a float4)."""
    t = _pg_terms.c
    word = cast(bindparam("search_word", type_=String), Text)
    stems = func.tsvector_to_array(func.to_tsvector(literal_column("'english'::regconfig"), word), type_=ARRAY(Text))
    stem = func.coalesce(stems[1], word)  # a stop word has no English lexeme: then only the word itself
    low = select(func.least(stem, word).collate("C")).scalar_subquery()
    high = select(func.greatest(stem, word).collate("C").op("||")(func.chr(MAX_CODE_POINT))).scalar_subquery()
    # Grouped under "C" (a byte comparison: ~30% faster than the database's collation here), then given back
    # the default collation, so that joins with agents use their primary key and ties order as before.
    key = t.agent_id.collate("C")
    columns = [key.collate("default").label("agent_id")]
    if ranked:
        columns.append((-cast(func.sum(t.score), REAL)).label("rank"))
    return (
        select(*columns)
        .where(t.lexeme >= low, t.lexeme < high,
               or_(func.starts_with(t.lexeme, select(stem).scalar_subquery()), func.starts_with(t.lexeme, word)))
        .group_by(key)
        .cte(name)
        .prefix_with("MATERIALIZED")
    )


def matches(has_head: bool, dialect_name: str, *, name: str = "search", ranked: bool = True,
            terms: bool = False) -> CTE:
    """`(agent_id, rank)` of the agents matching the bound query (see `bind_values`), smaller rank =
    better; without `rank` when not `ranked`. `has_head`: the query has more than one word; `terms`: it is
    answered from the term table (`by_terms`). PostgreSQL returns live agents only; on SQLite the caller
    checks liveness against agents.

    A materialised CTE, so that a page and its total share one index scan and one ranking pass."""
    if dialect_name == "postgresql" and terms:
        return _pg_term_matches(name, ranked)
    if dialect_name == "postgresql":
        tsq = _pg_tsquery(has_head)
        columns = [_pg_search.c.agent_id.label("agent_id")]
        if ranked:
            columns.append((-func.ts_rank_cd(_pg_search.c.document, tsq)).label("rank"))
        return (
            select(*columns)
            .where(_pg_search.c.live, _pg_search.c.document.op("@@")(tsq))
            .cte(name)
            .prefix_with("MATERIALIZED")
        )
    if dialect_name == "sqlite":
        fts = literal_column("agents_fts")
        columns = [_docs.c.agent_id.label("agent_id")]
        if ranked:
            columns.append(func.bm25(fts, *BM25_WEIGHTS, type_=Float).label("rank"))
        return (
            select(*columns)
            .select_from(_fts.join(_docs, _docs.c.search_key == literal_column("agents_fts.rowid")))
            .where(fts.op("MATCH")(bindparam("search_match", type_=String)))
            .cte(name)
            .prefix_with("MATERIALIZED")
        )
    raise NotImplementedError(f"no full-text search for {dialect_name}")


def rebuild_index(connection) -> None:  # noqa: ANN001 (a SQLAlchemy Connection)
    """Recompute every search document (after bulk loads that bypassed triggers, or to repair)."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("DELETE FROM agent_search"))
        connection.execute(text("SELECT agent_search_refresh(ARRAY(SELECT id FROM agents))"))
    elif connection.dialect.name == "sqlite":
        connection.execute(text("DELETE FROM agent_search_docs"))
        connection.execute(
            text(
                """
                INSERT INTO agent_search_docs(agent_id, name, short_description, description, tags, vendor)
                SELECT a.id, a.name, a.short_description, a.description,
                       coalesce((SELECT group_concat(tag, ' ') FROM agent_tags t WHERE t.agent_id = a.id), ''),
                       coalesce((SELECT username FROM users u WHERE u.id = a.vendor_id), '')
                FROM agents a
                """
            )
        )
        connection.execute(text("INSERT INTO agents_fts(agents_fts) VALUES ('rebuild')"))
    else:
        raise NotImplementedError(f"no full-text search for {connection.dialect.name}")


def check_index(connection) -> None:  # noqa: ANN001 (a SQLAlchemy Connection)
    """SQLite: raise if the FTS index differs from its content table (used by tests)."""
    if connection.dialect.name == "sqlite":
        connection.execute(text("INSERT INTO agents_fts(agents_fts, rank) VALUES ('integrity-check', 1)"))
