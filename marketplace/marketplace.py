"""The Reflex app: pages, the mounted `/api` FastAPI app, and start-up housekeeping."""

from __future__ import annotations

import reflex as rx

from marketplace import migrate
from marketplace.api.app import create_api
from marketplace.pages.agent_detail import agent_detail_page
from marketplace.pages.agents import agents_page
from marketplace.pages.categories import categories_page
from marketplace.pages.checkout import checkout_page
from marketplace.pages.dashboard import dashboard_page
from marketplace.pages.demo_setup import demo_setup_page
from marketplace.pages.home import index_page
from marketplace.pages.login import login_page
from marketplace.pages.not_found import not_found_page
from marketplace.pages.purchase_success import purchase_success_page
from marketplace.pages.signup import signup_page
from marketplace.pages.vendor.page import vendor_apply_page, vendor_page
from marketplace.services import auth, platform
from marketplace.state.accounts import LoginState, SignupState
from marketplace.state.agent_detail import AgentDetailState
from marketplace.state.catalog import BrowseState, CategoriesState, HomeState
from marketplace.state.checkout import CheckoutState, PurchaseSuccessState
from marketplace.state.dashboard import DashboardState
from marketplace.state.demo_setup import DemoSetupState
from marketplace.state.session import SessionState
from marketplace.state.vendor.page import VendorState


def _on_start() -> None:
    migrate.upgrade()
    platform.ensure_defaults()
    auth.purge_expired()


app = rx.App(
    api_transformer=create_api(),
    theme=rx.theme(accent_color="violet", gray_color="slate", radius="large"),
    toaster=rx.toast.provider(visible_toasts=1, duration=5000, close_button=True, position="bottom-right"),
)
app.register_lifespan_task(_on_start)

app.add_page(index_page, route="/", title="AgentMarket", on_load=[SessionState.load, HomeState.on_load])
app.add_page(agents_page, route="/agents", title="Browse AI Agents | AgentMarket",
             on_load=[SessionState.load, BrowseState.on_load])
app.add_page(agent_detail_page, route="/agents/[agent_id]", title="AI Agent | AgentMarket",
             on_load=[SessionState.load, AgentDetailState.on_load])
app.add_page(categories_page, route="/categories", title="Categories | AgentMarket",
             on_load=[SessionState.load, CategoriesState.on_load])
app.add_page(login_page, route="/login", title="Sign In | AgentMarket", on_load=[SessionState.load, LoginState.on_load])
app.add_page(signup_page, route="/signup", title="Sign Up | AgentMarket",
             on_load=[SessionState.load, SignupState.on_load])
app.add_page(dashboard_page, route="/dashboard", title="Dashboard | AgentMarket",
             on_load=[SessionState.load, DashboardState.on_load])
app.add_page(demo_setup_page, route="/demo-setup", title="Demo Testing Center | AgentMarket",
             on_load=[SessionState.load, DemoSetupState.on_load])
app.add_page(checkout_page, route="/checkout/[agent_id]", title="Checkout | AgentMarket",
             on_load=[SessionState.load, CheckoutState.on_load])
app.add_page(checkout_page, route="/checkout", title="Checkout | AgentMarket",
             on_load=[SessionState.load, CheckoutState.on_load])
app.add_page(purchase_success_page, route="/purchase-success", title="Purchase Successful | AgentMarket",
             on_load=[SessionState.load, PurchaseSuccessState.on_load])
app.add_page(vendor_page, route="/vendor", title="Vendor Dashboard | AgentMarket",
             on_load=[SessionState.load, VendorState.on_load])
app.add_page(vendor_apply_page, route="/vendor/apply", title="Become a Vendor | AgentMarket",
             on_load=[SessionState.load, VendorState.on_load])
app.add_page(not_found_page, route="404", title="Page Not Found | AgentMarket", on_load=SessionState.load)
