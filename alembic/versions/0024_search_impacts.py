"""SQLite search: kept per-prefix impacts, so the top page of one common word is a few index ranges

Revision ID: 0024
Revises: 0023

A one-word search on SQLite ranked every match with FTS5's `bm25` (27,455 matches for `emails` at 100,000 agents:
~17 ms of position lists and document sizes per request). For one query phrase `bm25` is
`-idf * F * (k1 + 1) / (F + k1 * (1 - b + b * D / avgdl))`, where `idf` is the same for every match, `F` is the
document's column-weighted count of tokens under the prefix and `D` its length in tokens: among documents with
the same `F` the best are the shortest. So the top `n` of a word is the merge of, per distinct `F` (a few dozen),
its first `n` rows by `(D, search key)`, which an index on `(prefix, F, D, search key)` gives as ranges.

Kept here (SQLite only; PostgreSQL has 0021's postings and is unchanged):
- `agent_search_kept (id, prefix, live_count)`: every token of a live document (as FTS5 tokenises it), used as a
  prefix, with the number of live documents having a token that starts with it (the search's total);
- `agent_search_impacts (prefix_id, freq, size, search_key)`: per kept prefix and live document, `F` (integer:
  the column weights are integers) and `D`;
- `agent_search_sizes (search_key, size)` and `agent_search_totals (docs, tokens)`: `D` per live document and
  the index's row count and token total, from which a search computes `avgdl` and `idf` as FTS5 does.
Triggers on `agent_search_docs` (the same rows, old and new values, that 0022's triggers give to `agents_fts`)
tokenise a document in the contentless FTS5 table `agent_search_scratch` (same tokenizer) and read its tokens
back through `fts5vocab`, so no tokenizer is written twice; a token new to the catalogue becomes a kept prefix and
gets its postings from the index (`agent_search_terms`, `fts5vocab` over `agents_fts`). Every write that changes a
document's text or liveness (agent create, edit, approve, unpublish, delete, tags, vendor rename) goes through
those rows, in the writer's transaction.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLS = ("name", "short_description", "description", "tags", "vendor")
# bm25 column weights of the catalogue search (services/catalog/search.py: BM25_WEIGHTS), in FTS column order.
_WEIGHTS = (10, 5, 1, 4, 2)
_W = "CASE v.col " + " ".join(f"WHEN '{c}' THEN {w}" for c, w in zip(_COLS, _WEIGHTS, strict=True)) + " END"
# k is a kept prefix of v.term (both as FTS5 stores them): the term's first one or two characters, or an index
# range from its first three characters to the term itself with the exact test.
_PREFIX_OF = ("(k.prefix IN (substr(v.term, 1, 1), substr(v.term, 1, 2)) OR k.prefix BETWEEN substr(v.term, 1, 3) "
              "AND v.term AND substr(v.term, 1, length(k.prefix)) = k.prefix)")

_TABLES = [
    """CREATE TABLE agent_search_kept (
        id INTEGER PRIMARY KEY, prefix TEXT NOT NULL UNIQUE, live_count INTEGER)""",
    """CREATE TABLE agent_search_impacts (
        prefix_id INTEGER NOT NULL, freq INTEGER NOT NULL, size INTEGER NOT NULL, search_key INTEGER NOT NULL,
        PRIMARY KEY (prefix_id, freq, size, search_key)) WITHOUT ROWID""",
    "CREATE TABLE agent_search_sizes (search_key INTEGER PRIMARY KEY, size INTEGER NOT NULL)",
    """CREATE TABLE agent_search_totals (
        id INTEGER PRIMARY KEY CHECK (id = 1), docs INTEGER NOT NULL, tokens INTEGER NOT NULL)""",
    f"""CREATE VIRTUAL TABLE agent_search_scratch USING fts5(
        {', '.join(_COLS)}, content='', tokenize='unicode61 remove_diacritics 2')""",
    "CREATE VIRTUAL TABLE agent_search_scratch_vocab USING fts5vocab(agent_search_scratch, instance)",
    "CREATE VIRTUAL TABLE agent_search_terms USING fts5vocab(agents_fts, instance)",
]
_DROP = ["agent_search_terms", "agent_search_scratch_vocab", "agent_search_scratch", "agent_search_totals",
         "agent_search_sizes", "agent_search_impacts", "agent_search_kept"]


def _remove(ref: str, cond: str) -> str:
    """Statements taking document `ref` (old) out of the kept tables when `cond`."""
    row = ", ".join(f"{ref}.{c}" for c in _COLS)
    return f"""
        INSERT INTO agent_search_scratch(rowid, {', '.join(_COLS)}) SELECT {ref}.search_key, {row} WHERE {cond};
        DELETE FROM agent_search_impacts WHERE (prefix_id, freq, size, search_key) IN (
            SELECT k.id, sum({_W}), (SELECT count(*) FROM agent_search_scratch_vocab), {ref}.search_key
            FROM agent_search_scratch_vocab AS v JOIN agent_search_kept AS k ON {_PREFIX_OF} GROUP BY k.id);
        UPDATE agent_search_kept SET live_count = live_count - 1 WHERE id IN (
            SELECT k.id FROM agent_search_scratch_vocab AS v JOIN agent_search_kept AS k ON {_PREFIX_OF});
        UPDATE agent_search_totals SET docs = docs - 1,
            tokens = tokens - (SELECT count(*) FROM agent_search_scratch_vocab) WHERE {cond};
        DELETE FROM agent_search_sizes WHERE search_key = {ref}.search_key AND {cond};
        INSERT INTO agent_search_scratch(agent_search_scratch) SELECT 'delete-all' WHERE {cond};"""


def _add(ref: str, cond: str) -> str:
    """Statements putting document `ref` (new) into the kept tables when `cond`; its tokens new to the catalogue
    become kept prefixes with the postings of the other live documents (the index may or may not hold `ref` yet:
    its own rows are added after)."""
    row = ", ".join(f"{ref}.{c}" for c in _COLS)
    own = f"(SELECT size FROM agent_search_sizes WHERE search_key = {ref}.search_key)"
    return f"""
        INSERT INTO agent_search_scratch(rowid, {', '.join(_COLS)}) SELECT {ref}.search_key, {row} WHERE {cond};
        INSERT INTO agent_search_sizes(search_key, size)
            SELECT {ref}.search_key, (SELECT count(*) FROM agent_search_scratch_vocab) WHERE {cond};
        UPDATE agent_search_totals SET docs = docs + 1, tokens = tokens + {own} WHERE {cond};
        INSERT INTO agent_search_kept(prefix, live_count)
            SELECT DISTINCT v.term, NULL FROM agent_search_scratch_vocab AS v
            WHERE NOT EXISTS (SELECT 1 FROM agent_search_kept AS k WHERE k.prefix = v.term);
        INSERT INTO agent_search_impacts(prefix_id, freq, size, search_key)
            SELECT k.id, sum({_W}), s.size, v.doc
            FROM agent_search_kept AS k  -- CROSS JOIN: the new prefixes first, then their index ranges
            CROSS JOIN agent_search_terms AS v ON v.term >= k.prefix AND v.term < k.prefix || char(1114111)
            JOIN agent_search_sizes AS s ON s.search_key = v.doc
            WHERE k.live_count IS NULL AND v.doc <> {ref}.search_key GROUP BY k.id, v.doc;
        UPDATE agent_search_kept SET live_count = (
            SELECT count(*) FROM agent_search_impacts AS i WHERE i.prefix_id = agent_search_kept.id)
            WHERE live_count IS NULL;
        INSERT INTO agent_search_impacts(prefix_id, freq, size, search_key)
            SELECT k.id, sum({_W}), {own}, {ref}.search_key
            FROM agent_search_scratch_vocab AS v JOIN agent_search_kept AS k ON {_PREFIX_OF} GROUP BY k.id;
        UPDATE agent_search_kept SET live_count = live_count + 1 WHERE id IN (
            SELECT k.id FROM agent_search_scratch_vocab AS v JOIN agent_search_kept AS k ON {_PREFIX_OF});
        INSERT INTO agent_search_scratch(agent_search_scratch) SELECT 'delete-all' WHERE {cond};"""


_CHANGED = " OR ".join(["old.live IS NOT new.live"] + [f"old.{c} IS NOT new.{c}" for c in _COLS])
_TRIGGERS = {
    "agent_search_docs_kept_ai": f"""
        CREATE TRIGGER agent_search_docs_kept_ai AFTER INSERT ON agent_search_docs WHEN new.live BEGIN
            {_add("new", "1")}
        END""",
    "agent_search_docs_kept_ad": f"""
        CREATE TRIGGER agent_search_docs_kept_ad AFTER DELETE ON agent_search_docs WHEN old.live BEGIN
            {_remove("old", "1")}
        END""",
    "agent_search_docs_kept_au": f"""
        CREATE TRIGGER agent_search_docs_kept_au AFTER UPDATE ON agent_search_docs
        WHEN (old.live OR new.live) AND ({_CHANGED}) BEGIN
            {_remove("old", "old.live")}
            {_add("new", "new.live")}
        END""",
}

# The kept tables from the index (which holds exactly the live documents): one scan of its tokens into
# (token, document, weighted count), then each pair under every kept prefix of its token, inserted in key order.
_BACKFILL = [
    "INSERT INTO agent_search_sizes(search_key, size) SELECT doc, count(*) FROM agent_search_terms GROUP BY doc",
    """INSERT INTO agent_search_totals(id, docs, tokens)
       SELECT 1, count(*), coalesce(sum(size), 0) FROM agent_search_sizes""",
    "INSERT INTO agent_search_kept(prefix) SELECT DISTINCT term FROM agent_search_terms ORDER BY term",
    f"""CREATE TEMP TABLE agent_search_pairs AS
        SELECT v.term AS term, v.doc AS doc, sum({_W}) AS freq FROM agent_search_terms AS v GROUP BY v.term, v.doc""",
    f"""INSERT INTO agent_search_impacts(prefix_id, freq, size, search_key)
        SELECT prefix_id, freq, size, search_key FROM (
            SELECT k.id AS prefix_id, sum(v.freq) AS freq, s.size AS size, v.doc AS search_key
            FROM temp.agent_search_pairs AS v JOIN agent_search_kept AS k ON {_PREFIX_OF}
            JOIN agent_search_sizes AS s ON s.search_key = v.doc
            GROUP BY k.id, v.doc)
        ORDER BY prefix_id, freq, size, search_key""",
    "DROP TABLE temp.agent_search_pairs",
    """UPDATE agent_search_kept SET live_count = (
           SELECT count(*) FROM agent_search_impacts AS i WHERE i.prefix_id = agent_search_kept.id)""",
]


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for ddl in _TABLES:
        op.execute(ddl)
    for sql in _BACKFILL:
        op.execute(sql)
    for ddl in _TRIGGERS.values():
        op.execute(ddl)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for name in _TRIGGERS:
        op.execute(f"DROP TRIGGER {name}")
    for name in _DROP:
        op.execute(f"DROP TABLE {name}")
