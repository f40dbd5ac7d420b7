"""A migration is history: it must run the same SQL years later, so it imports nothing of the app.

import-linter (`.importlinter`) cannot see `alembic/versions` (not a package); this test reads each revision's
imports instead, top level and inside functions alike.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

VERSIONS = Path(__file__).resolve().parents[2] / "alembic" / "versions"
PROJECT = {"marketplace", "dev", "tests", "benchmarks", "rxconfig"}  # and any relative import


def _imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


@pytest.mark.parametrize("path", sorted(VERSIONS.glob("*.py")), ids=lambda p: p.name)
def test_a_migration_imports_nothing_of_the_project(path: Path):
    imported = _imported(ast.parse(path.read_text(encoding="utf-8")))
    assert "alembic" in imported, "not read as a revision"
    ours = sorted(name for name in imported if name.startswith(".") or name.split(".")[0] in PROJECT)
    assert ours == [], f"{path.name} imports {ours}: copy what it needs into the revision"
