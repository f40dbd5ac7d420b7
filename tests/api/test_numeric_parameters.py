"""Every numeric (and paging) parameter of every `/api` route, from the app's own OpenAPI: out-of-range values
answer a 4xx JSON error for every kind of caller, never a 500."""

from __future__ import annotations

import re

import pytest

from marketplace.api.app import create_api
from tests import factories

HUGE = ["9223372036854775808", "-9223372036854775809", "99999999999999999999999", "-1", "1e309", "abc", ""]
PAGING = {"limit", "offset", "page", "per_page", "perPage"}


def _numeric_parameters() -> list[tuple[str, str, str, str]]:
    """(method, path, name, where) of every integer/number parameter, plus any paging-named one."""
    found = []
    for path, methods in create_api().openapi()["paths"].items():
        for method, operation in methods.items():
            for parameter in operation.get("parameters", []):
                kind = parameter.get("schema", {}).get("type")
                if kind in ("integer", "number") or parameter["name"] in PAGING:
                    found.append((method.upper(), path, parameter["name"], parameter["in"]))
    return found


PARAMETERS = _numeric_parameters()


def test_the_route_table_has_the_paging_parameters():
    names = {(path, name) for _, path, name, _ in PARAMETERS}
    assert {("/api/agents/{agent_id}/reviews", "offset"), ("/api/favorites", "offset"),
            ("/api/vendor/sales", "limit")} <= names


@pytest.mark.parametrize("role", ["anonymous", "user", "vendor", "admin"])
def test_out_of_range_numbers_never_answer_500(client, login, role):
    if role != "anonymous":
        make = {"user": factories.make_user, "vendor": factories.make_vendor, "admin": factories.make_admin}[role]
        login(make(f"num-{role}"))
    failures = []
    for method, path, name, where in PARAMETERS:
        for value in HUGE:
            url = re.sub(r"\{[^}]+\}", "x", path)
            if where == "path":
                url = path.replace("{" + name + "}", value or "0")
                url = re.sub(r"\{[^}]+\}", "x", url)
            params = {name: value, "key": "k"} if where == "query" else {"key": "k"}
            response = client.request(method, url, params=params, json={} if method != "GET" else None)
            if response.status_code >= 500 or not response.headers["content-type"].startswith("application/json"):
                failures.append((method, url, name, value, response.status_code))
    assert failures == []
