"""Public catalogue reads cached per catalog version; PostgreSQL ranks one-word searches from a term table

Revision ID: 0014
Revises: 0013

One agent, its reviews, the categories and the stats are now cached per process under `catalog_version`,
like listing pages (services/catalog/reads.py). The version already moves with agents, tags, files,
categories and vendor usernames (0004); it now also moves, in the same commit, when
- a review is written, edited or deleted (a review page's rows),
- a purchase is added, changed or deleted (a review's "verified purchase" mark),
- a user is added or deleted, or changes first name or deletion time (the stats' user count, review authors).

PostgreSQL: `agent_search_terms` holds, for every live agent and every lexeme of its search document, the
lexeme's score: the sum of its positions' weights (A 1.0, B 0.4, C 0.2, D 0.1). For a query of one (prefix)
word `ts_rank_cd` is exactly the sum of the matching lexemes' scores (every matching position is a cover of
its own), so a one-word search is a range scan of this table's primary key, summed per agent, instead of
reading and ranking every matching document (27,455 of them for a word a third of the catalogue holds).
A row trigger on `agent_search` keeps it: the same transaction that changes a document changes its terms.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BUMP = "UPDATE catalog_version SET version = version + 1 WHERE id = 1;"
USER_COLUMNS = "username, first_name, deleted_at"

SQLITE_NEW = {
    **{f"{table}_version_{event.lower()}": f"CREATE TRIGGER {table}_version_{event.lower()} AFTER {event} ON {table} "
       f"BEGIN {BUMP} END"
       for table in ("reviews", "purchases") for event in ("INSERT", "UPDATE", "DELETE")},
    **{f"users_version_{event.lower()}": f"CREATE TRIGGER users_version_{event.lower()} AFTER {event} ON users "
       f"BEGIN {BUMP} END"
       for event in ("INSERT", "DELETE")},
}
SQLITE_USERS_UPDATE = ("CREATE TRIGGER users_version_update AFTER UPDATE OF {columns} ON users "
                       f"BEGIN {BUMP} END")

POSTGRES_NEW = {
    **{f"{table}_version": f"CREATE TRIGGER {table}_version AFTER INSERT OR DELETE OR UPDATE ON {table} "
       "FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()" for table in ("reviews", "purchases")},
    **{f"{table}_version_truncate": f"CREATE TRIGGER {table}_version_truncate AFTER TRUNCATE ON {table} "
       "FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()" for table in ("reviews", "purchases")},
}
POSTGRES_USERS = ("CREATE TRIGGER users_version AFTER {events} ON users FOR EACH STATEMENT "
                  "EXECUTE FUNCTION catalog_touch()")


POSTGRES_TERMS = [
    """
    CREATE TABLE agent_search_terms (
        lexeme text COLLATE "C" NOT NULL,
        agent_id varchar(32) NOT NULL,
        score double precision NOT NULL,
        PRIMARY KEY (lexeme, agent_id) INCLUDE (score)
    )
    """,
    # The weights of ts_rank_cd's defaults ({0.1, 0.2, 0.4, 1.0} for D, C, B, A), as float4 like its own.
    """
    CREATE FUNCTION agent_search_weight_sum(p_weights text[]) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(sum((CASE w WHEN 'A' THEN 1.0::float4 WHEN 'B' THEN 0.4::float4 WHEN 'C' THEN 0.2::float4
                             ELSE 0.1::float4 END)::float8), 0) FROM unnest(p_weights) AS w
    $$
    """,
    """
    CREATE FUNCTION agent_search_terms_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'UPDATE' AND OLD.live = NEW.live AND OLD.document = NEW.document THEN
            RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.live THEN
            DELETE FROM agent_search_terms
            WHERE lexeme = ANY(tsvector_to_array(OLD.document)) AND agent_id = OLD.agent_id;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.live THEN
            INSERT INTO agent_search_terms (lexeme, agent_id, score)
            SELECT u.lexeme, NEW.agent_id, agent_search_weight_sum(u.weights::text[]) FROM unnest(NEW.document) AS u;
        END IF;
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER agent_search_terms_sync AFTER INSERT OR DELETE OR UPDATE ON agent_search "
    "FOR EACH ROW EXECUTE FUNCTION agent_search_terms_sync()",
    """
    CREATE FUNCTION agent_search_terms_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        TRUNCATE agent_search_terms;
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER agent_search_terms_truncate AFTER TRUNCATE ON agent_search "
    "FOR EACH STATEMENT EXECUTE FUNCTION agent_search_terms_truncate()",
    """
    INSERT INTO agent_search_terms (lexeme, agent_id, score)
    SELECT u.lexeme, s.agent_id, agent_search_weight_sum(u.weights::text[])
    FROM agent_search AS s, unnest(s.document) AS u
    WHERE s.live
    """,
]
POSTGRES_TERMS_DROP = [
    "DROP TRIGGER IF EXISTS agent_search_terms_truncate ON agent_search",
    "DROP FUNCTION IF EXISTS agent_search_terms_truncate()",
    "DROP TRIGGER IF EXISTS agent_search_terms_sync ON agent_search",
    "DROP FUNCTION IF EXISTS agent_search_terms_sync()",
    "DROP FUNCTION IF EXISTS agent_search_weight_sum(text[])",
    "DROP TABLE IF EXISTS agent_search_terms",
]


def _table(name: str) -> str:
    return name.split("_version")[0]


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for ddl in POSTGRES_NEW.values():
            op.execute(ddl)
        op.execute("DROP TRIGGER IF EXISTS users_version ON users")
        op.execute(POSTGRES_USERS.format(events=f"INSERT OR DELETE OR UPDATE OF {USER_COLUMNS}"))
        for ddl in POSTGRES_TERMS:
            op.execute(ddl)
        op.execute("ANALYZE agent_search_terms")
    else:
        for ddl in SQLITE_NEW.values():
            op.execute(ddl)
        op.execute("DROP TRIGGER IF EXISTS users_version_update")
        op.execute(SQLITE_USERS_UPDATE.format(columns=USER_COLUMNS))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for ddl in POSTGRES_TERMS_DROP:
            op.execute(ddl)
        op.execute("DROP TRIGGER IF EXISTS users_version ON users")
        op.execute(POSTGRES_USERS.format(events="UPDATE OF username"))
        for name in reversed(POSTGRES_NEW):
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON {_table(name)}")
    else:
        op.execute("DROP TRIGGER IF EXISTS users_version_update")
        op.execute(SQLITE_USERS_UPDATE.format(columns="username"))
        for name in reversed(SQLITE_NEW):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
