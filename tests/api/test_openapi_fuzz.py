"""Schemathesis against the app's own `/api/openapi.json`: generated requests (valid and invalid), signed out and
signed in as a customer (with the site's Origin, as the browser sends), must never answer 5xx and every answer
must match the documented status codes, content type and schema. Bounded (few examples per operation, no
deadline) so the whole run stays within a couple of minutes."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from marketplace.api.app import create_api
from marketplace.api.deps import SESSION_COOKIE
from marketplace.services import auth
from tests import factories
from tests.conftest import BASE_URL

schema = schemathesis.openapi.from_asgi("/api/openapi.json", create_api())
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
BOUNDED = settings(max_examples=12, deadline=None, database=None, derandomize=True,
                   suppress_health_check=list(HealthCheck))


@pytest.fixture
def seeded(stripe_standin):
    """A few real rows for the generated ids to miss or hit, and payments pointed at the Stripe stand-in."""
    vendor = factories.make_vendor()
    factories.make_agent(vendor, category=factories.make_category(), demo_url="https://demo.example.com")
    return vendor


@schema.parametrize()
@BOUNDED
def test_signed_out(case, seeded):
    case.call_and_validate(headers={"Origin": BASE_URL}, checks=CHECKS)


@schema.parametrize()
@BOUNDED
def test_signed_in_as_a_customer(case, seeded):
    token = auth.create_session(user=factories.make_user())
    case.call_and_validate(headers={"Origin": BASE_URL, "Cookie": f"{SESSION_COOKIE}={token}"}, checks=CHECKS)


def test_every_operation_documents_the_error_answers():
    """401/403/404/409/422/429 (and 400) are in the schema, as `{message, field?}`, for every operation."""
    document = create_api().openapi()
    missing = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status in ("400", "401", "403", "404", "409", "422", "429"):
                content = operation["responses"].get(status, {}).get("content", {})
                if content.get("application/json", {}).get("schema") != {"$ref": "#/components/schemas/ErrorOut"}:
                    missing.append((method, path, status))
    assert missing == []
    assert set(document["components"]["schemas"]["ErrorOut"]["properties"]) == {"message", "field"}
