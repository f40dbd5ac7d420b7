"""The layout rules `lint-imports` cannot see: every top-level part of marketplace/ is placed in the layers
contract, and the migrations (alembic/ is not an importable package) import only the lower layers."""

from __future__ import annotations

import ast
import pkgutil
import re
import tomllib
from pathlib import Path

import marketplace

ROOT = Path(__file__).resolve().parents[2]
# What a migration may import from the app: the tables, the engine and the settings (migrate's level).
MIGRATION_IMPORTS = {"marketplace.models", "marketplace.db", "marketplace.config"}


def _layers_contract() -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = (c for c in config["contracts"] if c["type"] == "layers")
    return contract


def test_every_top_level_module_and_package_is_placed_in_a_layer():
    placed = {name for layer in _layers_contract()["layers"] for name in re.split(r"\s*[|:]\s*", layer)}
    top_level = {f"marketplace.{m.name}" for m in pkgutil.iter_modules(marketplace.__path__)}
    assert top_level >= {"marketplace.config", "marketplace.db", "marketplace.services", "marketplace.pages"}
    assert top_level - placed == set(), "place it in the layers contract of pyproject.toml [tool.importlinter]"
    assert placed - top_level == set(), "a layer names a module that is gone"


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names if node.module == "marketplace")
    return {name for name in names if name == "marketplace" or name.startswith("marketplace.")}


def test_migrations_import_only_models_db_and_config():
    scripts = [ROOT / "alembic" / "env.py", *sorted((ROOT / "alembic" / "versions").glob("*.py"))]
    assert len(scripts) > 20
    outside = {
        (path.name, name)
        for path in scripts
        for name in _imported(path)
        if name != "marketplace" and not any(name == m or name.startswith(f"{m}.") for m in MIGRATION_IMPORTS)
    }
    assert outside == set()


def test_the_migration_rule_sees_an_import_from_above(tmp_path):
    script = tmp_path / "0099_bad.py"
    script.write_text("from marketplace.services import catalog\nimport marketplace.models\n"
                      "from marketplace import db\n")
    assert _imported(script) == {"marketplace.services", "marketplace.models", "marketplace", "marketplace.db"}
