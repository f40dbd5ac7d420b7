"""What localstripe lacks, added on top of its resource model (imported only by the stand-in runner).

Patched in place on import, so localstripe's own routes, events and webhooks see the same objects:

- card declines at charge time with Stripe's codes and messages (localstripe only declines
  4000000000000002 / ...9995 when *attaching* a card, so confirming a PaymentIntent with them succeeded);
- PaymentIntents accept and keep Connect and Payment Element parameters (`application_fee_amount`,
  `transfer_data[destination]`, `on_behalf_of`, `automatic_payment_methods`, `allowed_payment_method_types`,
  `description`, `receipt_email`, `transfer_group`, `setup_future_usage`; `payment_method_types` is refused, as
  the pinned API version refuses it); a destination charge transfers the
  whole amount to the connected account and collects the application fee from it (an ApplicationFee), as
  Stripe's destination charges do; `payment_intent.created`, `charge.succeeded` and `charge.failed` are sent;
- a saved card can be told to decline its later charges (`decline_later`, the stand-in's dev route), beside
  Stripe's test cards that do (4000000000000341 attaches, then every charge fails);
- Connect: Account objects (charges_enabled, payouts_enabled, details_submitted, requirements, country,
  default_currency, capabilities, external_accounts once onboarded), account links with a hosted onboarding
  page, login links, transfers; events about a connected account carry its id in `account`, as Connect
  webhooks do (balances and payouts live in payouts.py);
- a card validation that answers like Stripe.js (`incomplete_number`, `invalid_expiry_year`...).
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import context
from dev.stripe_standin.delivery import emit

# Test card numbers (Stripe docs, "Testing") -> (code, decline_code, message) when charged.
CARD_DECLINES: dict[str, tuple[str, str | None, str]] = {
    "4000000000000002": ("card_declined", "generic_decline", "Your card was declined."),
    "4000000000009995": ("card_declined", "insufficient_funds", "Your card has insufficient funds."),
    "4000000000009987": ("card_declined", "lost_card", "Your card was declined."),
    "4000000000009979": ("card_declined", "stolen_card", "Your card was declined."),
    "4000000000000069": ("expired_card", "expired_card", "Your card has expired."),
    "4000000000000127": ("incorrect_cvc", "incorrect_cvc", "Your card's security code is incorrect."),
    "4000000000000119": (
        "processing_error",
        "processing_error",
        "An error occurred while processing your card. Try again in a little bit.",
    ),
    "4000000000000341": ("card_declined", "generic_decline", "Your card was declined."),
}
DESTINATION_CAPABILITY_MESSAGE = (
    "Your destination account needs to have at least one of the following capabilities enabled: "
    "transfers, crypto_transfers, legacy_payments"
)
FEE_WITHOUT_CONNECT_MESSAGE = (
    "Can only apply an application_fee_amount when the PaymentIntent is attempting a direct payment "
    "(using an OAuth key or Stripe-Account header) or destination payment (using `transfer_data[destination]`)."
)
ONBOARDING_FIELDS = [
    "business_profile.mcc",
    "business_profile.url",
    "external_account",
    "individual.dob.day",
    "individual.dob.month",
    "individual.dob.year",
    "individual.first_name",
    "individual.last_name",
    "tos_acceptance.date",
    "tos_acceptance.ip",
]


class CardError(UserError):
    """A 402 shaped like Stripe's `card_error` (localstripe only knows `invalid_request_error`)."""

    def __init__(self, message: str, *, code: str, decline_code: str | None = None, **extra: Any) -> None:
        contents: dict[str, Any] = {"code": code, **extra}
        if decline_code:
            contents["decline_code"] = decline_code
        super().__init__(402, message, contents)
        self.body["error"]["type"] = "card_error"


class InvalidRequest(UserError):
    """A 400 with Stripe's `code`/`param` fields, which the SDK turns into InvalidRequestError."""

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None) -> None:
        contents: dict[str, Any] = {}
        if code:
            contents["code"] = code
        if param:
            contents["param"] = param
        super().__init__(400, message, contents)


def _as_int(value: Any, *, param: str) -> int:
    converted = ls.try_convert_to_int(value)
    if type(converted) is not int:
        raise InvalidRequest(f"Invalid integer: {value}", code="parameter_invalid_integer", param=param)
    return converted


def _as_bool(value: Any) -> bool:
    return ls.try_convert_to_bool(value) is True


# --- card checks, shared by the browser confirm route and createPaymentMethod ------------------------------


def _luhn_ok(number: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d * 2 > 9 else d * 2
        total += d
    return total % 10 == 0


def validate_card(card: Any) -> dict[str, Any]:
    """Normalise typed card data or raise the `validation`-style card error Stripe.js would show."""
    if not isinstance(card, dict):
        raise CardError("Your card number is incomplete.", code="incomplete_number", param="card[number]")
    number = re.sub(r"[\s-]", "", str(card.get("number") or ""))
    if not number.isdigit() or len(number) < 16:
        raise CardError("Your card number is incomplete.", code="incomplete_number", param="card[number]")
    if len(number) > 16 or not _luhn_ok(number):
        raise CardError("Your card number is invalid.", code="invalid_number", param="card[number]")
    month = ls.try_convert_to_int(card.get("exp_month"))
    year = ls.try_convert_to_int(card.get("exp_year"))
    if type(month) is not int or type(year) is not int:
        raise CardError("Your card's expiration date is incomplete.", code="incomplete_expiry", param="card[exp_month]")
    if not 1 <= month <= 12:
        raise CardError("Your card's expiration month is invalid.", code="invalid_expiry_month",
                        param="card[exp_month]")
    if year < 100:
        year += 2000
    now = datetime.now(UTC)
    if year < now.year or year > 2099:
        raise CardError("Your card's expiration year is in the past." if year < now.year
                        else "Your card's expiration year is invalid.",
                        code="invalid_expiry_year", param="card[exp_year]")
    if (year, month) < (now.year, now.month):
        raise CardError("Your card's expiration date is in the past.", code="invalid_expiry_month",
                        param="card[exp_month]")
    cvc = str(card.get("cvc") or "").strip()
    if not cvc.isdigit() or len(cvc) < 3:
        raise CardError("Your card's security code is incomplete.", code="incomplete_cvc", param="card[cvc]")
    if len(cvc) != 3:
        raise CardError("Your card's security code is invalid.", code="invalid_cvc", param="card[cvc]")
    return {"number": number, "exp_month": month, "exp_year": year, "cvc": cvc}


def payment_method_from_data(data: Any) -> ls.PaymentMethod:
    """Create a card PaymentMethod from `payment_method_data` (what Stripe.js sends on confirm)."""
    if not isinstance(data, dict) or data.get("type", "card") != "card":
        raise InvalidRequest("Only card payment methods are supported by the local stand-in.",
                             param="payment_method_data[type]")
    billing = data.get("billing_details")
    return ls.PaymentMethod(type="card", card=validate_card(data.get("card")),
                            billing_details=billing if isinstance(billing, dict) else None)


# --- declines at charge time ---------------------------------------------------------------------------------


GENERIC_DECLINE = ("card_declined", "generic_decline", "Your card was declined.")
# decline_code -> what a charge then answers (for `decline_later`)
DECLINES_BY_CODE: dict[str, tuple[str, str | None, str]] = {
    decline: (code, decline, message) for code, decline, message in CARD_DECLINES.values() if decline}


def card_decline(method: Any) -> tuple[str, str | None, str]:
    """(code, decline_code, message) a charge or attach with this card answers when declined."""
    forced = getattr(method, "_decline_later", None)
    if forced:
        return DECLINES_BY_CODE.get(forced, GENERIC_DECLINE)
    return CARD_DECLINES.get(getattr(method, "_card_number", None) or "", GENERIC_DECLINE)


def decline_later(method: Any, decline_code: str | None) -> None:
    """From now on, charges with this saved card fail with `decline_code` (None: they succeed again)."""
    if decline_code is not None and decline_code not in DECLINES_BY_CODE:
        raise InvalidRequest(f"Invalid decline_code: must be one of {', '.join(sorted(DECLINES_BY_CODE))}",
                             param="decline_code")
    method._decline_later = decline_code


def _method_of(payment_method_id: str | None) -> Any:
    if not payment_method_id:
        return None
    return ls.store.get("payment_method:" + payment_method_id) or ls.store.get("card:" + payment_method_id)


_orig_charging_is_declined = ls.PaymentMethod._charging_is_declined


def _charging_is_declined(self: Any) -> bool:
    if getattr(self, "_decline_later", None):
        return True
    if getattr(self, "type", None) == "card" and getattr(self, "_card_number", None) in CARD_DECLINES:
        return True
    return _orig_charging_is_declined(self)


def _set_auth_failure(self: ls.Charge) -> None:
    method = _method_of(self.payment_method)
    code, decline_code, message = card_decline(method) if method is not None else GENERIC_DECLINE
    self.status = "failed"
    self.failure_code = code
    self.failure_message = message
    self.outcome = {"type": "issuer_declined", "reason": decline_code, "network_status": "declined_by_network"}
    self._decline_code = decline_code


def _raise_failure(self: ls.Charge) -> None:
    raise CardError(self.failure_message, code=self.failure_code,
                    decline_code=getattr(self, "_decline_code", None), charge=self.id)


_orig_last_payment_error = ls.PaymentIntent.last_payment_error


def _last_payment_error(self: ls.PaymentIntent) -> dict[str, Any] | None:
    error = _orig_last_payment_error.fget(self)
    charge = self.latest_charge
    if error and charge is not None and charge.status == "failed":
        error = {**error, "type": "card_error", "decline_code": getattr(charge, "_decline_code", None),
                 "payment_method": {"id": charge.payment_method, "type": "card"}}
    elif error:
        error = {**error, "type": "card_error"}
    return error


# --- PaymentIntent parameters localstripe refuses ------------------------------------------------------------

PI_EXTRA_PARAMS = (
    "application_fee_amount",
    "transfer_data",
    "on_behalf_of",
    "automatic_payment_methods",
    "description",
    "receipt_email",
    "statement_descriptor_suffix",
    "transfer_group",
    "allowed_payment_method_types",
    "setup_future_usage",
)
_orig_pi_init = ls.PaymentIntent.__init__
_orig_pi_on_success = ls.PaymentIntent._on_success


def _transfer_destination(destination: Any, *, param: str) -> str:
    if not isinstance(destination, str) or not destination.startswith("acct_"):
        raise InvalidRequest(f"No such destination: '{destination}'", code="resource_missing", param=param)
    account = ls.store.get("account:" + destination)
    if account is None:
        raise InvalidRequest(f"No such destination: '{destination}'", code="resource_missing", param=param)
    if account.capabilities.get("transfers") != "active":
        raise InvalidRequest(DESTINATION_CAPABILITY_MESSAGE, code="insufficient_capabilities_for_transfer",
                             param=param)
    return destination


def _pi_init(self: ls.PaymentIntent, **kwargs: Any) -> None:
    if "payment_method_types" in kwargs:  # gone from the pinned API version: `allowed_payment_method_types` now
        raise InvalidRequest("Received unknown parameter: payment_method_types", code="parameter_unknown",
                             param="payment_method_types")
    extra = {key: kwargs.pop(key) for key in PI_EXTRA_PARAMS if key in kwargs}
    amount = ls.try_convert_to_int(kwargs.get("amount"))
    # Validate everything before the original constructor stores the object.
    fee = extra.get("application_fee_amount")
    if fee is not None:
        fee = _as_int(fee, param="application_fee_amount")
        if fee < 0 or (type(amount) is int and fee > amount):
            raise InvalidRequest("The application fee must be between 0 and the amount.",
                                 param="application_fee_amount")
    transfer_data = extra.get("transfer_data")
    if transfer_data is not None:
        if not isinstance(transfer_data, dict):
            raise InvalidRequest("Invalid transfer_data", param="transfer_data")
        transfer_data = {"destination": _transfer_destination(transfer_data.get("destination"),
                                                              param="transfer_data[destination]")}
        if "amount" in extra["transfer_data"]:
            transfer_data["amount"] = _as_int(extra["transfer_data"]["amount"], param="transfer_data[amount]")
    on_behalf_of = extra.get("on_behalf_of")
    if on_behalf_of is not None:
        _transfer_destination(on_behalf_of, param="on_behalf_of")
    if fee is not None and transfer_data is None and on_behalf_of is None:
        raise InvalidRequest(FEE_WITHOUT_CONNECT_MESSAGE, param="application_fee_amount")
    methods = extra.get("allowed_payment_method_types")
    if methods is not None and (not isinstance(methods, list) or not all(isinstance(m, str) for m in methods)):
        raise InvalidRequest("Invalid array", param="allowed_payment_method_types")
    automatic = extra.get("automatic_payment_methods")
    if automatic is not None:
        if not isinstance(automatic, dict):
            raise InvalidRequest("Invalid automatic_payment_methods", param="automatic_payment_methods")
        automatic = {"enabled": _as_bool(automatic.get("enabled")),
                     "allow_redirects": automatic.get("allow_redirects", "always")}
        if methods is not None and automatic["enabled"]:
            raise InvalidRequest("You may only specify one of these parameters: automatic_payment_methods, "
                                 "allowed_payment_method_types.", param="automatic_payment_methods")

    _orig_pi_init(self, **kwargs)

    self.application_fee_amount = fee
    self.transfer_data = transfer_data
    self.on_behalf_of = on_behalf_of
    self.automatic_payment_methods = automatic
    # The stand-in's Stripe.js shim collects cards only, so that is what automatic methods resolve to.
    self.payment_method_types = methods or ["card"]
    self.description = extra.get("description")
    self.receipt_email = extra.get("receipt_email")
    self.statement_descriptor_suffix = extra.get("statement_descriptor_suffix")
    self.transfer_group = extra.get("transfer_group")
    setup = extra.get("setup_future_usage")
    if setup not in (None, "", "off_session", "on_session"):
        raise InvalidRequest("Invalid setup_future_usage: must be one of off_session or on_session",
                             param="setup_future_usage")
    self.setup_future_usage = setup or None
    self.canceled_at = None
    self.cancellation_reason = None
    emit("payment_intent.created", self)


# Called with the PaymentIntent on each success: before its events and invoice (saving the card), and after
# them (disputes of the dispute test cards). Billing and refunds register here.
before_success: list[Callable[[ls.PaymentIntent], None]] = []
after_success: list[Callable[[ls.PaymentIntent], None]] = []


def _pi_on_success(self: ls.PaymentIntent) -> None:
    """Destination charge: the whole amount goes to the connected account, which pays the application fee."""
    charge = self.latest_charge
    transfer_data = getattr(self, "transfer_data", None)
    if transfer_data and charge is not None and getattr(charge, "transfer", None) is None:
        fee = getattr(self, "application_fee_amount", None) or 0
        amount = transfer_data.get("amount", self.amount)
        transfer = Transfer(amount=amount, currency=self.currency, destination=transfer_data["destination"],
                            source_transaction=charge.id, transfer_group=getattr(self, "transfer_group", None),
                            metadata={"payment_intent": self.id})
        charge.transfer = transfer.id
        charge.transfer_data = dict(transfer_data)
        charge.application_fee_amount = fee or None
        charge.destination = transfer_data["destination"]
        if fee:
            charge.application_fee = ApplicationFee(charge=charge, account=transfer_data["destination"],
                                                    amount=fee).id
        emit("transfer.created", transfer, account=None)
    if charge is not None:
        emit("charge.succeeded", charge)
    for hook in before_success:
        hook(self)
    _orig_pi_on_success(self)
    for hook in after_success:
        hook(self)


def _with_charge_failed(report: Callable[[ls.PaymentIntent], None]) -> Callable[[ls.PaymentIntent], None]:
    def wrapped(self: ls.PaymentIntent) -> None:
        if self.latest_charge is not None:
            emit("charge.failed", self.latest_charge)
        report(self)

    return wrapped


_orig_charge_init = ls.Charge.__init__


def _charge_init(self: ls.Charge, *args: Any, **kwargs: Any) -> None:
    _orig_charge_init(self, *args, **kwargs)
    self.application_fee = None
    self.application_fee_amount = None
    self.transfer = None
    self.transfer_data = None
    self.on_behalf_of = None
    self.receipt_url = None


_orig_charge_export = ls.Charge._export


def _charge_export(self: ls.Charge, expand: Any = None) -> dict[str, Any]:
    data = _orig_charge_export(self, expand=expand)
    intent = ls.store.get(f"payment_intent:{self.payment_intent}") if self.payment_intent else None
    if intent is not None:
        data["description"] = intent.description
        data["metadata"] = dict(intent.metadata)
        data["receipt_email"] = intent.receipt_email
        data["on_behalf_of"] = getattr(intent, "on_behalf_of", None)
    method = _method_of(self.payment_method)
    card = getattr(method, "card", None)
    if isinstance(card, dict):
        data["payment_method_details"] = {"type": "card", "card": {
            k: card.get(k) for k in ("brand", "country", "exp_month", "exp_year", "fingerprint", "funding", "last4")}}
    data["amount_captured"] = self.amount if self.status == "succeeded" and self.captured else 0
    data["disputed"] = any(d.charge == self.id for d in ls.store.of("dispute"))  # type: ignore[attr-defined]
    if not context.legacy_shape():
        data.pop("invoice", None)
        data.pop("destination", None)  # gone from Charges (transfer_data.destination says it)
    return data


def _pi_export(self: ls.PaymentIntent, expand: Any = None) -> dict[str, Any]:
    """Today's PaymentIntent: `latest_charge` and `payment_method` are ids (expandable), no `charges` list."""
    from dev.stripe_standin.shapes import expand_dict  # shapes imports this module

    status = self.status
    charge = self.latest_charge
    data = {
        "id": self.id, "object": "payment_intent", "amount": self.amount,
        "amount_capturable": self.amount if status == "requires_capture" else 0,
        "amount_details": {"tip": {}}, "amount_received": self.amount if status == "succeeded" else 0,
        "application": None, "application_fee_amount": getattr(self, "application_fee_amount", None),
        "automatic_payment_methods": getattr(self, "automatic_payment_methods", None),
        "canceled_at": getattr(self, "canceled_at", None), "cancellation_reason": getattr(self, "cancellation_reason",
                                                                                          None),
        "capture_method": self.capture_method, "client_secret": self.client_secret,
        "confirmation_method": "automatic", "created": self.created, "currency": self.currency,
        "customer": self.customer, "description": getattr(self, "description", None),
        "excluded_payment_method_types": None, "last_payment_error": self.last_payment_error,
        "latest_charge": charge.id if charge is not None else None, "livemode": False, "metadata": dict(self.metadata),
        "next_action": self.next_action, "on_behalf_of": getattr(self, "on_behalf_of", None),
        "payment_method": self.payment_method, "payment_method_configuration_details": None,
        "payment_method_options": {"card": {"installments": None, "mandate_options": None, "network": None,
                                            "request_three_d_secure": "automatic"}},
        "payment_method_types": list(getattr(self, "payment_method_types", None) or ["card"]), "processing": None,
        "receipt_email": getattr(self, "receipt_email", None), "review": None,
        "setup_future_usage": getattr(self, "setup_future_usage", None), "shipping": None, "source": None,
        "statement_descriptor": None,
        "statement_descriptor_suffix": getattr(self, "statement_descriptor_suffix", None), "status": status,
        "transfer_data": getattr(self, "transfer_data", None), "transfer_group": getattr(self, "transfer_group", None),
    }
    if context.legacy_shape():  # before 2025-03-31.basil an intent named its invoice
        data["invoice"] = self.invoice
    return expand_dict(data, list(expand or []))


# --- Connect -------------------------------------------------------------------------------------------------


def connect_event(event_type: str, obj: Any, account_id: str | None) -> ls.Event:
    """Emit an event; one about a connected account says which (`account`), as Stripe's Connect events do."""
    return emit(event_type, obj, account=account_id)


def _shown_controller(*, payer: str, losses: str, collection: str, dashboard: str) -> dict[str, Any]:
    return {"fees": {"payer": payer}, "is_controller": True, "losses": {"payments": losses},
            "requirement_collection": collection, "stripe_dashboard": {"type": dashboard}, "type": "application"}


# What each (deprecated) account type means in controller properties, as Stripe maps them.
CONTROLLER_OF_TYPE = {
    "express": _shown_controller(payer="application", losses="application", collection="stripe",
                                 dashboard="express"),
    "standard": _shown_controller(payer="account", losses="stripe", collection="stripe", dashboard="full"),
    "custom": _shown_controller(payer="application", losses="application", collection="application",
                                dashboard="none"),
}


def _controller(value: Any) -> dict[str, Any]:
    """`controller` on create, checked as Stripe checks it, in the shape an Account shows it."""
    if not isinstance(value, dict):
        raise InvalidRequest("Invalid object", param="controller")
    unknown = sorted(set(value) - {"fees", "losses", "requirement_collection", "stripe_dashboard"})
    if unknown:
        raise InvalidRequest(f"Received unknown parameter: controller[{unknown[0]}]", code="parameter_unknown",
                             param=f"controller[{unknown[0]}]")

    def pick(group: str, key: str | None, allowed: tuple[str, ...], default: str) -> str:
        raw = value.get(group)
        if key is not None:
            if raw is None:
                return default
            if not isinstance(raw, dict):
                raise InvalidRequest("Invalid object", param=f"controller[{group}]")
            raw = raw.get(key)
        name = f"controller[{group}]" + (f"[{key}]" if key else "")
        if raw is None:
            return default
        if raw not in allowed:
            raise InvalidRequest(f"Invalid {name}: must be one of {', '.join(allowed)}", param=name)
        return str(raw)

    payer = pick("fees", "payer", ("account", "application"), "account")
    losses = pick("losses", "payments", ("application", "stripe"), "stripe")
    collection = pick("requirement_collection", None, ("application", "stripe"), "stripe")
    dashboard = pick("stripe_dashboard", "type", ("express", "full", "none"), "full")
    if losses == "application" and payer != "application":
        raise InvalidRequest("Setting controller.losses.payments=application requires controller.fees.payer="
                             "application.", param="controller[losses][payments]")
    if collection == "application" and (dashboard != "none" or losses != "application"):
        raise InvalidRequest("controller.requirement_collection=application requires controller.stripe_dashboard."
                             "type=none and controller.losses.payments=application.",
                             param="controller[requirement_collection]")
    return _shown_controller(payer=payer, losses=losses, collection=collection, dashboard=dashboard)


def _type_of(controller: dict[str, Any]) -> str:
    """The account type Stripe reports for controller properties ('none' when they match no type)."""
    for name, shown in CONTROLLER_OF_TYPE.items():
        if shown == controller:
            return name
    return "none"


class Account(ls.StripeObject):
    """A connected account: restricted until its onboarding link is completed."""

    object = "account"
    _id_prefix = "acct_"

    def __init__(
        self,
        type: str | None = None,
        country: str | None = None,
        email: str | None = None,
        business_type: str | None = None,
        capabilities: dict[str, Any] | None = None,
        business_profile: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        default_currency: str | None = None,
        controller: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise InvalidRequest(f"Received unknown parameter: {next(iter(kwargs))}", code="parameter_unknown")
        # `type` is deprecated in favour of `controller` but still accepted (Stripe keeps it backwards compatible).
        if type not in (None, "express", "standard", "custom"):
            raise InvalidRequest(f"Invalid type: must be one of express, standard, or custom (got {type})",
                                 param="type")
        shown_controller = _controller(controller) if controller is not None else CONTROLLER_OF_TYPE[
            type or "express"]
        country = (country or "US").upper()
        if not re.fullmatch(r"[A-Z]{2}", country):
            raise InvalidRequest("Invalid country", param="country")
        if capabilities is not None and not isinstance(capabilities, dict):
            raise InvalidRequest("Invalid capabilities", param="capabilities")
        requested = {name for name, value in (capabilities or {}).items()
                     if isinstance(value, dict) and _as_bool(value.get("requested"))}
        if type in (None, "express", "standard") and not requested:
            requested = {"card_payments", "transfers"}

        super().__init__()

        self.type = type or _type_of(shown_controller)
        self.country = country
        self.email = email
        self.business_type = business_type
        self.business_profile = business_profile or {"mcc": None, "name": None, "url": None}
        self.metadata = metadata or {}
        self.default_currency = (default_currency or ("eur" if country in EURO_COUNTRIES else "usd")).lower()
        self.controller = shown_controller
        self.capabilities = {name: "inactive" for name in sorted(requested)}
        self.charges_enabled = False
        self.payouts_enabled = False
        self.details_submitted = False
        self.requirements = _requirements(ONBOARDING_FIELDS, disabled_reason="requirements.past_due")
        self.future_requirements = _requirements([], disabled_reason=None)
        self.tos_acceptance = {"date": None, "ip": None, "user_agent": None}
        self.external_accounts = self._external_accounts(attached=False)

    def _external_account_id(self) -> str:
        """The id of the bank account payouts go to (stable per account)."""
        return "ba_" + self.id.removeprefix("acct_")

    def _external_accounts(self, *, attached: bool) -> dict[str, Any]:
        bank = {"id": self._external_account_id(), "object": "bank_account", "account": self.id,
                "bank_name": "STRIPE TEST BANK", "country": self.country, "currency": self.default_currency,
                "last4": "6789", "routing_number": "110000000", "status": "new", "default_for_currency": True}
        return {"object": "list", "url": f"/v1/accounts/{self.id}/external_accounts", "has_more": False,
                "data": [bank] if attached else []}

    def _complete_onboarding(self) -> None:
        self.details_submitted = True
        self.charges_enabled = True
        self.payouts_enabled = True
        self.capabilities = {name: "active" for name in self.capabilities}
        self.requirements = _requirements([], disabled_reason=None)
        self.tos_acceptance = {"date": int(time.time()), "ip": "127.0.0.1", "user_agent": "stripe-standin"}
        self.external_accounts = self._external_accounts(attached=True)
        connect_event("account.updated", self, self.id)

    def _submit_without_payouts(self) -> None:
        """Details sent, bank account still being verified: can charge, cannot be paid out yet."""
        self.details_submitted = True
        self.charges_enabled = True
        self.payouts_enabled = False
        self.capabilities = {name: "active" for name in self.capabilities}
        self.requirements = _requirements([], disabled_reason=None, pending=["external_account"])
        self.external_accounts = self._external_accounts(attached=True)
        connect_event("account.updated", self, self.id)

    def _restrict(self) -> None:
        """Stripe disabled the account (new requirements past due): no charges, transfers or payouts."""
        self.charges_enabled = False
        self.payouts_enabled = False
        self.capabilities = {name: "inactive" for name in self.capabilities}
        self.requirements = _requirements(["individual.verification.document"],
                                          disabled_reason="requirements.past_due")
        connect_event("account.updated", self, self.id)

    def _export(self, expand: Any = None) -> dict[str, Any]:
        data = super()._export(expand=expand)
        data.pop("livemode", None)  # an Account has none (dev/stripe_types.json)
        return data

    @classmethod
    def _api_update(cls, id: str, **data: Any) -> Account:
        allowed = {"email", "business_profile", "metadata", "default_currency", "business_type"}
        unknown = set(data) - allowed
        if unknown:
            raise InvalidRequest(f"Received unknown parameter: {sorted(unknown)[0]}", code="parameter_unknown")
        obj = super()._api_update(id, **data)
        connect_event("account.updated", obj, obj.id)
        return obj


EURO_COUNTRIES = {"AT", "BE", "DE", "ES", "FI", "FR", "IE", "IT", "LU", "NL", "PT"}


def _requirements(due: list[str], *, disabled_reason: str | None, pending: list[str] | None = None) -> dict[str, Any]:
    return {
        "alternatives": [],
        "current_deadline": None,
        "currently_due": list(due),
        "disabled_reason": disabled_reason,
        "errors": [],
        "eventually_due": list(due),
        "past_due": list(due),
        "pending_verification": list(pending or []),
    }


@dataclass
class OnboardingLink:
    account: str
    refresh_url: str
    return_url: str
    expires_at: int
    used: bool = False


@dataclass
class ConnectState:
    """Account links are not Stripe objects you can retrieve; the hosted pages resolve them by token."""

    links: dict[str, OnboardingLink] = field(default_factory=dict)

    def clear(self) -> None:
        self.links.clear()


connect_state = ConnectState()
LINK_TTL_SECONDS = 300


def create_account_link(*, base_url: str, account: Any, refresh_url: Any, return_url: Any, type: Any,
                        **kwargs: Any) -> dict[str, Any]:
    kwargs.pop("collect", None)
    kwargs.pop("collection_options", None)
    if kwargs:
        raise InvalidRequest(f"Received unknown parameter: {next(iter(kwargs))}", code="parameter_unknown")
    if not isinstance(account, str):
        raise InvalidRequest("Missing required param: account.", code="parameter_missing", param="account")
    Account._api_retrieve(account)
    for name, value in (("refresh_url", refresh_url), ("return_url", return_url)):
        if not isinstance(value, str) or not value.startswith(("http://", "https://")):
            raise InvalidRequest(f"Not a valid URL: {name}", code="url_invalid", param=name)
    if type not in ("account_onboarding", "account_update"):
        raise InvalidRequest("Invalid type: must be one of account_onboarding or account_update", param="type")
    token = secrets.token_urlsafe(18)
    created = int(time.time())
    connect_state.links[token] = OnboardingLink(account=account, refresh_url=refresh_url, return_url=return_url,
                                                expires_at=created + LINK_TTL_SECONDS)
    return {"object": "account_link", "created": created, "expires_at": created + LINK_TTL_SECONDS,
            "url": f"{base_url}/_standin/connect/onboarding/{token}"}


def create_login_link(*, base_url: str, account_id: str) -> dict[str, Any]:
    """Express dashboard link; the stand-in's page shows the account state and its transfers."""
    account = Account._api_retrieve(account_id)
    dashboard = ((getattr(account, "controller", None) or {}).get("stripe_dashboard") or {}).get("type")
    if account.type != "express" and dashboard != "express":
        raise InvalidRequest("Login links can only be created for Express accounts.")
    return {"object": "login_link", "created": int(time.time()),
            "url": f"{base_url}/_standin/connect/dashboard/{account_id}"}


class Transfer(ls.StripeObject):
    object = "transfer"
    _id_prefix = "tr_"

    def __init__(self, amount: Any = None, currency: Any = None, destination: Any = None,
                 source_transaction: str | None = None, transfer_group: str | None = None,
                 metadata: dict[str, Any] | None = None, description: str | None = None, **kwargs: Any) -> None:
        if kwargs:
            raise InvalidRequest(f"Received unknown parameter: {next(iter(kwargs))}", code="parameter_unknown")
        amount = _as_int(amount, param="amount")
        if amount < 0:
            raise InvalidRequest("Invalid positive integer", param="amount")
        if not isinstance(currency, str) or not currency:
            raise InvalidRequest("Missing required param: currency.", code="parameter_missing", param="currency")
        destination = _transfer_destination(destination, param="destination")

        super().__init__()

        self.amount = amount
        self.amount_reversed = 0
        self.currency = currency.lower()
        self.destination = destination
        self.source_transaction = source_transaction
        self.transfer_group = transfer_group
        self.description = description
        self.metadata = metadata or {}
        self.reversed = False

    @classmethod
    def _api_list_all(cls, url: str, destination: str | None = None, limit: Any = None,
                      starting_after: str | None = None, **kwargs: Any) -> Any:
        li = super()._api_list_all(url, limit=limit, starting_after=starting_after, **kwargs)
        if destination:
            li._list = [t for t in li._list if t.destination == destination]
        li._list.sort(key=lambda t: t.created, reverse=True)
        return li


class ApplicationFee(ls.StripeObject):
    """The platform's fee on a destination charge, collected from the connected account."""

    object = "application_fee"
    _id_prefix = "fee_"

    def __init__(self, *, charge: ls.Charge, account: str, amount: int) -> None:
        super().__init__()
        self.account = account
        self.amount = amount
        self.amount_refunded = 0
        self.application = None
        self.balance_transaction = "txn_" + ls.random_id(24)
        self.charge = charge.id
        self.currency = charge.currency
        self.fee_source = {"charge": charge.id, "type": "charge"}
        self.originating_transaction = None
        self.refunded = False
        emit("application_fee.created", self)

    def _refund(self, amount: int) -> None:
        self.amount_refunded = min(self.amount, self.amount_refunded + amount)
        self.refunded = self.amount_refunded == self.amount
        emit("application_fee.refunded", self)


def install() -> None:
    """Apply the patches once (idempotent)."""
    if getattr(ls, "_standin_installed", False):
        return
    ls.PaymentMethod._charging_is_declined = _charging_is_declined
    ls.Charge._set_auth_failure = _set_auth_failure
    ls.Charge._raise_failure = _raise_failure
    ls.PaymentIntent.last_payment_error = property(_last_payment_error)
    ls.PaymentIntent.__init__ = _pi_init
    ls.PaymentIntent._on_success = _pi_on_success
    ls.PaymentIntent._report_failure = _with_charge_failed(ls.PaymentIntent._report_failure)
    ls.PaymentIntent._report_async_failure = _with_charge_failed(ls.PaymentIntent._report_async_failure)
    ls.PaymentIntent._export = _pi_export
    ls.Charge.__init__ = _charge_init
    ls.Charge._export = _charge_export
    ls._standin_installed = True
