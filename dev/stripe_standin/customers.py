"""Customers (on test clocks), saved cards and SetupIntents, with today's Stripe shapes.

- Customer: `balance` (negative = credit, used by the next invoices), `invoice_settings.default_payment_method`
  (must be a card attached to the customer), `test_clock` (the customer's objects live at that clock's time),
  `currency` (set by its first subscription), `delinquent` (an automatic payment failed and is still open),
  `invoice_prefix` / `next_invoice_sequence` (invoice numbers). `sources`, `subscriptions` and `tax_ids` are
  includable (`expand[]=subscriptions`), as since 2020-08-27. Deleting a customer cancels its subscriptions.
- PaymentMethods: attach (declining test cards are refused as Stripe refuses them: 4000000000000002...),
  detach (clears the defaults that pointed at it), list by customer; `payment_method.attached`/`.detached`.
- SetupIntents: created for a customer (with `automatic_payment_methods`; `payment_method_types` is refused, as the
  pinned API version refuses it), confirmed with the secret key or from Stripe.js (publishable key +
  client secret + typed card, `confirmSetup`); success attaches the card to the customer
  (`setup_intent.succeeded`, `payment_method.attached`); a declined card leaves it `requires_payment_method`
  with `last_setup_error` (`setup_intent.setup_failed`); 3-D Secure cards ask for authentication first.
  4000000000000341 attaches fine and declines every later charge, as in Stripe.
"""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Callable
from typing import Any

from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import context
from dev.stripe_standin.compat import CardError, InvalidRequest, card_decline
from dev.stripe_standin.delivery import emit
from dev.stripe_standin.shapes import (
    Resource,
    as_int,
    as_metadata,
    merge_metadata,
    one_of,
    page,
    reject_unknown,
)


def clock_of(customer_id: str | None) -> Any:
    """The test clock a customer lives on, or None."""
    customer = ls.store.get(f"customer:{customer_id}") if customer_id else None
    clock_id = getattr(customer, "test_clock", None)
    return ls.store.get(f"test_helpers.test_clock:{clock_id}") if clock_id else None


def time_of(customer_id: str | None) -> int | None:
    """The customer's "now": its clock's time (mid-advance: the step being processed), else None (wall clock)."""
    clock = clock_of(customer_id)
    if clock is None:
        return None
    return clock._cursor if clock._cursor is not None else clock.frozen_time


def at_customer(customer_id: str | None) -> Any:
    """`with at_customer(cus):` objects created inside carry the customer's time."""
    return context.at(time_of(customer_id) if not context.simulated() else context.now())


def _no_such(kind: str, object_id: Any, param: str) -> UserError:
    return UserError(404, f"No such {kind}: '{object_id}'", {"code": "resource_missing", "param": param})


def retrieve_customer(customer_id: Any, *, param: str = "customer") -> Customer:
    customer = ls.store.get(f"customer:{customer_id}") if isinstance(customer_id, str) else None
    if customer is None:
        raise _no_such("customer", customer_id, param)
    return customer


def attached_card(customer: Customer, method_id: Any, *, param: str) -> Any:
    """A PaymentMethod attached to `customer` (what default_payment_method may name)."""
    method = ls.store.get(f"payment_method:{method_id}") if isinstance(method_id, str) else None
    if method is None:
        raise _no_such("PaymentMethod", method_id, param)
    if method.customer != customer.id:
        raise InvalidRequest(f"The customer does not have a payment method with the ID {method_id}. The payment "
                             "method must be attached to the customer.", code="resource_missing", param=param)
    return method


class Customer(ls.Customer):
    """localstripe's Customer (its sources and default-card helpers) with today's fields and a test clock."""

    CREATE = {"name", "email", "description", "phone", "address", "metadata", "payment_method",
              "invoice_settings", "test_clock", "balance", "preferred_locales", "shipping", "tax_exempt", "source"}
    UPDATE = {"name", "email", "description", "phone", "address", "metadata", "invoice_settings", "balance",
              "preferred_locales", "shipping", "tax_exempt", "default_source"}
    currency: str | None = None  # shadows localstripe's read-only `currency` property

    def __init__(self, **params: Any) -> None:
        reject_unknown(params, self.CREATE)
        clock_id = params.get("test_clock")
        clock = None
        if clock_id is not None:
            clock = ls.store.get(f"test_helpers.test_clock:{clock_id}")
            if clock is None:
                raise _no_such("test clock", clock_id, "test_clock")
            if clock.status == "advancing":
                raise InvalidRequest("The test clock is advancing; wait until it is ready.", param="test_clock")
        balance = as_int(params.get("balance", 0), param="balance")
        settings = params.get("invoice_settings") or {}
        if not isinstance(settings, dict):
            raise InvalidRequest("Invalid object", param="invoice_settings")
        method_id = params.get("payment_method")
        if method_id is not None:
            method = ls.store.get(f"payment_method:{method_id}")
            if method is None:
                raise _no_such("PaymentMethod", method_id, "payment_method")
            _refuse_declining(method)
        with context.at(clock._now() if clock is not None else None):
            ls.StripeObject.__init__(self)
        self.name = params.get("name")
        self.email = params.get("email")
        self.description = params.get("description")
        self.phone = params.get("phone")
        self.address = params.get("address")
        self.shipping = params.get("shipping")
        self.metadata = as_metadata(params.get("metadata"))
        self.preferred_locales = list(params.get("preferred_locales") or [])
        self.tax_exempt = params.get("tax_exempt") or "none"
        self.balance = balance
        self.test_clock = clock.id if clock is not None else None
        self.currency: str | None = None
        self.delinquent = False
        self.invoice_prefix = "".join(secrets.choice(string.ascii_uppercase + string.digits) for _ in range(8))
        self.next_invoice_sequence = 1
        self.default_source = None
        self.discount = None
        self.invoice_settings = {"custom_fields": None, "default_payment_method": None, "footer": None,
                                 "rendering_options": None}
        self.sources = ls.List("/v1/customers/" + self.id + "/sources")
        self.tax_ids = ls.List("/v1/customers/" + self.id + "/tax_ids")
        # localstripe's helpers read these two.
        self.account_balance = 0
        if method_id is not None:
            with at_customer(self.id):
                attach(method_id, self)
        default = settings.get("default_payment_method")
        if default:
            self.invoice_settings["default_payment_method"] = attached_card(
                self, default, param="invoice_settings[default_payment_method]").id

    @classmethod
    def _api_create(cls, source: Any = None, **params: Any) -> Customer:
        customer = cls(**params)
        with at_customer(customer.id):
            emit("customer.created", customer)
        if source:
            ls.Customer._api_add_source(customer.id, source)
        return customer

    @classmethod
    def _api_update(cls, id: str, **params: Any) -> Customer:
        reject_unknown(params, cls.UPDATE)
        customer = retrieve_customer(id, param="id")
        before = customer._fields()
        if "metadata" in params:
            customer.metadata = merge_metadata(customer.metadata, params.pop("metadata"))
        if "balance" in params:
            customer.balance = as_int(params.pop("balance"), param="balance")
        if "invoice_settings" in params:
            settings = params.pop("invoice_settings")
            if not isinstance(settings, dict):
                raise InvalidRequest("Invalid object", param="invoice_settings")
            if "default_payment_method" in settings:
                method_id = settings["default_payment_method"] or None
                if method_id is not None:
                    attached_card(customer, method_id, param="invoice_settings[default_payment_method]")
                customer.invoice_settings["default_payment_method"] = method_id
        for key, value in params.items():
            setattr(customer, key, value if value != "" else None)
        after = customer._fields()
        with at_customer(customer.id):
            emit("customer.updated", customer, previous={k: v for k, v in before.items() if after.get(k) != v})
        return customer

    @classmethod
    def _api_delete(cls, id: str) -> Any:
        from dev.stripe_standin import subscriptions  # subscriptions end with their customer

        customer = retrieve_customer(id, param="id")
        with at_customer(id):
            for subscription in subscriptions.subscriptions_of(id):
                if subscription.status not in subscriptions.ENDED:
                    subscriptions.cancel_now(subscription, reason="cancellation_requested")
            del ls.store[f"customer:{id}"]
            emit("customer.deleted", customer)
        return ls.DeletedObject(id, "customer")

    @classmethod
    def _api_list_all(cls, url: str, **params: Any) -> dict[str, Any]:  # type: ignore[override]
        reject_unknown(params, {"email", "test_clock", "limit", "starting_after", "ending_before", "expand",
                                "created"})
        rows = [c for c in ls.store.of("customer") if isinstance(c, Customer)]
        if params.get("email") is not None:
            rows = [c for c in rows if c.email == params["email"]]
        if params.get("test_clock") is not None:
            rows = [c for c in rows if c.test_clock == params["test_clock"]]
        rows.sort(key=lambda c: c.created, reverse=True)
        return page(rows, url=url, limit=params.get("limit"), starting_after=params.get("starting_after"),
                    ending_before=params.get("ending_before"), expand=params.get("expand"))

    def _fields(self) -> dict[str, Any]:
        return {"id": self.id, "object": "customer", "address": self.address, "balance": self.balance,
                "created": self.created, "currency": self.currency, "default_source": self.default_source,
                "delinquent": self.delinquent, "description": self.description, "discount": None,
                "email": self.email, "invoice_credit_balance": {}, "invoice_prefix": self.invoice_prefix,
                "invoice_settings": dict(self.invoice_settings), "livemode": False,
                "metadata": dict(self.metadata), "name": self.name,
                "next_invoice_sequence": self.next_invoice_sequence, "phone": self.phone,
                "preferred_locales": list(self.preferred_locales), "shipping": self.shipping,
                "tax_exempt": self.tax_exempt, "test_clock": self.test_clock}

    def _export(self, expand: Any = None) -> dict[str, Any]:
        from dev.stripe_standin.shapes import expand_tree, expand_value

        data = self._fields()
        for key, rest in expand_tree(expand).items():
            if key == "subscriptions":
                from dev.stripe_standin.subscriptions import subscriptions_of

                data[key] = page(subscriptions_of(self.id), url=f"/v1/customers/{self.id}/subscriptions",
                                 limit=100)
            elif key in ("sources", "tax_ids"):
                data[key] = getattr(self, key)._export()
            elif key in data:
                data[key] = expand_value(data[key], rest, key)
            else:
                raise InvalidRequest(f"This property cannot be expanded ({key}).", param="expand")
        return data

    def _get_default_payment_method_or_source(self) -> Any:
        method_id = self.invoice_settings.get("default_payment_method")
        if method_id:
            return ls.PaymentMethod._api_retrieve(method_id)
        if self.default_source:
            return next((s for s in self.sources._list if s.id == self.default_source), None)
        return None

    @property
    def subscriptions(self) -> Any:  # localstripe's routes read it
        from dev.stripe_standin.subscriptions import subscriptions_of

        li = ls.List(f"/v1/customers/{self.id}/subscriptions")
        li._list = subscriptions_of(self.id)
        return li


def upgrade_loaded(customer: Any) -> None:
    """A customer pickled by an older stand-in (plain localstripe) gains today's fields (state files survive)."""
    if isinstance(customer, Customer):
        return
    customer.__class__ = Customer
    defaults = {"balance": -getattr(customer, "account_balance", 0), "test_clock": None, "currency": None,
                "delinquent": False, "next_invoice_sequence": 1, "preferred_locales": [], "tax_exempt": "none",
                "invoice_prefix": "".join(secrets.choice(string.ascii_uppercase + string.digits) for _ in range(8))}
    for name, value in defaults.items():
        if name not in vars(customer):
            setattr(customer, name, value)
    customer.metadata = customer.metadata or {}
    customer.preferred_locales = customer.preferred_locales or []
    customer.invoice_settings = {"custom_fields": None, "footer": None, "rendering_options": None,
                                 "default_payment_method": (customer.invoice_settings or {}).get(
                                     "default_payment_method")}


# --- payment methods -----------------------------------------------------------------------------------------


def _refuse_declining(method: Any) -> None:
    """Attaching a card that Stripe declines at attach time fails with its card error."""
    if method._attaching_is_declined():
        code, decline_code, message = card_decline(method)
        raise CardError(message, code=code, decline_code=decline_code)


def attach(method_id: str, customer: Customer) -> Any:
    method = ls.store.get(f"payment_method:{method_id}") or ls.PaymentMethod._api_retrieve(method_id)
    if method.customer == customer.id:
        return method
    if method.customer is not None:
        raise InvalidRequest("The payment method you provided has already been attached to a customer.",
                             code="payment_method_unexpected_state", param="payment_method")
    _refuse_declining(method)
    method.customer = customer.id
    emit("payment_method.attached", method)
    return method


def detach(method_id: str) -> Any:
    method = ls.PaymentMethod._api_retrieve(method_id)
    customer_id = method.customer
    if customer_id is None:
        raise InvalidRequest("The payment method you provided is not attached to a customer so detachment is "
                             "impossible.", code="payment_method_unexpected_state")
    customer = ls.store.get(f"customer:{customer_id}")
    with at_customer(customer_id):
        if customer is not None and customer.invoice_settings.get("default_payment_method") == method_id:
            customer.invoice_settings["default_payment_method"] = None
        from dev.stripe_standin.subscriptions import subscriptions_of

        for subscription in subscriptions_of(customer_id):
            if subscription.default_payment_method == method_id:
                subscription.default_payment_method = None
        method.customer = None
        emit("payment_method.detached", method, previous={"customer": customer_id})
    return method


def list_methods(customer_id: str, params: dict[str, Any], url: str) -> dict[str, Any]:
    reject_unknown(params, {"customer", "type", "limit", "starting_after", "ending_before", "expand"})
    retrieve_customer(customer_id)
    kind = params.get("type")
    rows = [m for m in ls.store.of("payment_method") if m.customer == customer_id and (kind is None or m.type == kind)]
    # Newest first, as Stripe: cards made in the same second (a test clock's frozen time) by the order they came.
    order = {id(m): n for n, m in enumerate(rows)}
    rows.sort(key=lambda m: (m.created, order[id(m)]), reverse=True)
    return page(rows, url=url, limit=params.get("limit"), starting_after=params.get("starting_after"),
                ending_before=params.get("ending_before"), expand=params.get("expand"))


# --- SetupIntents ---------------------------------------------------------------------------------------------

# Called with each SetupIntent that succeeded (a trialing subscription's `pending_setup_intent` saves its card).
after_setup: list[Callable[[Any], None]] = []


class SetupIntent(Resource):
    object = "setup_intent"
    _id_prefix = "seti_"
    # The pinned API version's create parameters: `payment_method_types` is gone (Stripe answers
    # `parameter_unknown`); the methods are the Dashboard's (`automatic_payment_methods`), narrowed by
    # `allowed_payment_method_types` / `excluded_payment_method_types`.
    CREATE = {"customer", "automatic_payment_methods", "allowed_payment_method_types",
              "excluded_payment_method_types", "usage", "metadata", "description", "payment_method", "confirm",
              "return_url", "on_behalf_of", "payment_method_options", "payment_method_data", "flow_directions",
              "single_use", "attach_to_self", "payment_method_configuration", "mandate_data", "use_stripe_sdk"}

    def __init__(self, **params: Any) -> None:
        reject_unknown(params, self.CREATE)
        customer_id = params.get("customer")
        if customer_id is not None:
            retrieve_customer(customer_id)
        usage = one_of(params.get("usage", "off_session"), ("off_session", "on_session"), param="usage")
        automatic = params.get("automatic_payment_methods")
        if automatic is not None and (not isinstance(automatic, dict) or "enabled" not in automatic):
            raise InvalidRequest("Missing required param: automatic_payment_methods[enabled].",
                                 code="parameter_missing", param="automatic_payment_methods[enabled]")
        for name in ("allowed_payment_method_types", "excluded_payment_method_types"):
            types = params.get(name)
            if types is not None and not isinstance(types, list):
                raise InvalidRequest("Invalid array", param=name)
        allowed = params.get("allowed_payment_method_types")
        if allowed is not None and any(t != "card" for t in allowed):
            raise InvalidRequest("The local stand-in supports card setups only.",
                                 param="allowed_payment_method_types")
        if "card" in (params.get("excluded_payment_method_types") or []):
            raise InvalidRequest("The local stand-in supports card setups only.",
                                 param="excluded_payment_method_types")
        with at_customer(customer_id):
            super().__init__()
        self._seq = time.perf_counter_ns()
        self.customer = customer_id
        self.usage = usage
        self.metadata = as_metadata(params.get("metadata"))
        self.description = params.get("description")
        self.client_secret = f"{self.id}_secret_{ls.random_id(24)}"
        self.payment_method_types = ["card"]
        automatic = automatic if isinstance(automatic, dict) else {"enabled": True}  # on by default, as at Stripe
        self.automatic_payment_methods = {"allow_redirects": automatic.get("allow_redirects", "always"),
                                          "enabled": str(automatic.get("enabled")).lower() == "true"}
        self.payment_method: str | None = None
        self.status = "requires_payment_method"
        self.next_action: dict[str, Any] | None = None
        self.last_setup_error: dict[str, Any] | None = None
        self.cancellation_reason: str | None = None
        self.on_behalf_of = params.get("on_behalf_of")
        if params.get("payment_method") is not None:
            self.payment_method = ls.PaymentMethod._api_retrieve(params["payment_method"]).id
            self.status = "requires_confirmation"

    @classmethod
    def _api_create(cls, **params: Any) -> SetupIntent:
        confirm = str(params.pop("confirm", "false")).lower() == "true"
        method_data = params.pop("payment_method_data", None)
        params.pop("return_url", None)
        intent = cls(**params)
        with at_customer(intent.customer):
            emit("setup_intent.created", intent)
        if confirm:
            intent._confirm(method_id=intent.payment_method, method_data=method_data)
        return intent

    @classmethod
    def _api_update(cls, id: str, **params: Any) -> SetupIntent:
        reject_unknown(params, {"metadata", "description", "payment_method", "customer", "expand"})
        intent = cls._api_retrieve(id)
        if "metadata" in params:
            intent.metadata = merge_metadata(intent.metadata, params["metadata"])
        if "description" in params:
            intent.description = params["description"]
        if "customer" in params:
            intent.customer = retrieve_customer(params["customer"]).id
        if "payment_method" in params:
            intent.payment_method = ls.PaymentMethod._api_retrieve(params["payment_method"]).id
            intent.status = "requires_confirmation"
        return intent

    @classmethod
    def _api_list_all(cls, url: str, **params: Any) -> dict[str, Any]:  # type: ignore[override]
        reject_unknown(params, {"customer", "payment_method", "limit", "starting_after", "ending_before", "expand",
                                "created"})
        rows = [s for s in ls.store.of("setup_intent") if isinstance(s, SetupIntent)]
        for name in ("customer", "payment_method"):
            if params.get(name) is not None:
                rows = [s for s in rows if getattr(s, name) == params[name]]
        rows.sort(key=lambda s: (s.created, s._seq), reverse=True)
        return page(rows, url=url, limit=params.get("limit"), starting_after=params.get("starting_after"),
                    ending_before=params.get("ending_before"), expand=params.get("expand"))

    def _confirm(self, *, method_id: str | None, method_data: Any) -> None:
        """Attach the card (or ask for 3-D Secure); a declined card raises Stripe's card error (402)."""
        from dev.stripe_standin.compat import payment_method_from_data

        if self.status not in ("requires_payment_method", "requires_confirmation"):
            raise InvalidRequest(f"You cannot confirm this SetupIntent because it has a status of {self.status}.",
                                 code="setup_intent_unexpected_state")
        with at_customer(self.customer):
            if method_data is not None:
                method = payment_method_from_data(method_data)
            elif method_id is not None:
                method = ls.PaymentMethod._api_retrieve(method_id)
            else:
                raise InvalidRequest("You cannot confirm this SetupIntent because it's missing a payment method.",
                                     code="setup_intent_unexpected_state")
            self.payment_method = method.id
            self.last_setup_error = None
            if method._attaching_is_declined():
                code, decline_code, message = card_decline(method)
                self.status = "requires_payment_method"
                self.last_setup_error = {"code": code, "decline_code": decline_code, "message": message,
                                         "type": "card_error", "payment_method": method._export()}
                emit("setup_intent.setup_failed", self)
                error = CardError(message, code=code, decline_code=decline_code)
                error.body["error"]["setup_intent"] = self._export()
                raise error
            if method._requires_authentication():
                self.status = "requires_action"
                self.next_action = {"type": "use_stripe_sdk",
                                    "use_stripe_sdk": {"type": "three_d_secure_redirect", "stripe_js": ""}}
                emit("setup_intent.requires_action", self)
                return
            self._succeed(method)

    def _succeed(self, method: Any) -> None:
        self.status = "succeeded"
        self.next_action = None
        if self.customer is not None:
            attach(method.id, retrieve_customer(self.customer))
        emit("setup_intent.succeeded", self)
        for hook in after_setup:
            hook(self)

    def _authenticate(self, success: bool) -> None:
        if self.status != "requires_action":
            raise InvalidRequest(f"This SetupIntent has a status of {self.status}.",
                                 code="setup_intent_unexpected_state")
        with at_customer(self.customer):
            self.next_action = None
            if success:
                self._succeed(ls.PaymentMethod._api_retrieve(self.payment_method))
            else:
                self.status = "requires_payment_method"
                self.last_setup_error = {
                    "code": "setup_intent_authentication_failure", "type": "invalid_request_error",
                    "message": "The latest attempt to set up the payment method has failed because authentication "
                               "failed."}
                emit("setup_intent.setup_failed", self)

    def _cancel(self, reason: str | None) -> None:
        if self.status == "succeeded" or self.status == "canceled":
            raise InvalidRequest(f"You cannot cancel this SetupIntent because it has a status of {self.status}.",
                                 code="setup_intent_unexpected_state")
        self.status = "canceled"
        self.cancellation_reason = reason
        self.next_action = None
        with at_customer(self.customer):
            emit("setup_intent.canceled", self)

    def _fields(self) -> dict[str, Any]:
        return {"id": self.id, "object": "setup_intent", "application": None,
                "automatic_payment_methods": self.automatic_payment_methods,
                "cancellation_reason": self.cancellation_reason, "client_secret": self.client_secret,
                "created": self.created, "customer": self.customer, "description": self.description,
                "flow_directions": None, "last_setup_error": self.last_setup_error, "latest_attempt": None,
                "livemode": False, "mandate": None, "metadata": dict(self.metadata), "next_action": self.next_action,
                "on_behalf_of": self.on_behalf_of, "payment_method": self.payment_method,
                "payment_method_configuration_details": None,
                "payment_method_options": {"card": {"mandate_options": None, "network": None,
                                                    "request_three_d_secure": "automatic"}},
                "payment_method_types": list(self.payment_method_types), "single_use_mandate": None,
                "status": self.status, "usage": self.usage}
