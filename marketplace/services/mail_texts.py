"""The words of every e-mail the marketplace sends (plain text, a few also as HTML; links built from PUBLIC_URL).

Every mail greets by `name`: `names.greeting_name` of the person, the one rule the pages use too.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from urllib.parse import quote

from marketplace.config import settings
from marketplace.integrations.mail import OutgoingMail
from marketplace.services import money, receipts

SIGNATURE = "\n\n— AgentMarket"


def amount_text(amount: str, currency: str) -> str:
    """An API amount ('35.00') and its currency as every mail and page writes money: '$35.00', '€12.15'."""
    units, _, cents = amount.partition(".")
    return money.format_amount(int(units or 0) * 100 + int((cents + "00")[:2]), currency)


def url(path: str) -> str:
    return settings.public_url.rstrip("/") + path


def receipt_link(order_id: str) -> str:
    """The line of a payment's mail that links its receipt (a business files it; the HTML page links the PDF)."""
    return f"Your receipt, to print or save as PDF (sign in first):\n{url(receipts.receipt_path(order_id))}"


def compose(*, to: str, name: str, subject: str, body: str) -> OutgoingMail:
    """Every mail's one shape: 'Hi {name},', the body (its links in it), the signature."""
    return OutgoingMail(to=to, subject=subject, text=f"Hi {name},\n\n{body}{SIGNATURE}")


def verify_email(*, to: str, name: str, token: str, hours: int, new_address: bool) -> OutgoingMail:
    why = ("You asked to use this address for your AgentMarket account." if new_address
           else "Welcome to AgentMarket! Please confirm your e-mail address.")
    return compose(
        to=to, name=name,
        subject="Confirm your e-mail address",
        body=f"{why}\n\nOpen this link to confirm it:\n{url('/verify-email?token=' + quote(token))}"
             f"\n\nThe link works once and expires in {hours} hours. If you did not ask for this, ignore this"
             f" e-mail.",
    )


def email_change_notice(*, to: str, name: str, new_email: str) -> OutgoingMail:
    return compose(
        to=to, name=name,
        subject="Your e-mail address is being changed",
        body=f"Someone signed in to your account asked to change its e-mail address to "
             f"{new_email}. The change takes effect once that address is confirmed.\n\nIf this was not you, reset "
             f"your password now:\n{url('/forgot-password')}",
    )


def password_reset(*, to: str, name: str, token: str, minutes: int) -> OutgoingMail:
    return compose(
        to=to, name=name,
        subject="Reset your password",
        body=f"Someone (hopefully you) asked to reset the password of your AgentMarket account."
             f"\n\nChoose a new password here:\n{url('/reset-password?token=' + quote(token))}\n\nThe link works"
             f" once and expires in {minutes} minutes. Resetting signs you out on every device. If you did not ask"
             f" for this, ignore this e-mail: your password stays as it is.",
    )


def password_changed(*, to: str, name: str) -> OutgoingMail:
    return compose(
        to=to, name=name,
        subject="Your password was changed",
        body=f"The password of your AgentMarket account was just changed, and your other "
             f"sessions were signed out.\n\nIf this was not you, reset your password now:\n"
             f"{url('/forgot-password')}",
    )


GUEST_PASSWORD_PATH = "/set-password"


def receipt(*, to: str, name: str, agent_name: str, amount: str, currency: str, order_id: str,
            agent_id: str, license_key: str, sign_in_token: str | None = None,
            renews_on: str | None = None) -> OutgoingMail:
    """`sign_in_token`: a guest buyer's single-use link to set a password (and confirm this address) first.
    `renews_on`: a subscription's first payment, which says it is monthly and when it next charges."""
    key = (f"\n\nLicense key: {license_key}\nThe agent asks for it when it starts; it also comes in the download "
           f"(LICENSE-KEY.txt).") if license_key else ""
    guest = "" if sign_in_token is None else (
        f"\n\nYou bought as a guest. Set a password to sign in (this also confirms your e-mail address):\n"
        f"{url(GUEST_PASSWORD_PATH + '?token=' + quote(sign_in_token))}\nThe link works once and expires in "
        f"{settings.guest_link_hours} hours.")
    plan = "" if renews_on is None else f" per month\nMonthly subscription: renews on {renews_on}, cancel anytime"
    return compose(
        to=to, name=name,
        subject=f"Your receipt: {agent_name}",
        body=f"Thank you for your purchase.\n\nAgent: {agent_name}\nAmount: {amount_text(amount, currency)}{plan}"
             f"\nOrder number: {order_id[-8:]} ({order_id}){key}{guest}\n\nDownload it here (sign in "
             f"first):\n{url(f'/api/agents/{agent_id}/download')}\n\n{receipt_link(order_id)}\n\n"
             f"Your agents are also in your dashboard:\n{url('/dashboard')}",
    )


def license_key_file(*, agent_name: str, license_key: str) -> str:
    """LICENSE-KEY.txt, in the buyer's download: the key, and how the agent checks it."""
    return (f"License key for {agent_name}\n\n{license_key}\n\nThe agent checks this key with the marketplace "
            f"when it starts. To check it yourself:\n\n  curl -X POST {url('/api/licenses/validate')} \\\n"
            f"    -H 'Content-Type: application/json' -d '{{\"licenseKey\": \"{license_key}\"}}'\n\n"
            f"The answer says whether it is valid (\"valid\": true) and how many machines use it. Keep the key "
            f"to yourself: each machine it is activated on counts. Your keys and their machines are in your "
            f"dashboard: {url('/dashboard')}\n")


def sale(*, to: str, name: str, agent_name: str, amount: str, currency: str, order_id: str) -> OutgoingMail:
    return compose(
        to=to, name=name,
        subject=f"New sale: {agent_name}",
        body=f"You made a sale.\n\nAgent: {agent_name}\nAmount: {amount_text(amount, currency)}\n"
             f"Order number: {order_id[-8:]}\n\nSee your sales:\n{url('/vendor')}",
    )


def refund_confirmation(*, to: str, name: str, agent_name: str, amount: str, order_id: str,
                        subscription: bool) -> OutgoingMail:
    """The buyer's money is on its way back (the guarantee at once, or an admin's approval)."""
    ended = ("Your subscription has been cancelled and access to the agent has ended." if subscription
             else "Access to the agent has ended.")
    return compose(
        to=to, name=name,
        subject=f"Your refund: {agent_name}",
        body=f"We have refunded your order in full.\n\nAgent: {agent_name}\nAmount: {amount}\n"
             f"Order number: {order_id[-8:]}\n\nThe money reaches your card within 5-10 business days. {ended}"
             f"\n\nYour orders:\n{url('/dashboard?tab=orders')}",
    )


def refund_declined(*, to: str, name: str, agent_name: str, order_id: str, reason: str) -> OutgoingMail:
    """An admin said no to a refund request (the customer's third within 90 days)."""
    why = f"\n\nReason: {reason}" if reason else ""
    return compose(
        to=to, name=name,
        subject=f"Your refund request: {agent_name}",
        body=f"We have reviewed your refund request for order {order_id[-8:]} ({agent_name}) and "
             f"cannot refund it.{why}\n\nYou keep access to the agent.\n{url('/dashboard?tab=orders')}"
             f"",
    )


def vendor_refund_notice(*, to: str, name: str, agent_name: str, amount: str, order_id: str) -> OutgoingMail:
    """A sale of the vendor's was refunded: its share comes back out of the vendor's balance."""
    return compose(
        to=to, name=name,
        subject=f"Refund: {agent_name}",
        body=f"A sale of {agent_name} was refunded under the 30-day money-back guarantee.\n\n"
             f"Amount: {amount}\nOrder number: {order_id[-8:]}\n\nYour share of this sale is taken back from "
             f"your balance, and the sale no longer counts in your earnings.\n{url('/vendor')}",
    )


def dispute_opened(*, to: str, name: str, agent_name: str, amount: str, order_id: str, reason: str) -> OutgoingMail:
    """To each admin: a buyer disputed a payment with their bank; access to the agent is suspended."""
    return compose(
        to=to, name=name,
        subject=f"Payment disputed: {agent_name}",
        body=f"A buyer disputed a payment with their bank ({reason}).\n\nAgent: {agent_name}\n"
             f"Amount: {amount}\nOrder number: {order_id[-8:]} ({order_id})\n\nThe buyer's access to the agent "
             f"is suspended. Answer the dispute in Stripe's dashboard.",
    )


def notice(*, to: str, name: str, title: str, message: str, path: str,
           message_html: str | None = None) -> OutgoingMail:
    """An application or agent decision, or an update of a bought agent: the in-app notification by e-mail.
    `message_html` (safe HTML, e.g. release notes rendered from Markdown) adds an HTML part of the same mail."""
    mail = compose(to=to, name=name, subject=title, body=f"{message}\n\n{url(path)}")
    if message_html is None:
        return mail
    link = escape(url(path))
    html = (f"<p>Hi {escape(name)},</p>\n{message_html}\n<p><a href=\"{link}\">{link}</a></p>\n"
            f"<p>{escape(SIGNATURE.strip())}</p>\n")
    return replace(mail, html=html)


def renewal_receipt(*, to: str, name: str, agent_name: str, amount: str, currency: str, order_id: str,
                    renews_on: str) -> OutgoingMail:
    """A subscription's monthly charge went through."""
    return compose(
        to=to, name=name,
        subject=f"Your subscription renewed: {agent_name}",
        body=f"Your monthly subscription to {agent_name} has renewed.\n\nAmount: {amount_text(amount, currency)}"
             f"\nOrder number: {order_id[-8:]} ({order_id})\nNext renewal: {renews_on}\n\n"
             f"{receipt_link(order_id)}\n\nManage your subscriptions in your dashboard:\n{url('/dashboard')}",
    )


def payment_failed(*, to: str, name: str, agent_name: str, access_until: str, path: str) -> OutgoingMail:
    """A renewal was declined: the customer keeps access for the grace period and can give a new card."""
    return compose(
        to=to, name=name,
        subject=f"Payment failed: {agent_name}",
        body=f"We could not charge your card for your subscription to {agent_name}. You keep "
             f"access until {access_until}; we will try again in the meantime.\n\nUpdate your card here (sign in "
             f"first):\n{url(path)}",
    )


def subscription_ended(*, to: str, name: str, agent_name: str, agent_path: str) -> OutgoingMail:
    """Stripe ended a subscription whose renewal stayed unpaid after its retries: access has ended."""
    return compose(
        to=to, name=name,
        subject=f"Subscription ended: {agent_name}",
        body=f"We could not collect the renewal of your subscription to {agent_name}, so it has "
             f"ended and you no longer have access. You will not be charged again.\n\nTo use it again, subscribe "
             f"from its page:\n{url(agent_path)}",
    )


def trial_started(*, to: str, name: str, agent_name: str, agent_id: str, license_key: str, ends_on: str,
                  then: str, sign_in_token: str | None = None) -> OutgoingMail:
    """A free trial started with the card saved: nothing charged yet, when the first charge comes, the key.
    `sign_in_token`: a guest's single-use link to set a password first (the dashboard cancels the trial)."""
    key = f"\n\nLicense key: {license_key}" if license_key else ""
    if sign_in_token is not None:
        key += (f"\n\nYou started it as a guest. Set a password to sign in (this also confirms your e-mail "
                f"address):\n{url(GUEST_PASSWORD_PATH + '?token=' + quote(sign_in_token))}\nThe link works once "
                f"and expires in {settings.guest_link_hours} hours.")
    return compose(
        to=to, name=name,
        subject=f"Your free trial: {agent_name}",
        body=f"Your free trial of {agent_name} has started. Nothing has been charged: your card is charged "
             f"{then} on {ends_on} unless you cancel before then.{key}\n\nDownload it here (sign in first):\n"
             f"{url(f'/api/agents/{agent_id}/download')}\n\nCancel anytime in your dashboard:\n{url('/dashboard')}",
    )


def trial_ending(*, to: str, name: str, agent_name: str, ends_on: str, then: str) -> OutgoingMail:
    """Stripe's `trial_will_end`, three days before: the first charge is coming, and how to avoid it."""
    return compose(
        to=to, name=name,
        subject=f"Your free trial of {agent_name} ends on {ends_on}",
        body=f"Your free trial of {agent_name} ends on {ends_on}. Then your card is charged {then}.\n\n"
             f"To keep using it, do nothing. To stop before you pay anything, cancel in your dashboard before "
             f"then:\n{url('/dashboard')}",
    )


def subscription_cancelled(*, to: str, name: str, agent_name: str, access_until: str) -> OutgoingMail:
    """The customer cancelled: no more charges, access until the end of the paid period."""
    return compose(
        to=to, name=name,
        subject=f"Subscription cancelled: {agent_name}",
        body=f"Your subscription to {agent_name} is cancelled: you will not be charged again. You "
             f"keep access until {access_until}.\n\nChanged your mind? Resume it before then in your dashboard:\n"
             f"{url('/dashboard')}",
    )


def license_disabled(*, to: str, name: str, agent_name: str, reason: str) -> OutgoingMail:
    """The buyer's key was disabled by the agent's vendor or an admin: why, and that the agent stops."""
    return compose(
        to=to, name=name,
        subject=f"Your license key for {agent_name} was disabled",
        body=f"Your license key for {agent_name} has been disabled: the agent can no longer activate or validate "
             f"it.\n\nReason: {reason}\n\nIf you think this is a mistake, reply to this e-mail or contact us:\n"
             f"{url('/contact')}\n\nYour agents:\n{url('/dashboard')}",
    )


def license_enabled(*, to: str, name: str, agent_name: str) -> OutgoingMail:
    """The buyer's key works again."""
    return compose(
        to=to, name=name,
        subject=f"Your license key for {agent_name} works again",
        body=f"Your license key for {agent_name} has been enabled again: the agent can activate and validate it as "
             f"before.\n\nYour agents:\n{url('/dashboard')}",
    )


def subscription_resumed(*, to: str, name: str, agent_name: str, renews_on: str) -> OutgoingMail:
    """The customer resumed a cancelled subscription before its end: it renews again."""
    return compose(
        to=to, name=name,
        subject=f"Subscription resumed: {agent_name}",
        body=f"Your subscription to {agent_name} is active again: it renews on {renews_on} and every month after "
             f"that until you cancel.\n\nManage your subscriptions in your dashboard:\n{url('/dashboard')}",
    )
