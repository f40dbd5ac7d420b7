"""Admin routes, one module per area; `router` gathers them for the app."""

from __future__ import annotations

from fastapi import APIRouter

from marketplace.api.admin import applications

router = APIRouter()
router.include_router(applications.router)
