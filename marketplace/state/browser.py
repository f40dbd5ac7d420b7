"""Calls that must come from the browser itself, because their answer sets or clears the session cookie."""

from __future__ import annotations

import json
from typing import Any


def fetch_api(method: str, path: str, body: dict[str, Any] | None = None) -> str:
    """JS that calls `/api`, resolving to {ok, status, text} for a state callback."""
    init: list[str] = [f"method: {json.dumps(method)}", "credentials: 'include'"]
    if body is not None:
        init.append("headers: {'Content-Type': 'application/json'}")
        init.append(f"body: {json.dumps(json.dumps(body))}")
    return (
        f"fetch({json.dumps(path)}, {{{', '.join(init)}}})"
        ".then(async (r) => ({ok: r.ok, status: r.status, text: await r.text()}))"
        ".catch((e) => ({ok: false, status: 0, text: String(e)}))"
    )


def response_json(result: dict[str, Any]) -> dict[str, Any]:
    try:
        data = json.loads(result.get("text") or "")
    except (TypeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def error_message(result: dict[str, Any]) -> str:
    """The server's `message`, or empty when there is none."""
    return str(response_json(result).get("message") or "")
