"""The FastAPI app mounted by Reflex for every `/api/*` route."""

from __future__ import annotations

import swagger_ui_bundle
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware

from marketplace.api import account as account_routes
from marketplace.api import admin as admin_routes
from marketplace.api import admission, crawler_files, page_serving, public_pages, routing, security
from marketplace.api import agent_files as agent_file_routes
from marketplace.api import auth as auth_routes
from marketplace.api import catalog as catalog_routes
from marketplace.api import demo as demo_routes
from marketplace.api import demo_images as demo_image_routes
from marketplace.api import engagement as engagement_routes
from marketplace.api import licenses as license_routes
from marketplace.api import notifications as notification_routes
from marketplace.api import oauth as oauth_routes
from marketplace.api import payment_methods as payment_method_routes
from marketplace.api import plans as plan_routes
from marketplace.api import promotions as promotion_routes
from marketplace.api import purchases as purchase_routes
from marketplace.api import receipts as receipt_routes
from marketplace.api import refunds as refund_routes
from marketplace.api import settings as settings_routes
from marketplace.api import subscriptions as subscription_routes
from marketplace.api import uploads as upload_routes
from marketplace.api import vendor as vendor_routes
from marketplace.api import vendor_license_keys as vendor_key_routes
from marketplace.api import vendor_webhooks as vendor_webhook_routes
from marketplace.api import versions as version_routes
from marketplace.api.errors import ERROR_RESPONSES
from marketplace.config import settings
from marketplace.services.errors import DomainError, TooManyRequests


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        loc = [str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path")]
        name = ".".join(loc)
        parts.append(f"{name}: {error.get('msg', 'invalid')}" if name else str(error.get("msg", "invalid")))
    return "; ".join(parts) or "Invalid request"


def create_api() -> FastAPI:
    api = FastAPI(title="Agent Marketplace API", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    # Swagger UI from the installed package: pages must not load anything from the internet.
    api.mount("/api/docs-assets", StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-assets")

    @api.get("/api/docs", include_in_schema=False)
    def _docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/api/openapi.json", title="Agent Marketplace API",
                                   swagger_js_url="/api/docs-assets/swagger-ui-bundle.js",
                                   swagger_css_url="/api/docs-assets/swagger-ui.css",
                                   swagger_favicon_url="/api/docs-assets/favicon-32x32.png")

    @api.exception_handler(DomainError)
    async def _domain_error(_request: Request, exc: DomainError) -> JSONResponse:
        body = {"message": exc.message}
        if exc.field:
            body["field"] = exc.field
        retry_after = exc.retry_after if isinstance(exc, TooManyRequests) else None
        headers = {"Retry-After": str(retry_after)} if retry_after else None
        return JSONResponse(body, status_code=exc.status, headers=headers)

    @api.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"message": _validation_message(exc)}, status_code=422)

    @api.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"message": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)

    # Routes are tried in order, and each one tried costs CPU (FastAPI matches every route of an included router
    # in turn): the public licence API, the one route agents call over and over, comes first. Behind 18 routers
    # a validate spent 0.9 ms of CPU finding its route (benchmarks/README.md, issue 19). The OpenAPI document
    # lists paths in this order too; its content does not change.
    routers = (license_routes.router, auth_routes.router, account_routes.router, oauth_routes.router,
               demo_routes.router, catalog_routes.router, engagement_routes.router, purchase_routes.router,
               settings_routes.router, vendor_routes.router, notification_routes.router, admin_routes.router,
               upload_routes.router, agent_file_routes.router, demo_image_routes.router, refund_routes.router,
               subscription_routes.router, payment_method_routes.router, vendor_key_routes.router,
               plan_routes.router, receipt_routes.router, version_routes.router, promotion_routes.router,
               vendor_webhook_routes.router)
    for router in routers:
        api.include_router(router, responses=ERROR_RESPONSES)

    routing.route_every_method(api)

    api.add_middleware(SessionMiddleware, secret_key=settings.secret_key, session_cookie="mp_oauth",
                       same_site="lax", https_only=settings.secure_cookies, max_age=600)
    api.add_middleware(page_serving.PagesPastRoutes, api=api)
    api.add_middleware(crawler_files.CrawlerFiles)  # robots, sitemap, preview images: before the pages
    api.add_middleware(page_serving.PageWithoutSlash)
    api.add_middleware(public_pages.PublicPages)  # outside the slash-follower: it fills the page that one found
    api.add_middleware(security.RequestGuard)
    api.add_middleware(security.ResponseHeaders)  # refusals get the headers too
    api.add_middleware(admission.Admission)  # outermost: a busy worker turns a new tab away before any other work
    return api
