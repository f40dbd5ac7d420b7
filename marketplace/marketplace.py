"""The Reflex app: pages, the mounted `/api` FastAPI app, and start-up housekeeping."""

from __future__ import annotations

import asyncio
from functools import partial

import reflex as rx

from marketplace import loop_watch, migrate, state_lock, warm_up
from marketplace.api import admission
from marketplace.api.app import create_api
from marketplace.components.flash_toaster import flash_toaster
from marketplace.components.spinner import loading_frame
from marketplace.config import announce_demo_mode, settings
from marketplace.pages.account_recovery import (
    forgot_password_page,
    reset_password_page,
    set_password_page,
    verify_email_page,
)
from marketplace.pages.admin.page import admin_page
from marketplace.pages.admin.settings import admin_settings_page
from marketplace.pages.agent_detail import agent_detail_page
from marketplace.pages.agents import agents_page
from marketplace.pages.card_update import card_update_page
from marketplace.pages.categories import categories_page
from marketplace.pages.checkout import checkout_page
from marketplace.pages.dashboard import dashboard_page
from marketplace.pages.demo_setup import demo_setup_page
from marketplace.pages.dev_mail import dev_mail_page
from marketplace.pages.home import index_page
from marketplace.pages.login import login_page
from marketplace.pages.not_found import not_found_page
from marketplace.pages.purchase_success import purchase_success_page
from marketplace.pages.signup import signup_page
from marketplace.pages.vendors.add_agent import add_agent_page
from marketplace.pages.vendors.page import vendor_apply_page, vendor_page
from marketplace.pages.vendors.plans import vendor_plans_page
from marketplace.services import auth, mail_outbox, plans, platform, ratelimit, scanning, uploads, webhooks
from marketplace.services.seo import addresses, page_head, previews
from marketplace.state.account_recovery import (
    ForgotPasswordState,
    GuestPasswordState,
    ResetPasswordState,
    VerifyEmailState,
)
from marketplace.state.account_security import AccountSecurityState
from marketplace.state.accounts import LoginState, SignupState
from marketplace.state.admin.page import AdminEvents
from marketplace.state.admin.settings import AdminSettingsState
from marketplace.state.agent_detail import AgentDetailState
from marketplace.state.card_update import CardUpdateState
from marketplace.state.catalog import BrowseState, CategoriesState, HomeState
from marketplace.state.checkout import CheckoutState, PurchaseSuccessState
from marketplace.state.dashboard import DashboardState
from marketplace.state.demo_setup import DemoSetupState
from marketplace.state.dev_mail import DevMailState
from marketplace.state.plans import OfferState
from marketplace.state.session import SessionEvents
from marketplace.state.vendors.page import VendorState
from marketplace.state.vendors.wizard import WizardState

# A tab's Redis state lock is released even when a cancelled event had just taken it (marketplace/state_lock.py).
state_lock.install()


def _on_start() -> None:
    announce_demo_mode()
    migrate.upgrade()
    platform.ensure_defaults()
    plans.ensure_plans()
    auth.purge_expired()
    ratelimit.purge()


def _watch_the_loop() -> None:
    """With `SLOW_CALLBACK_MS`, report each callback that holds this worker's event loop longer. After the
    start-up steps (migrating, the warm-up) and before the background loops: no browser is being served yet."""
    if settings.slow_callback_ms > 0:
        loop_watch.watch(asyncio.get_running_loop(), settings.slow_callback_ms)


api = create_api()
app = rx.App(
    api_transformer=api,
    toaster=flash_toaster(visible_toasts=1, duration=5000, close_button=True, position="bottom-right"),
    hydrate_fallback=loading_frame,  # addresses without a prerendered page show the frame, not a blank page
)
# Link previews need an absolute image address: the site's preview image rather than Reflex's relative favicon.
add_page = partial(app.add_page, image=addresses.absolute(previews.site_preview_path()))
app.register_lifespan_task(_on_start)
app.register_lifespan_task(warm_up.before_serving, api=api)  # the worker's one-time costs, before it serves
app.register_lifespan_task(_watch_the_loop)
app.register_lifespan_task(uploads.sweep_forever)  # unattached uploads expire and are deleted
app.register_lifespan_task(mail_outbox.send_forever)  # sends the mail outbox from the app's process
app.register_lifespan_task(scanning.scan_forever)  # scans stored files off the requests, rescans daily
app.register_lifespan_task(admission.watch_lag)  # a lagging worker turns new tabs away (api/admission.py)
app.register_lifespan_task(webhooks.send_forever)  # sends the vendors' webhook deliveries off the requests

add_page(index_page, route="/", title=page_head.HOME_TITLE, on_load=[SessionEvents.load, HomeState.on_load,
                                                                          OfferState.on_load])
add_page(agents_page, route="/agents", title="Browse AI Agents | AgentMarket",
             on_load=[SessionEvents.load, BrowseState.on_load])
add_page(agent_detail_page, route="/agents/[agent_id]", title=AgentDetailState.page_title,
             on_load=[SessionEvents.load, AgentDetailState.on_load])
add_page(categories_page, route="/categories", title="Categories | AgentMarket",
             on_load=[SessionEvents.load, CategoriesState.on_load])
add_page(login_page, route="/login", title="Sign In | AgentMarket",
             on_load=[SessionEvents.load, LoginState.on_load])
add_page(signup_page, route="/signup", title="Sign Up | AgentMarket",
             on_load=[SessionEvents.load, SignupState.on_load])
add_page(dashboard_page, route="/dashboard", title="Dashboard | AgentMarket",
             on_load=[SessionEvents.load, DashboardState.on_load, AccountSecurityState.on_load])
add_page(forgot_password_page, route="/forgot-password", title="Forgot Password | AgentMarket",
             on_load=[SessionEvents.load, ForgotPasswordState.on_load])
add_page(reset_password_page, route="/reset-password", title="Reset Password | AgentMarket",
             on_load=[SessionEvents.load, ResetPasswordState.on_load])
add_page(set_password_page, route="/set-password", title="Set Your Password | AgentMarket",
             on_load=[SessionEvents.load, GuestPasswordState.on_load])
add_page(verify_email_page, route="/verify-email", title="Confirm E-mail | AgentMarket",
             on_load=[SessionEvents.load, VerifyEmailState.on_load])
add_page(dev_mail_page, route="/dev/mail", title="Dev Mailbox | AgentMarket",
             on_load=[SessionEvents.load, DevMailState.on_load])
add_page(demo_setup_page, route="/demo-setup", title="Demo Testing Center | AgentMarket",
             on_load=[SessionEvents.load, DemoSetupState.on_load])
add_page(checkout_page, route="/checkout/[agent_id]", title="Checkout | AgentMarket",
             on_load=[SessionEvents.load, CheckoutState.on_load])
add_page(checkout_page, route="/checkout", title="Checkout | AgentMarket",
             on_load=[SessionEvents.load, CheckoutState.on_load])
add_page(card_update_page, route="/dashboard/billing/[subscription_id]", title="Update Card | AgentMarket",
             on_load=[SessionEvents.load, CardUpdateState.on_load])
add_page(purchase_success_page, route="/purchase-success", title="Purchase Successful | AgentMarket",
             on_load=[SessionEvents.load, PurchaseSuccessState.on_load])
add_page(vendor_page, route="/vendor", title="Vendor Dashboard | AgentMarket",
             on_load=[SessionEvents.load, VendorState.on_load])
add_page(vendor_apply_page, route="/vendor/apply", title="Become a Vendor | AgentMarket",
             on_load=[SessionEvents.load, VendorState.on_load])
add_page(vendor_plans_page, route="/vendor/plans", title="Your Plan | AgentMarket",
             on_load=[SessionEvents.load, VendorState.on_load])
add_page(add_agent_page, route="/vendor/add-agent", title="Create New AI Agent | AgentMarket",
             on_load=[SessionEvents.load, WizardState.on_load])
add_page(add_agent_page, route="/vendor/agents/[agent_id]/edit", title="Edit AI Agent | AgentMarket",
             on_load=[SessionEvents.load, WizardState.on_load])
add_page(admin_page, route="/admin", title="Admin Panel | AgentMarket",
             on_load=[SessionEvents.load, AdminEvents.on_load])
add_page(admin_settings_page, route="/admin/settings", title="Platform Settings | AgentMarket",
             on_load=[SessionEvents.load, AdminSettingsState.on_load])
add_page(not_found_page, route="404", title="Page Not Found | AgentMarket", on_load=SessionEvents.load)
