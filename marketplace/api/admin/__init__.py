"""Admin routes, one module per area; `router` gathers them for the app."""

from __future__ import annotations

from fastapi import APIRouter

from marketplace.api.admin import (
    agents,
    analytics,
    applications,
    audit,
    license_keys,
    lists,
    refunds,
    reviews,
    sales,
    users,
)

router = APIRouter()
router.include_router(applications.router)
router.include_router(agents.router)
router.include_router(lists.router)
router.include_router(sales.router)
router.include_router(analytics.router)
router.include_router(users.router)
router.include_router(audit.router)
router.include_router(refunds.router)
router.include_router(license_keys.router)
router.include_router(reviews.router)
