"""Full-text search over agents, one implementation per dialect, both served by an index (never LIKE).

The search text of an agent is its name, short description, description, tags and vendor username
(see alembic revision 0002 for the index and the triggers that keep it current). Callers get a
subquery of `(agent_id, rank)`, where a smaller rank is a better match, to join with their filters.

Query words are letters and digits; every word must match and the last one may be a prefix of a
word, so results appear while the user is still typing.
- PostgreSQL: earlier words are stemmed (`plainto_tsquery('english')`), the last matches its stem or
  any word starting with it; ranked by `ts_rank_cd` (name A > short description, tags B > vendor C >
  description D). A one-word query is answered from kept per-prefix postings (revision 0021) with the same
  matches and the same order: `ts_rank_cd` of a one-word query is the sum of the matching lexemes' position
  weights, which `agent_search_postings` holds (x 10, as integers) per (prefix, document), in impact order,
  with the count of matches kept per prefix, so nothing has to read, rank or count whole documents. Equal ranks
  are ordered by `doc_key` (the order agents were indexed in).
- SQLite (FTS5): no stemmer, so every word is a prefix match and a trailing plural "s" is dropped
  ("agents" finds "agent"); ranked by `bm25` with column weights in the same order, equal ranks by search
  key (as on PostgreSQL: the order agents were indexed in), so a page never needs the agent ids of all its
  ties. The FTS index holds live documents only (revision 0022): the matches are counted from it alone, and a
  relevance page without filters reads `agent_search_docs` for its own rows only. A one-word relevance page
  whose prefix is kept (revision 0024: every token of the catalogue) is read from `agent_search_impacts` in
  `bm25`'s own order and with its exact ranks, without scoring every match, and counted from the kept count.

Typos (`corrections`): a query word of four or more letters that is not a word of the catalogue's vocabulary (the
kept prefixes above, every token (SQLite) or lexeme (PostgreSQL) of a live document, kept by the same triggers in
the writer's transaction) is also looked for as each of its edits at distance 1 (one letter wrong, missing or
extra, or two neighbours swapped) that starts a vocabulary word, matched as a prefix like a typed word. The
agents found only that way come after every exact match (`matches(..., fuzzy=...)` gives them alone), so a typo
never pushes a real match down, and a known word is never fuzzed (`date` does not bring `data`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    CTE,
    ColumnElement,
    Float,
    Integer,
    String,
    bindparam,
    column,
    func,
    literal_column,
    not_,
    select,
    table,
    text,
)

from marketplace.services.errors import InvalidParameter

MAX_QUERY_LENGTH = 200
MAX_WORDS = 12
_WORD = re.compile(r"[^\W_]+")

# SQLite bm25 column weights, in FTS column order: name, short_description, description, tags, vendor.
BM25_WEIGHTS = (10.0, 5.0, 1.0, 4.0, 2.0)

_docs = table("agent_search_docs", column("search_key"), column("agent_id"))
_BM25 = f"bm25(agents_fts, {', '.join(map(str, BM25_WEIGHTS))})"
_K1, _B = "1.2", "0.75"  # FTS5's bm25 constants (fts5_aux.c), as it writes them
_fts = table("agents_fts")
_pg_search = table("agent_search", column("agent_id"), column("doc_key"), column("live"), column("document"))
_ASCII_WORD = re.compile(r"[a-z0-9]+")


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


MIN_FUZZY_LENGTH = 4  # shorter words have too many neighbours to guess from
MAX_FUZZY_WORDS = 4  # words corrected per query (each costs a vocabulary look-up of a few hundred edits)
MAX_CORRECTIONS = 8  # per word: a bound on the OR branch
_EDIT_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True)
class Corrections:
    """The query as typed and, per word, the vocabulary prefixes it may have meant (empty: the word as typed)."""

    query: SearchQuery
    alternatives: tuple[tuple[str, ...], ...]
    dead: tuple[bool, ...] = ()  # per word: no vocabulary word starts with it (as typed it matches nothing)
    whole: frozenset[str] = frozenset()  # the alternatives that are vocabulary words themselves

    @property
    def shape(self) -> tuple[bool, ...]:
        """Which words have alternatives: all that changes the SQL (the words are bound)."""
        return tuple(bool(a) for a in self.alternatives)

    def substitute(self, dialect_name: str) -> SearchQuery | None:
        """The corrected query when the typo matches are exactly its matches: every corrected word matches nothing
        as typed and has one alternative (then the search is an ordinary one, with its fast paths). PostgreSQL
        matches only the last word as a prefix, so there an earlier word's alternative must be a whole word."""
        if not all(d and len(a) == 1 for a, d in zip(self.alternatives, self.dead, strict=True) if a):
            return None
        if dialect_name == "postgresql" and any(a and a[0] not in self.whole for a in self.alternatives[:-1]):
            return None
        return SearchQuery(tuple(a[0] if a else w for w, a in zip(self.query.words, self.alternatives, strict=True)))


def edits(word: str) -> set[str]:
    """The words at distance 1 (Damerau: one letter replaced, dropped or added, or two neighbours swapped) of at
    least `MIN_FUZZY_LENGTH` letters, except those that start with `word` (its own prefix search finds them)."""
    letters = set(_EDIT_LETTERS if any(c.isdigit() for c in word) else _EDIT_LETTERS[:26]) | set(word)
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    found = {a + b[1:] for a, b in splits if b}
    found |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    found |= {a + c + b[1:] for a, b in splits if b for c in letters}
    found |= {a + c + b for a, b in splits for c in letters}
    return {e for e in found if len(e) >= MIN_FUZZY_LENGTH and not e.startswith(word)}


# The vocabulary table of each dialect and its highest character (the end of a prefix's index range).
_VOCABULARY = {"sqlite": ("agent_search_kept", "char(1114111)"),
               "postgresql": ("agent_search_prefixes", "chr(1114111)")}


def corrections(conn, query: SearchQuery) -> Corrections | None:  # noqa: ANN001 (a SQLAlchemy Connection)
    """The typo alternatives of `query` from the vocabulary, or None when no word needs or has any."""
    dialect_name = conn.dialect.name
    if dialect_name not in _VOCABULARY:
        return None
    fuzzable = [w for w in dict.fromkeys(query.words)
                if len(w) >= MIN_FUZZY_LENGTH and _ASCII_WORD.fullmatch(w)][:MAX_FUZZY_WORDS]
    if not fuzzable:
        return None
    vocabulary, top = _VOCABULARY[dialect_name]
    collate = ' COLLATE "C"' if dialect_name == "postgresql" else ""
    unknown = [w for w in fuzzable if w not in set(conn.execute(text(_KNOWN_SQL[dialect_name]), {
        "words": fuzzable if dialect_name == "postgresql" else json.dumps(fuzzable)}).scalars())]
    if not unknown:
        return None
    candidates = sorted(set().union(*(edits(w) for w in unknown), unknown))
    # One index range per edit: does a live vocabulary word start with it?
    rows = conn.execute(
        text(f"""SELECT e.v, EXISTS (SELECT 1 FROM {vocabulary} AS w WHERE w.prefix = e.v{collate} AND w.live_count > 0)
                 FROM {_edit_rows(dialect_name)} AS e WHERE EXISTS (
                 SELECT 1 FROM {vocabulary} AS x WHERE x.prefix >= e.v{collate} AND x.prefix < e.v || {top}{collate}
                 AND x.live_count > 0)"""),
        {"edits": candidates if dialect_name == "postgresql" else json.dumps(candidates)}).all()
    found = {v for v, _ in rows}
    alternatives = tuple(_minimal(edits(w) & found)[:MAX_CORRECTIONS] if w in unknown else () for w in query.words)
    dead = tuple(w in unknown and w not in found for w in query.words)
    whole = frozenset(v for v, is_word in rows if is_word)
    return Corrections(query, alternatives, dead, whole) if any(alternatives) else None


# A word is known when it is a vocabulary word (PostgreSQL: or its English stem is, as descriptions hold stems only).
_KNOWN_SQL = {
    "sqlite": "SELECT value FROM json_each(:words) WHERE EXISTS (SELECT 1 FROM agent_search_kept AS x "
              "WHERE x.prefix = value AND x.live_count > 0)",
    "postgresql": """SELECT w FROM unnest(CAST(:words AS text[])) AS w WHERE EXISTS (
        SELECT 1 FROM agent_search_prefixes AS x WHERE x.live_count > 0 AND x.prefix IN (w COLLATE "C",
            coalesce((tsvector_to_array(to_tsvector('english'::regconfig, w)))[1], w) COLLATE "C"))""",
}


def _minimal(prefixes: set[str]) -> tuple[str, ...]:
    """The prefixes no other one starts (as prefixes they match all the others do)."""
    ordered = sorted(prefixes)
    return tuple(p for p in ordered if not any(p != q and p.startswith(q) for q in ordered))


def _edit_rows(dialect_name: str) -> str:
    if dialect_name == "postgresql":
        return "(SELECT unnest(CAST(:edits AS text[])) AS v)"
    return "(SELECT value AS v FROM json_each(:edits))"


def _fts5_prefix(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _fts5_term(word: str) -> str:
    return f'"{_fts5_prefix(word)}"*'  # words hold no quotes: letters and digits only


def fts5_match_expression(query: SearchQuery) -> str:
    return " AND ".join(_fts5_term(w) for w in query.words)


def by_terms(query: SearchQuery, dialect_name: str) -> bool:
    """Whether this query is answered from kept postings: one word of ASCII letters and digits (PostgreSQL: one
    token for its text parser, so the word's stem is the one lexeme `to_tsvector` gives it; SQLite: one token for
    FTS5 that tokenises to itself, so it can be looked up among the kept prefixes, which FTS5 wrote)."""
    return (dialect_name in ("postgresql", "sqlite") and not query.head
            and _ASCII_WORD.fullmatch(query.last) is not None)


def bind_values(query: SearchQuery, dialect_name: str) -> dict[str, str]:
    """Values for the bind parameters of `matches` (the query text never becomes SQL)."""
    if dialect_name == "postgresql":
        if by_terms(query, dialect_name):
            return {"search_word": query.last}
        return _pg_exact_values(query)
    values = {"search_match": fts5_match_expression(query)}
    if by_terms(query, dialect_name):
        values["search_prefix"] = _fts5_prefix(query.last)
    return values


def fuzzy_bind_values(found: Corrections, dialect_name: str, *, only: bool) -> dict[str, str]:
    """Values for `matches(..., fuzzy=found.shape)`: each word or its alternatives, every word required; `only`:
    without the exact matches (the typo branch of a listing), else all of them (facet counts)."""
    query = found.query
    if dialect_name == "postgresql":
        values = _pg_exact_values(query)  # the exact query, left out with `only`
        for n, (word, others) in enumerate(zip(query.words, found.alternatives, strict=True)):
            values[f"fuzzy_word_{n}"] = f"'{word}':*" if n == len(query.words) - 1 else f"'{word}'"
            if others:
                values[f"fuzzy_alt_{n}"] = " | ".join(f"'{o}':*" for o in others)
        return values
    terms = [f"({' OR '.join([_fts5_term(w), *(_fts5_term(o) for o in others)])})" if others else _fts5_term(w)
             for w, others in zip(query.words, found.alternatives, strict=True)]
    either = " AND ".join(terms)
    return {"search_match": f"({either}) NOT ({fts5_match_expression(query)})" if only else either}


def _pg_exact_values(query: SearchQuery) -> dict[str, str]:
    """Letters and digits cannot break out of the quotes."""
    values = {"search_last": f"'{query.last}':*"}
    if query.head:
        values["search_head"] = " ".join(query.head)
    return values


def _pg_fuzzy_tsquery(shape: tuple[bool, ...]):  # noqa: ANN202 (SQL expression)
    """Every word (English stem; the last also as typed, as a prefix) or one of its alternatives (prefixes, as
    typed and stemmed)."""
    english: ColumnElement[Any] = literal_column("'english'::regconfig")
    simple: ColumnElement[Any] = literal_column("'simple'::regconfig")
    query: ColumnElement[Any] | None = None
    for n, has_alternatives in enumerate(shape):
        word = bindparam(f"fuzzy_word_{n}", type_=String)
        term: ColumnElement[Any] = func.to_tsquery(english, word)
        if n == len(shape) - 1:
            term = term.op("||")(func.to_tsquery(simple, word))
        if has_alternatives:  # as typed and stemmed (descriptions hold stems only), like the last word
            alternatives = bindparam(f"fuzzy_alt_{n}", type_=String)
            term = term.op("||")(func.to_tsquery(english, alternatives)).op("||")(func.to_tsquery(simple, alternatives))
        query = term if query is None else query.op("&&")(term)
    return query


def _pg_tsquery(has_head: bool):  # noqa: ANN202 (SQL expression)
    last_word = bindparam("search_last", type_=String)
    last = func.to_tsquery(literal_column("'english'::regconfig"), last_word).op("||")(
        func.to_tsquery(literal_column("'simple'::regconfig"), last_word)
    )
    if not has_head:
        return last
    head = func.plainto_tsquery(literal_column("'english'::regconfig"), bindparam("search_head", type_=String))
    return head.op("&&")(last)


# One word from `agent_search_prefixes` / `agent_search_postings` (revision 0021). The word matches the lexemes
# starting with its English stem or with itself; the minimal prefixes among those (no other one starts them)
# partition the matching lexemes. One minimal prefix: its postings are the answer as kept (a document's total is
# its rank x 10, the count is kept), and a page needs only the highest totals down to the tier holding its last
# row. Several (a short prefix, or a stem that is not a prefix of the word): their postings summed per document.
# `{cut}` is true for a page (`page_offset`, `page_limit`) ordered by relevance, false for every match.
_TERMS_SQL = """
WITH word AS MATERIALIZED (
    SELECT CAST(:search_word AS text) COLLATE "C" AS w,
           coalesce((tsvector_to_array(to_tsvector('english'::regconfig, CAST(:search_word AS text))))[1],
                    CAST(:search_word AS text)) COLLATE "C" AS stem
), matching AS MATERIALIZED (
    SELECT x.prefix, x.live_count FROM agent_search_prefixes AS x, word
    WHERE x.prefix >= least(word.stem, word.w) AND x.prefix < greatest(word.stem, word.w) || chr(1114111) -- U+10FFFF
      AND (starts_with(x.prefix, word.stem) OR starts_with(x.prefix, word.w))
), minimal AS MATERIALIZED (
    SELECT m.prefix, m.live_count FROM matching AS m
    WHERE NOT EXISTS (SELECT 1 FROM matching AS y WHERE y.prefix < m.prefix AND starts_with(m.prefix, y.prefix))
), single AS (
    SELECT prefix, live_count FROM minimal WHERE (SELECT count(*) FROM minimal) = 1
), tiers AS (
    SELECT p.total, sum(cardinality(p.doc_keys)) AS n
    FROM agent_search_postings AS p JOIN single USING (prefix) GROUP BY p.total
), cut AS (
    SELECT CASE WHEN {cut} THEN coalesce(min(t.total), 0) ELSE 0 END AS total
    FROM (SELECT total, sum(n) OVER (ORDER BY total DESC) - n AS before FROM tiers) AS t
    WHERE t.before < :page_offset + :page_limit
), sums AS MATERIALIZED (
    SELECT d AS doc_key, sum(p.total)::integer AS total
    FROM agent_search_postings AS p JOIN minimal USING (prefix), unnest(p.doc_keys) AS d
    WHERE (SELECT count(*) FROM minimal) > 1
    GROUP BY d
), hits AS (
    SELECT d AS doc_key, p.total FROM agent_search_postings AS p JOIN single USING (prefix), unnest(p.doc_keys) AS d
    WHERE p.total >= (SELECT total FROM cut)
    UNION ALL
    SELECT doc_key, total FROM sums
    WHERE NOT {cut} OR total >= coalesce(
        (SELECT total FROM sums ORDER BY total DESC OFFSET :page_offset + :page_limit - 1 LIMIT 1), 0)
), ranked AS (
    SELECT doc_key, total FROM hits {top}
)
SELECT s.agent_id COLLATE "default" AS agent_id, -h.total AS rank, h.doc_key,
       coalesce((SELECT live_count FROM single), (SELECT count(*) FROM sums))::integer AS matched
FROM ranked AS h JOIN agent_search AS s ON s.doc_key = h.doc_key
"""
# A page: its rows by (total, doc key) before their agent ids are read (a tie tier's page is its first keys).
_TOP = "ORDER BY total DESC, doc_key LIMIT :page_offset + :page_limit"


# SQLite: the best `page_offset + page_limit` matches by (rank, search key), ranked inside FTS5 (a top-k sort of
# rowid and rank), and only then their agent ids.
_FTS_PAGE_SQL = f"""
SELECT d.agent_id AS agent_id, t.rank AS rank, t.search_key AS search_key
FROM (SELECT rowid AS search_key, {_BM25} AS rank FROM agents_fts WHERE agents_fts MATCH :search_match
      ORDER BY rank, rowid LIMIT :page_offset + :page_limit) AS t
JOIN agent_search_docs AS d ON d.search_key = t.search_key
"""


def _sqlite_page(name: str) -> CTE:
    paging = [bindparam(n, type_=Integer, literal_execute=True) for n in ("page_offset", "page_limit")]
    statement = text(_FTS_PAGE_SQL).bindparams(bindparam("search_match", type_=String), *paging)
    return (statement.columns(column("agent_id", String), column("rank", Float), column("search_key", Integer))
            .cte(name).prefix_with("MATERIALIZED"))


# SQLite, one word, a relevance page from the kept impacts (revision 0024). For one FTS5 phrase `bm25` is
# -idf * F * (k1 + 1) / (F + k1 * (1 - b + b * D / avgdl)) with `idf` the same for every match, so among matches
# with the same weighted count F (`freq`) the shortest (`size`, then search key) come first: the page is the
# merge of, per distinct `freq` (walked from the index one value at a time), its first `page_offset +
# page_limit` rows (ties on the last size included). Their ranks are computed as FTS5 computes them (the same
# operations in the same order, in doubles; `idf` and `avgdl` from the kept count and totals), so pages and ties
# equal ranking every match with `bm25`. A word that is not a kept prefix (partly typed, or new since), or a page
# deeper than `_KEPT_DEPTH`, takes the FTS5 page instead (`fts`, empty otherwise). Every row carries `matched`.
_KEPT_DEPTH = 480
_KEPT_PAGE_SQL = f"""
WITH RECURSIVE kept AS MATERIALIZED (
    SELECT id, live_count FROM agent_search_kept
    WHERE prefix = :search_prefix AND live_count IS NOT NULL AND :page_offset + :page_limit <= {_KEPT_DEPTH}
), freqs(freq) AS (
    SELECT (SELECT max(i.freq) FROM agent_search_impacts AS i WHERE i.prefix_id = (SELECT id FROM kept))
    UNION ALL
    SELECT (SELECT max(i.freq) FROM agent_search_impacts AS i
            WHERE i.prefix_id = (SELECT id FROM kept) AND i.freq < f.freq)
    FROM freqs AS f WHERE f.freq IS NOT NULL
), stats AS MATERIALIZED (
    SELECT CASE WHEN idf <= 0.0 THEN 1e-6 ELSE idf END AS idf, avgdl, live_count FROM (
        SELECT ln((t.docs - k.live_count + 0.5) / (k.live_count + 0.5)) AS idf,
               CAST(t.tokens AS REAL) / max(t.docs, 1) AS avgdl, k.live_count
        FROM agent_search_totals AS t, kept AS k)
), candidates AS MATERIALIZED (
    SELECT i.search_key, i.freq, i.size FROM freqs AS f
    JOIN agent_search_impacts AS i ON i.prefix_id = (SELECT id FROM kept) AND i.freq = f.freq
     AND i.size <= coalesce((SELECT j.size FROM agent_search_impacts AS j
                             WHERE j.prefix_id = (SELECT id FROM kept) AND j.freq = f.freq
                             ORDER BY j.size, j.search_key LIMIT 1 OFFSET :page_offset + :page_limit - 1),
                            9223372036854775807)
), top AS MATERIALIZED (
    SELECT c.search_key, s.live_count AS matched,
           -1.0 * (s.idf * ((c.freq * ({_K1} + 1.0)) / (c.freq + {_K1} * (1 - {_B} + {_B} * c.size / s.avgdl))))
           AS rank
    FROM candidates AS c, stats AS s ORDER BY rank, c.search_key LIMIT :page_offset + :page_limit
), fts AS MATERIALIZED (
    SELECT rowid AS search_key, {_BM25} AS rank FROM agents_fts
    WHERE agents_fts MATCH :search_match AND NOT EXISTS (SELECT 1 FROM kept)
    ORDER BY rank, rowid LIMIT :page_offset + :page_limit
)
SELECT d.agent_id AS agent_id, t.rank AS rank, t.search_key AS search_key, t.matched AS matched
FROM top AS t JOIN agent_search_docs AS d ON d.search_key = t.search_key
UNION ALL
SELECT d.agent_id, f.rank, f.search_key,
       (SELECT count(*) FROM agents_fts WHERE agents_fts MATCH :search_match)
FROM fts AS f JOIN agent_search_docs AS d ON d.search_key = f.search_key
"""


def _sqlite_kept_page(name: str) -> CTE:
    paging = [bindparam(n, type_=Integer, literal_execute=True) for n in ("page_offset", "page_limit")]
    statement = text(_KEPT_PAGE_SQL).bindparams(bindparam("search_match", type_=String),
                                                bindparam("search_prefix", type_=String), *paging)
    return (statement.columns(column("agent_id", String), column("rank", Float), column("search_key", Integer),
                              column("matched", Integer))
            .cte(name).prefix_with("MATERIALIZED"))


def match_count(dialect_name: str):  # noqa: ANN201 (SQL expression)
    """SQLite: the number of live agents matching the bound query, from the FTS index alone (it holds live
    documents only)."""
    if dialect_name != "sqlite":
        raise NotImplementedError(f"no kept match count for {dialect_name}")
    return (select(func.count()).select_from(_fts)
            .where(literal_column("agents_fts").op("MATCH")(bindparam("search_match", type_=String)))
            .scalar_subquery())


def tiebreak(found: CTE, dialect_name: str):  # noqa: ANN201 (SQL expression)
    """The column that orders equal ranks of `matches`: the document's key in the index (`doc_key` on PostgreSQL,
    `search_key` on SQLite; both follow the order agents were indexed in), so that a page of a large tie is the
    index's first keys and never needs the agent ids of the whole tie."""
    return found.c.search_key if dialect_name == "sqlite" else found.c.doc_key


def _pg_term_matches(name: str, page: bool) -> CTE:
    """One word's `(agent_id, rank, matched)` from the kept postings; `matched` is the number of all matches.
    With `page`, only the rows a relevance page (bound offset and limit) can hold, ties included."""
    paging = [bindparam(n, type_=Integer, literal_execute=True) for n in ("page_offset", "page_limit")]
    statement = text(_TERMS_SQL.format(cut="true" if page else "false", top=_TOP if page else "")).bindparams(
        bindparam("search_word", type_=String), *paging)
    return (statement.columns(column("agent_id", String), column("rank", Integer), column("doc_key", Integer),
                              column("matched", Integer))
            .cte(name).prefix_with("MATERIALIZED"))


def matches(has_head: bool, dialect_name: str, *, name: str = "search", ranked: bool = True,
            terms: bool = False, page: bool = False, fuzzy: tuple[bool, ...] | None = None,
            only: bool = False) -> CTE:
    """`(agent_id, rank)` of the agents matching the bound query (see `bind_values`), smaller rank =
    better; without `rank` when not `ranked`. `has_head`: the query has more than one word; `terms`: it is
    answered from the kept postings (`by_terms`; then also `matched`, the number of all matches, and with
    `page` only the rows of the bound relevance page; SQLite: with `page` only, from the kept impacts when the
    word's prefix is kept, else from FTS5). Both return live agents only. SQLite also gives `search_key` (equal
    ranks are ordered by it, see `tiebreak`), and with `page` only the first `page_offset + page_limit` matches
    by relevance. `fuzzy` (`Corrections.shape`, values from `fuzzy_bind_values`): the typo matches, with `only`
    those that are not exact matches (SQLite: all in the bound FTS5 expression).

    A materialised CTE, so that a page and its total share one index scan and one ranking pass."""
    if dialect_name == "postgresql" and terms:
        return _pg_term_matches(name, page)
    if dialect_name == "postgresql":
        tsq = _pg_tsquery(has_head) if fuzzy is None else _pg_fuzzy_tsquery(fuzzy)
        columns = [_pg_search.c.agent_id.label("agent_id"), _pg_search.c.doc_key.label("doc_key")]
        if ranked:
            columns.append((-func.ts_rank_cd(_pg_search.c.document, tsq)).label("rank"))
        conditions = [_pg_search.c.live, _pg_search.c.document.op("@@")(tsq)]
        if fuzzy is not None and only:
            conditions.append(not_(_pg_search.c.document.op("@@")(_pg_tsquery(has_head))))
        return (
            select(*columns)
            .where(*conditions)
            .cte(name)
            .prefix_with("MATERIALIZED")
        )
    if dialect_name == "sqlite" and page:
        return _sqlite_kept_page(name) if terms else _sqlite_page(name)
    if dialect_name == "sqlite":
        fts: ColumnElement[Any] = literal_column("agents_fts")
        columns = [_docs.c.agent_id.label("agent_id"), _docs.c.search_key.label("search_key")]
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
        # The postings are rebuilt in one set-based pass, not document by document by their row trigger.
        connection.execute(text("TRUNCATE agent_search"))
        connection.execute(text("ALTER TABLE agent_search DISABLE TRIGGER agent_search_postings_sync"))
        connection.execute(text("SELECT agent_search_refresh(ARRAY(SELECT id FROM agents))"))
        connection.execute(text("ALTER TABLE agent_search ENABLE TRIGGER agent_search_postings_sync"))
        connection.execute(text("SELECT agent_search_postings_rebuild()"))
    elif connection.dialect.name == "sqlite":
        connection.execute(text("DELETE FROM agent_search_docs"))
        connection.execute(
            text(
                """
                INSERT INTO agent_search_docs(agent_id, name, short_description, description, tags, vendor, live)
                SELECT a.id, a.name, a.short_description, a.description,
                       coalesce((SELECT group_concat(tag, ' ') FROM agent_tags t WHERE t.agent_id = a.id), ''),
                       coalesce((SELECT username FROM users u WHERE u.id = a.vendor_id), ''),
                       a.status = 'approved' AND a.deleted_at IS NULL
                FROM agents a
                """
            )
        )
        connection.execute(text("INSERT INTO agents_fts(agents_fts) VALUES ('rebuild')"))
        # The kept impacts (revision 0024) from the rebuilt index in one pass (the triggers kept them row by row).
        for statement in _kept_from_index(""):
            connection.execute(text(statement))
    else:
        raise NotImplementedError(f"no full-text search for {connection.dialect.name}")


_COLUMN_WEIGHT = ("CASE v.col " + " ".join(f"WHEN '{c}' THEN {int(w)}" for c, w in zip(
    ("name", "short_description", "description", "tags", "vendor"), BM25_WEIGHTS, strict=True)) + " END")
_PREFIX_OF = ("(k.prefix IN (substr(v.term, 1, 1), substr(v.term, 1, 2)) OR k.prefix BETWEEN substr(v.term, 1, 3) "
              "AND v.term AND substr(v.term, 1, length(k.prefix)) = k.prefix)")  # as in revision 0024


def _kept_from_index(into: str) -> list[str]:
    """SQLite: statements filling `agent_search_{impacts,sizes,totals}` + `into` from the FTS index (the live
    documents) as revision 0024's backfill does. `into` empty: the kept tables themselves (emptied first), every
    token of the index becomes a kept prefix and the prefixes' counts are recomputed; else scratch copies."""
    sizes = f"""INSERT INTO agent_search_sizes{into}(search_key, size)
                SELECT doc, count(*) FROM agent_search_terms GROUP BY doc"""
    totals = f"""INSERT INTO agent_search_totals{into}(id, docs, tokens)
                 SELECT 1, count(*), coalesce(sum(size), 0) FROM agent_search_sizes{into}"""
    prefixes = """INSERT INTO agent_search_kept(prefix) SELECT DISTINCT v.term FROM agent_search_terms AS v
                  WHERE NOT EXISTS (SELECT 1 FROM agent_search_kept AS k WHERE k.prefix = v.term)"""
    impacts = f"""INSERT INTO agent_search_impacts{into}(prefix_id, freq, size, search_key)
        SELECT prefix_id, freq, size, search_key FROM (
            SELECT k.id AS prefix_id, sum(v.freq) AS freq, s.size AS size, v.doc AS search_key
            FROM (SELECT v.term AS term, v.doc AS doc, sum({_COLUMN_WEIGHT}) AS freq
                  FROM agent_search_terms AS v GROUP BY v.term, v.doc) AS v
            JOIN agent_search_kept AS k ON {_PREFIX_OF}
            JOIN agent_search_sizes{into} AS s ON s.search_key = v.doc
            GROUP BY k.id, v.doc)
        ORDER BY prefix_id, freq, size, search_key"""
    counts = """UPDATE agent_search_kept SET live_count = (
                SELECT count(*) FROM agent_search_impacts AS i WHERE i.prefix_id = agent_search_kept.id)"""
    if into:
        return [sizes, totals, impacts]
    empty = [f"DELETE FROM agent_search_{name}" for name in ("impacts", "sizes", "totals")]
    return [*empty, sizes, totals, prefixes, impacts, counts]


def check_index(connection) -> None:  # noqa: ANN001 (a SQLAlchemy Connection)
    """SQLite: raise if the FTS index differs from its content, the live documents (used by tests)."""
    if connection.dialect.name == "sqlite":
        connection.execute(text("INSERT INTO agents_fts(agents_fts, rank) VALUES ('integrity-check', 1)"))
        wrong = connection.execute(text("""
            SELECT count(*) FROM agents a LEFT JOIN agent_search_docs d ON d.agent_id = a.id
            WHERE d.live IS NOT (a.status = 'approved' AND a.deleted_at IS NULL)
        """)).scalar_one()
        if wrong:
            raise RuntimeError(f"{wrong} search documents disagree with their agent about being live")
        _check_kept(connection)


def _check_kept(connection) -> None:  # noqa: ANN001 (a SQLAlchemy Connection)
    """SQLite: raise if the kept impacts, sizes, totals or prefix counts differ from what the index gives."""
    for name in ("impacts", "sizes", "totals"):
        connection.execute(text(f"DROP TABLE IF EXISTS temp.agent_search_{name}_check"))
        connection.execute(text(f"CREATE TEMP TABLE agent_search_{name}_check AS "
                                f"SELECT * FROM agent_search_{name} WHERE 0"))
    for statement in _kept_from_index("_check"):
        connection.execute(text(statement))
    differ = []
    for name in ("impacts", "sizes", "totals"):
        n = connection.execute(text(f"""SELECT count(*) FROM (
            SELECT * FROM agent_search_{name} EXCEPT SELECT * FROM temp.agent_search_{name}_check
            UNION ALL
            SELECT * FROM temp.agent_search_{name}_check EXCEPT SELECT * FROM agent_search_{name})""")).scalar_one()
        if n:
            differ.append(name)
    unkept = connection.execute(text("""SELECT count(*) FROM agent_search_terms AS v
        WHERE NOT EXISTS (SELECT 1 FROM agent_search_kept AS k WHERE k.prefix = v.term)""")).scalar_one()
    if unkept:
        differ.append("kept prefixes")
    counts = connection.execute(text("""SELECT count(*) FROM agent_search_kept AS k WHERE k.live_count IS NOT
        (SELECT count(*) FROM temp.agent_search_impacts_check AS i WHERE i.prefix_id = k.id)""")).scalar_one()
    if counts:
        differ.append("kept counts")
    if differ:
        raise RuntimeError(f"kept search tables differ from the index: {', '.join(differ)}")
