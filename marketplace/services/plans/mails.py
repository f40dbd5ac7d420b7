"""The words of the mails a vendor gets when its plan changes (sent through the outbox, in the change's own
transaction). Dates are written as the other billing mails write them ('December 24, 2026')."""

from __future__ import annotations

from marketplace.integrations.mail import OutgoingMail
from marketplace.services.mail_texts import compose, url

PLANS_PATH = "/vendor/plans"


def _mail(*, to: str, name: str, subject: str, body: str) -> OutgoingMail:
    return compose(to=to, name=name, subject=subject, body=f"{body}\n\nSee your plan:\n{url(PLANS_PATH)}")


def started(*, to: str, name: str, plan: str, fee: str, renews_on: str, amount: str) -> OutgoingMail:
    """`amount`: what the first month was charged ('$29.00'), as every mail writes money."""
    return _mail(to=to, name=name, subject=f"Your {plan} plan has started",
                 body=f"Thank you! You are now on the {plan} plan: each sale pays a {fee}% platform fee from now "
                      f"on. We charged {amount} for the first month; it renews on {renews_on} at {amount} a month.")


def upgraded(*, to: str, name: str, plan: str, fee: str, renews_on: str) -> OutgoingMail:
    return _mail(to=to, name=name, subject=f"You are now on the {plan} plan",
                 body=f"Your plan is now {plan}, from today: each sale pays a {fee}% platform fee. The rest of this "
                      f"month was charged at the difference (prorated); the plan renews on {renews_on}.")


def change_scheduled(*, to: str, name: str, plan: str, new_plan: str, on: str) -> OutgoingMail:
    return _mail(to=to, name=name, subject=f"Your plan changes to {new_plan} on {on}",
                 body=f"You keep the {plan} plan until {on}; from then on you are on the {new_plan} plan. Your "
                      f"agents stay listed; with a lower agent limit you can only add new ones within it.")


def cancelled(*, to: str, name: str, plan: str, on: str) -> OutgoingMail:
    return _mail(to=to, name=name, subject=f"Your {plan} plan is cancelled",
                 body=f"You will not be charged again. You keep the {plan} plan until {on}; then you are on the "
                      f"Free plan. Your agents stay listed.")


def continues(*, to: str, name: str, plan: str, renews_on: str) -> OutgoingMail:
    return _mail(to=to, name=name, subject=f"Your {plan} plan continues",
                 body=f"The change you had planned is undone: your {plan} plan continues and renews on "
                      f"{renews_on}.")


def changed(*, to: str, name: str, plan: str, fee: str) -> OutgoingMail:
    return _mail(to=to, name=name, subject=f"You are now on the {plan} plan",
                 body=f"Your new period has begun on the {plan} plan: each sale pays a {fee}% platform fee from "
                      f"now on.")


def payment_failed(*, to: str, name: str, plan: str, until: str) -> OutgoingMail:
    return _mail(to=to, name=name, subject=f"Payment failed: your {plan} plan",
                 body=f"We could not charge your card for the {plan} plan. You keep it until {until} while we try "
                      f"again; if the payment still fails, you will be moved to the Free plan.")


def back_to_free(*, to: str, name: str, plan: str, unpaid: bool) -> OutgoingMail:
    why = ("we could not collect its renewal" if unpaid else "it was cancelled")
    return _mail(to=to, name=name, subject="You are now on the Free plan",
                 body=f"Your {plan} plan has ended ({why}), so you are on the Free plan now. Your agents stay "
                      f"listed; new ones count against the Free plan's limit. You can choose a plan again at any "
                      f"time.")
