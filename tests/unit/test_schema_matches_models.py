"""The migrated schema and the SQLModel tables agree, so a model change without a revision fails here."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from marketplace import db

# Kept by migrations only and read by raw SQL: the search index (SQLite FTS5, PostgreSQL tsvector and its kept
# postings), the catalogue version counter, the admin searches' trigram indexes (revision 0021) and their SQLite
# FTS5 trigram shadows `admin_search_<table>` with `admin_search_<table>_fts*` (revision 0023), SQLite's kept
# search impacts and the FTS5 scratch table that tokenises for their triggers (`agent_search_scratch*`, 0024).
MIGRATION_ONLY = {"agent_search_docs", "agent_search", "agent_search_prefixes", "agent_search_postings",
                  "agent_search_kept", "agent_search_impacts", "agent_search_sizes", "agent_search_totals",
                  "agent_search_terms",
                  "catalog_version", "catalog_touches"}


def _migration_only(change: tuple) -> bool:
    kind, item = change[0], change[1]
    table = item.name if kind == "remove_table" else item.table.name if kind == "remove_index" else None
    if kind == "remove_index" and item.name.startswith("ix_trgm_"):
        return True
    prefixes = ("agents_fts", "admin_search_", "agent_search_scratch")
    return table is not None and (table in MIGRATION_ONLY or table.startswith(prefixes))


def test_migrated_schema_matches_the_models():
    with db.engine().connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": False}), SQLModel.metadata)
    drift = [change for change in diff if not (isinstance(change, tuple) and _migration_only(change))]
    assert drift == []
