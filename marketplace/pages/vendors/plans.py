"""/vendor/plans: the three plans with the vendor's marked; the first payment of a paid plan in the Payment Element;
a confirmation before a change that charges the card on file or waits for the period end."""

from __future__ import annotations

import reflex as rx

from marketplace.components.layout import container, notice_card, page_frame
from marketplace.components.links import button_link
from marketplace.components.spinner import skeleton_block
from marketplace.components.stripe_payment import payment_element
from marketplace.components.test_cards import test_mode_note
from marketplace.pages.vendors.page import by_mode
from marketplace.state.plans import PlanOption
from marketplace.state.vendors.plans import PLANS_PATH, PlanPaymentRow
from marketplace.state.vendors.plans import VendorPlansState as S


def _feature(text: rx.Var | str) -> rx.Component:
    return rx.hstack(rx.icon("check", size=16, color="var(--green-9)", flex_shrink="0"), rx.text(text, size="2"),
                     align="center")


def _button(plan: PlanOption) -> rx.Component:
    busy = S.changing == plan.id
    label = rx.cond(
        plan.id == S.plan_id,
        rx.cond(S.pending_plan_id != "", f"Keep {plan.name}", "Current plan"),
        rx.cond(plan.id == S.pending_plan_id, f"From {S.period_end}",
                rx.cond(plan.is_free, "Switch to Free", f"Choose {plan.name}")),
    )
    return rx.button(
        rx.cond(busy, rx.spinner(size="2"), rx.fragment()), label,
        width="100%", size="3", id=f"choose-{plan.id}", on_click=S.choose(plan.id),
        variant=rx.cond(plan.id == S.plan_id, "soft", rx.cond(plan.is_free, "outline", "solid")),
        disabled=(S.changing != "") | ((plan.id == S.plan_id) & (S.pending_plan_id == ""))
        | (plan.id == S.pending_plan_id),
    )


def _plan(plan: PlanOption) -> rx.Component:
    current = plan.id == S.plan_id
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(plan.name, size="5", as_="h2"),
                rx.spacer(),
                rx.cond(current, rx.badge("Current plan", color_scheme="green", size="2", id="current-plan-badge")),
                rx.cond(plan.id == S.pending_plan_id, rx.badge(f"From {S.period_end}", color_scheme="amber",
                                                               size="2")),
                width="100%", align="center", wrap="wrap", spacing="2",
            ),
            rx.hstack(rx.heading(rx.el.p(plan.price), size="8", as_child=True), rx.text("/month", color_scheme="gray"),
                      align="baseline"),
            _feature(plan.limit_label),
            _feature(plan.fee_label),
            _feature(plan.support),
            rx.spacer(),
            _button(plan),
            spacing="3", align="start", height="100%",
        ),
        size="3", id=f"plan-{plan.id}", class_name="plan-option",
        border=rx.cond(current, "2px solid var(--accent-9)", "1px solid transparent"),
    )


def _summary() -> rx.Component:
    return rx.vstack(
        rx.text(f"You are on the {S.plan_name} plan · {S.plan_fee} fee · {S.agents_used}", size="3",
                id="plans-current"),
        rx.cond(S.period != "", rx.text(S.period, size="2", color_scheme="gray", id="plans-period")),
        rx.cond(S.past_due != "", rx.callout(S.past_due, icon="triangle-alert", color_scheme="red", size="1",
                                            width="100%", id="plans-past-due")),
        rx.cond(S.limit_note != "", rx.callout(S.limit_note, icon="info", color_scheme="amber", size="1",
                                              width="100%", id="plans-limit")),
        spacing="2", width="100%",
    )


def _payment() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.icon("lock", size=18), rx.heading(f"Start your {S.paying_for} plan", size="4", as_="h2"),
                      align="center", spacing="2"),
            rx.text(S.payment_message, size="3", id="plan-payment-message"),
            payment_element(S, return_url=PLANS_PATH, button_label=S.pay_label, disabled=S.processing,
                            error_message=S.payment_error),
            test_mode_note(),
            rx.button("Back to plans", variant="soft", color_scheme="gray", on_click=S.cancel_payment,
                      disabled=S.processing, id="plan-payment-back"),
            rx.text("Payments are processed securely by Stripe. Your card details never reach our servers.",
                    size="1", color_scheme="gray"),
            spacing="4", width="100%",
        ),
        size="3", width="100%", max_width="36em", id="plan-payment",
    )


def _confirm() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(S.confirm_title),
            rx.alert_dialog.description(S.confirm_text, id="plan-confirm-text"),
            rx.flex(
                rx.button("Keep my plan", variant="soft", color_scheme="gray", on_click=S.close_confirm,
                          disabled=S.changing != "", id="plan-confirm-keep"),
                rx.button(rx.cond(S.changing != "", rx.spinner(size="2"), rx.fragment()), "Confirm",
                          color_scheme=rx.cond(S.confirm_kind == "upgrade", "violet", "red"),
                          on_click=S.confirm, disabled=S.changing != "", id="plan-confirm"),
                justify="end", gap="2", margin_top="1em", wrap="wrap",
            ),
            max_width="460px", id="plan-confirm-dialog",
        ),
        open=S.confirm_open,
    )


def _payment_row(payment: PlanPaymentRow) -> rx.Component:
    return rx.hstack(
        rx.text(payment.date, size="2", min_width="7em"),
        rx.text(f"{payment.plan_name} plan", size="2"),
        rx.text(payment.amount, size="2", weight="medium"),
        rx.spacer(),
        rx.link(rx.icon("file-text", size=14), rx.cond(payment.receipt_number != "",
                                                       f"Receipt {payment.receipt_number}", "Receipt"),
                href=payment.receipt_url, is_external=True, size="2", class_name="plan-receipt",
                display="inline-flex", align_items="center", gap="0.25em"),
        width="100%", align="center", wrap="wrap", spacing="3", class_name="plan-payment",
    )


def _payments() -> rx.Component:
    """The vendor's plan payments, each with the receipt the marketplace issued for it."""
    return rx.cond(
        S.payments.length() > 0,
        rx.card(
            rx.vstack(rx.heading("Plan payments", size="4", as_="h2"), rx.foreach(S.payments, _payment_row),
                      spacing="3", width="100%"),
            size="2", width="100%", id="plan-payments",
        ),
    )


def _loading() -> rx.Component:
    return rx.vstack(
        skeleton_block("1.5em", "20em"),
        rx.grid(*[skeleton_block("18em") for _ in range(3)], columns=rx.breakpoints(initial="1", md="3"),
                spacing="4", width="100%"),
        spacing="4", width="100%", id="plans-loading",
    )


def _content() -> rx.Component:
    return rx.cond(
        S.failed != "",
        notice_card("layers", "Plans unavailable", S.failed,
                    button_link("Back to dashboard", href="/vendor"), card_id="plans-failed"),
        rx.cond(
            S.plan_loading,
            _loading(),
            rx.vstack(
                _summary(),
                rx.cond(
                    S.client_secret != "",
                    rx.center(_payment(), width="100%"),
                    rx.grid(rx.foreach(S.plans, _plan), columns=rx.breakpoints(initial="1", md="3"), spacing="4",
                            width="100%", id="plan-options"),
                ),
                _payments(),
                _confirm(),
                spacing="5", width="100%",
            ),
        ),
    )


def _plans_view() -> rx.Component:
    return container(
        rx.vstack(
            rx.link(rx.hstack(rx.icon("arrow-left", size=16), rx.text("Back to Dashboard"), spacing="1",
                              align="center"), href="/vendor", color_scheme="gray", size="2", id="back-to-dashboard"),
            rx.vstack(
                rx.heading("Your Plan", size=rx.breakpoints(initial="7", sm="8"), id="plans-heading", as_="h1"),
                rx.text("Paid plans list without limit and pay a lower fee on every sale. Upgrades start at once; "
                        "downgrades and cancellations at the end of the month you paid for.", color_scheme="gray"),
                spacing="1",
            ),
            rx.box(_content(), on_mount=S.load, width="100%"),
            spacing="5", width="100%",
        ),
        id="vendor-plans",
    )


def vendor_plans_page() -> rx.Component:
    return page_frame(by_mode(_plans_view()))
