"""Reflex event handlers never `setattr` a name sent by the browser: each settable field has a named setter."""

from __future__ import annotations

import ast
from pathlib import Path

from marketplace.state.dashboard import DashboardState

STATE_DIR = Path(__file__).resolve().parents[2] / "marketplace" / "state"


def _event_handlers(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and any(ast.unparse(d).startswith("rx.event") for d in node.decorator_list)]


def test_no_event_handler_calls_setattr():
    offenders = []
    for path in sorted(STATE_DIR.rglob("*.py")):
        for handler in _event_handlers(ast.parse(path.read_text())):
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr"
                   for n in ast.walk(handler)):
                offenders.append(f"{path.name}:{handler.name}")
    assert offenders == []


def test_profile_form_has_one_setter_per_field():
    assert not hasattr(DashboardState, "set_form_field")
    for name in ("first_name", "last_name", "email", "current_password"):
        assert callable(getattr(DashboardState, f"set_form_{name}"))
