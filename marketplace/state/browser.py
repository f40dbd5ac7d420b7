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


def download_js(path: str, fallback_name: str) -> str:
    """JS that fetches a file with the session cookie and saves it under the server's file name.

    Resolves to {ok, status, filename} for a state callback; a plain link cannot be used because the
    client router would intercept it and the callback could not report 403/404.
    """
    return (
        "(async () => { try {"
        f" const r = await fetch({json.dumps(path)}, {{credentials: 'include'}});"
        " if (!r.ok) return {ok: false, status: r.status, filename: ''};"
        " const cd = r.headers.get('Content-Disposition') || '';"
        " const m = /filename=\"?([^\";]+)\"?/i.exec(cd);"
        f" const filename = m ? m[1] : {json.dumps(fallback_name)};"
        " const url = URL.createObjectURL(await r.blob());"
        " const a = document.createElement('a');"
        " a.href = url; a.download = filename; a.style.display = 'none';"
        " document.body.appendChild(a); a.click(); a.remove();"
        " setTimeout(() => URL.revokeObjectURL(url), 60000);"
        " return {ok: true, status: r.status, filename};"
        " } catch (e) { return {ok: false, status: 0, filename: ''}; } })()"
    )
