"""The public license API: a vendor's agent activates, validates and deactivates its buyer's key.

No session and no cookie: the key is the only credential, so these routes are exempt from the Origin rule
(`api/security.py`), which protects cookie-authenticated writes from other sites; a page elsewhere that posted
here would only spend its visitor's rate limit. A wrong key answers 404 with the same shape as any answer
(`valid: false` / `activated: false`, 'License key not found'), never a hint about other keys."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from marketplace.api.deps import client_address
from marketplace.models.licenses import (
    ActivateIn,
    ActivateOut,
    DeactivateIn,
    DeactivateOut,
    InstanceOut,
    LicenseKeyOut,
    ValidateIn,
    ValidateOut,
)
from marketplace.services import licenses

router = APIRouter(prefix="/api/licenses", tags=["licenses"])

def _not_found(model: type[BaseModel]) -> dict[int | str, dict[str, Any]]:
    return {404: {"model": model, "description": "No such license key (or, given an instance id, no such "
                                                  "instance of this key): the answer's usual shape, false"}}


def _key(state: licenses.KeyState | None) -> LicenseKeyOut | None:
    if state is None:
        return None
    return LicenseKeyOut(status=state.status, activation_limit=state.activation_limit,
                         activation_usage=state.activation_usage, expires_at=state.expires_at,
                         agent_id=state.agent_id)


def _instance(instance: licenses.Instance | None) -> InstanceOut | None:
    return InstanceOut(id=instance.id, name=instance.name) if instance is not None else None


def _answer(answer: licenses.Answer, body: BaseModel) -> BaseModel | JSONResponse:
    if answer.found:
        return body
    return JSONResponse(body.model_dump(mode="json", by_alias=True), status_code=404)


@router.post("/activate", response_model=ActivateOut, responses=_not_found(ActivateOut))
def activate(body: ActivateIn, request: Request) -> Any:
    """Activate the key on a new instance (a machine). Past the agent's activation limit, or for a key that is
    not active (expired, disabled, refunded), `activated` is false and `error` says why (200)."""
    answer = licenses.activate(license_key=body.license_key, instance_name=body.instance_name,
                               address=client_address(request))
    return _answer(answer, ActivateOut(activated=answer.ok, error=answer.error, license_key=_key(answer.key),
                                       instance=_instance(answer.instance)))


@router.post("/validate", response_model=ValidateOut, responses=_not_found(ValidateOut))
def validate(body: ValidateIn, request: Request) -> Any:
    """Is the key active (and, with `instanceId`, is that instance one of its activations)? `valid` false with
    the reason otherwise (200)."""
    answer = licenses.validate(license_key=body.license_key, instance_id=body.instance_id,
                               address=client_address(request))
    out = ValidateOut(valid=answer.ok, error=answer.error, license_key=_key(answer.key),
                      instance=_instance(answer.instance))
    # The most frequent call: written here from the model just built, once, rather than by FastAPI's response
    # model (which dumps it, validates the dump again and serializes that). `response_model` still documents it.
    return Response(out.model_dump_json(by_alias=True), status_code=200 if answer.found else 404,
                    media_type="application/json")


@router.post("/deactivate", response_model=DeactivateOut, responses=_not_found(DeactivateOut))
def deactivate(body: DeactivateIn, request: Request) -> Any:
    """Free one instance's place under the activation limit (whatever the key's status)."""
    answer = licenses.deactivate(license_key=body.license_key, instance_id=body.instance_id,
                                 address=client_address(request))
    return _answer(answer, DeactivateOut(deactivated=answer.ok, error=answer.error, license_key=_key(answer.key)))
