"""HTTP routes of the stand-in's Billing, refunds, disputes, SetupIntents and test clocks, and their dev routes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from localstripe import resources as ls
from localstripe import server as ls_server
from localstripe.errors import UserError

from dev.stripe_standin import clocks, compat, coupons, customers, invoices, refunds, subscriptions
from dev.stripe_standin.catalog import Price, Product
from dev.stripe_standin.delivery import deliveries, emit
from dev.stripe_standin.shapes import as_bool, as_int, merge_metadata, page, reject_unknown

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def own_auth(handler: Handler) -> Handler:
    """A route that checks its own credentials (publishable key + client secret, or none for dev routes)."""
    handler.standin_own_auth = True  # type: ignore[attr-defined]
    return handler


def json(data: Any, status: int = 200) -> web.Response:
    return ls_server.json_response(data, status=status)


async def params(request: web.Request, *, keep_key: bool = False) -> dict[str, Any]:
    """The request's parameters: form or JSON body for writes, query string for reads."""
    if request.method in ("GET", "HEAD"):
        return dict(ls_server.unflatten_data(request.query))
    data = await ls_server.get_post_data(request, remove_auth=not keep_key) or {}
    data = dict(data)
    data.update(ls_server.unflatten_data(request.query) or {})
    return data


def _id(request: web.Request) -> str:
    return request.match_info["id"]


def authorize_client_secret(request: web.Request, data: dict[str, Any], secret: str) -> None:
    """A secret key, or (as Stripe.js sends) a publishable key with the object's client secret."""
    if ls_server.get_api_key(request):
        data.pop("client_secret", None)
        data.pop("key", None)
        return
    key = data.pop("key", None)
    if not (isinstance(key, str) and key.startswith("pk_")):
        raise UserError(401, "Unauthorized")
    if data.pop("client_secret", None) != secret:
        raise compat.InvalidRequest("The client_secret provided does not match the client_secret associated with "
                                    "this object.", code="resource_missing", param="client_secret")


def _list_params(data: dict[str, Any]) -> dict[str, Any]:
    return {k: data.get(k) for k in ("limit", "starting_after", "ending_before", "expand")}


def page_of(rows: list[Any], data: dict[str, Any], url: str) -> dict[str, Any]:
    """A Stripe list answer of these rows (already newest first), paged by the request's cursors."""
    return page(rows, url=url, **_list_params(data))


# --- products and prices -------------------------------------------------------------------------------------


async def create_product(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(Product._api_create(**data)._export(expand=expand))


async def list_products(request: web.Request) -> web.Response:
    return json(Product._api_list_all("/v1/products", **await params(request)))


async def retrieve_product(request: web.Request) -> web.Response:
    data = await params(request)
    product = ls.store.get(f"product:{_id(request)}")
    if not isinstance(product, Product):
        raise UserError(404, f"No such product: '{_id(request)}'", {"code": "resource_missing", "param": "id"})
    return json(product._export(expand=data.get("expand")))


async def update_product(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(Product._api_update(_id(request), **data)._export(expand=expand))


async def delete_product(request: web.Request) -> web.Response:
    return json(Product._api_delete(_id(request))._export())


async def create_price(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(Price._api_create(**data)._export(expand=expand))


async def list_prices(request: web.Request) -> web.Response:
    return json(Price._api_list_all("/v1/prices", **await params(request)))


async def retrieve_price(request: web.Request) -> web.Response:
    data = await params(request)
    return json(Price._api_retrieve(_id(request))._export(expand=data.get("expand")))


async def update_price(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(Price._api_update(_id(request), **data)._export(expand=expand))


# --- customers and payment methods -----------------------------------------------------------------------------


async def create_customer(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(customers.Customer._api_create(**data)._export(expand=expand))


async def list_customers(request: web.Request) -> web.Response:
    return json(customers.Customer._api_list_all("/v1/customers", **await params(request)))


async def retrieve_customer(request: web.Request) -> web.Response:
    data = await params(request)
    return json(customers.retrieve_customer(_id(request), param="id")._export(expand=data.get("expand")))


async def update_customer(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(customers.Customer._api_update(_id(request), **data)._export(expand=expand))


async def delete_customer(request: web.Request) -> web.Response:
    return json(customers.Customer._api_delete(_id(request))._export())


async def list_customer_methods(request: web.Request) -> web.Response:
    data = await params(request)
    return json(customers.list_methods(_id(request), data, f"/v1/customers/{_id(request)}/payment_methods"))


async def list_payment_methods(request: web.Request) -> web.Response:
    data = await params(request)
    if data.get("customer") is None:
        raise compat.InvalidRequest("Missing required param: customer.", code="parameter_missing", param="customer")
    return json(customers.list_methods(data["customer"], data, "/v1/payment_methods"))


async def attach_payment_method(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    reject_unknown(data, {"customer"})
    customer = customers.retrieve_customer(data.get("customer"))
    with customers.at_customer(customer.id):
        return json(customers.attach(_id(request), customer)._export(expand=expand))


async def detach_payment_method(request: web.Request) -> web.Response:
    return json(customers.detach(_id(request))._export())


# --- SetupIntents -------------------------------------------------------------------------------------------------


def _setup_intent(request: web.Request) -> customers.SetupIntent:
    intent = ls.store.get(f"setup_intent:{_id(request)}")
    if not isinstance(intent, customers.SetupIntent):
        raise UserError(404, f"No such setupintent: '{_id(request)}'", {"code": "resource_missing", "param": "id"})
    return intent


async def create_setup_intent(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(customers.SetupIntent._api_create(**data)._export(expand=expand))


async def list_setup_intents(request: web.Request) -> web.Response:
    return json(customers.SetupIntent._api_list_all("/v1/setup_intents", **await params(request)))


@own_auth
async def retrieve_setup_intent(request: web.Request) -> web.Response:
    data = await params(request)
    intent = _setup_intent(request)
    authorize_client_secret(request, data, intent.client_secret)
    return json(intent._export(expand=data.get("expand")))


async def update_setup_intent(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(customers.SetupIntent._api_update(_id(request), **data)._export(expand=expand))


BROWSER_EXTRAS = ("payment_user_agent", "referrer", "use_stripe_sdk", "expected_payment_method_type", "return_url",
                  "mandate_data", "time_on_page", "guid", "muid", "sid")


@own_auth
async def confirm_setup_intent(request: web.Request) -> web.Response:
    """Confirm with the secret key, or from Stripe.js (publishable key + client secret + typed card)."""
    data = await params(request, keep_key=True)
    intent = _setup_intent(request)
    authorize_client_secret(request, data, intent.client_secret)
    for name in BROWSER_EXTRAS:
        data.pop(name, None)
    expand = data.pop("expand", None)
    reject_unknown(data, {"payment_method", "payment_method_data", "payment_method_options"})
    intent._confirm(method_id=data.get("payment_method") or intent.payment_method,
                    method_data=data.get("payment_method_data"))
    return json(intent._export(expand=expand))


@own_auth
async def authenticate_setup_intent(request: web.Request) -> web.Response:
    """The stand-in's 3-D Secure answer for a SetupIntent (what Stripe.js's challenge page decides)."""
    data = await params(request, keep_key=True)
    intent = _setup_intent(request)
    authorize_client_secret(request, data, intent.client_secret)
    intent._authenticate(str(data.get("success", "false")).lower() == "true")
    return json(intent._export())


@own_auth
async def cancel_setup_intent(request: web.Request) -> web.Response:
    data = await params(request, keep_key=True)
    intent = _setup_intent(request)
    authorize_client_secret(request, data, intent.client_secret)
    intent._cancel(data.get("cancellation_reason"))
    return json(intent._export())


# --- subscriptions ---------------------------------------------------------------------------------------------------


async def create_subscription(request: web.Request) -> web.Response:
    data = await params(request)
    return json(subscriptions.create_subscription(data)._export(expand=data.get("expand")))


async def list_subscriptions(request: web.Request) -> web.Response:
    data = await params(request)
    return json(page_of(subscriptions.list_subscriptions(data), data, "/v1/subscriptions"))


async def retrieve_subscription(request: web.Request) -> web.Response:
    data = await params(request)
    return json(subscriptions.retrieve_subscription(_id(request))._export(expand=data.get("expand")))


async def update_subscription(request: web.Request) -> web.Response:
    data = await params(request)
    sub = subscriptions.retrieve_subscription(_id(request))
    return json(subscriptions.update_subscription(sub, data)._export(expand=data.get("expand")))


async def cancel_subscription(request: web.Request) -> web.Response:
    data = await params(request)
    sub = subscriptions.retrieve_subscription(_id(request))
    return json(subscriptions.cancel_subscription(sub, data)._export(expand=data.get("expand")))


async def resume_subscription(request: web.Request) -> web.Response:
    subscriptions.retrieve_subscription(_id(request))
    raise compat.InvalidRequest("Only a paused subscription can be resumed; to undo a cancellation at the period end "
                                "update it with cancel_at_period_end=false.", code="subscription_not_paused")


async def list_subscription_items(request: web.Request) -> web.Response:
    data = await params(request)
    sub = subscriptions.retrieve_subscription(data.get("subscription"))
    return json(page(sub._item_objects(), url="/v1/subscription_items", **_list_params(data)))


async def retrieve_subscription_item(request: web.Request) -> web.Response:
    item = ls.store.get(f"subscription_item:{_id(request)}")
    if not isinstance(item, subscriptions.SubscriptionItem):
        raise UserError(404, f"No such subscription item: '{_id(request)}'", {"code": "resource_missing"})
    return json(item._export())


# --- coupons -------------------------------------------------------------------------------------------------------


async def create_coupon(request: web.Request) -> web.Response:
    data = await params(request)
    return json(coupons.create_coupon(data)._export(expand=data.get("expand")))


async def retrieve_coupon(request: web.Request) -> web.Response:
    data = await params(request)
    return json(coupons.retrieve_coupon(_id(request))._export(expand=data.get("expand")))


# --- invoices ------------------------------------------------------------------------------------------------------


async def list_invoices(request: web.Request) -> web.Response:
    data = await params(request)
    return json(page_of(invoices.list_invoices(data), data, "/v1/invoices"))


async def retrieve_invoice(request: web.Request) -> web.Response:
    data = await params(request)
    return json(invoices.retrieve_invoice(_id(request))._export(expand=data.get("expand")))


async def update_invoice(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    reject_unknown(data, {"metadata", "description", "auto_advance"})
    invoice = invoices.retrieve_invoice(_id(request))
    if "metadata" in data:
        invoice.metadata = merge_metadata(invoice.metadata, data["metadata"])
    if "description" in data:
        invoice.description = data["description"] or None
    if "auto_advance" in data:
        invoice.auto_advance = as_bool(data["auto_advance"], param="auto_advance")
    with customers.at_customer(invoice.customer):
        emit("invoice.updated", invoice)
    return json(invoice._export(expand=expand))


async def finalize_invoice(request: web.Request) -> web.Response:
    data = await params(request)
    invoice = invoices.retrieve_invoice(_id(request))
    if invoice.status != "draft":
        raise compat.InvalidRequest("This invoice is already finalized, you can't re-finalize a non-draft invoice.",
                                    code="invoice_not_editable")
    with customers.at_customer(invoice.customer):
        invoice._finalize()
    return json(invoice._export(expand=data.get("expand")))


async def pay_invoice(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(invoices.pay_invoice(invoices.retrieve_invoice(_id(request)), data)._export(expand=expand))


async def void_invoice(request: web.Request) -> web.Response:
    invoice = invoices.retrieve_invoice(_id(request))
    with customers.at_customer(invoice.customer):
        invoice._void()
    return json(invoice._export())


async def mark_uncollectible(request: web.Request) -> web.Response:
    invoice = invoices.retrieve_invoice(_id(request))
    with customers.at_customer(invoice.customer):
        invoice._mark_uncollectible()
    return json(invoice._export())


async def invoice_lines(request: web.Request) -> web.Response:
    await params(request)
    invoice = invoices.retrieve_invoice(_id(request))
    lines = invoice._export()["lines"]["data"]
    return json({"object": "list", "url": f"/v1/invoices/{invoice.id}/lines", "has_more": False, "data": lines})


async def preview_invoice(request: web.Request) -> web.Response:
    data = await params(request)
    return json(subscriptions.preview_invoice(data)._export(expand=data.get("expand")))


async def list_invoice_payments(request: web.Request) -> web.Response:
    data = await params(request)
    return json(page_of(invoices.list_invoice_payments(data), data, "/v1/invoice_payments"))


async def retrieve_invoice_payment(request: web.Request) -> web.Response:
    data = await params(request)
    payment = ls.store.get(f"invoice_payment:{_id(request)}")
    if not isinstance(payment, invoices.InvoicePayment):
        raise UserError(404, f"No such invoice payment: '{_id(request)}'", {"code": "resource_missing"})
    return json(payment._export(expand=data.get("expand")))


async def list_invoice_items(request: web.Request) -> web.Response:
    data = await params(request)
    reject_unknown(data, {"customer", "invoice", "pending", "limit", "starting_after", "ending_before", "expand",
                          "created"})
    rows = [i for i in ls.store.of("invoiceitem") if isinstance(i, invoices.InvoiceItem)]
    for name in ("customer", "invoice"):
        if data.get(name) is not None:
            rows = [i for i in rows if getattr(i, name) == data[name]]
    if str(data.get("pending", "")).lower() == "true":
        rows = [i for i in rows if i.invoice is None]
    rows.sort(key=lambda i: i._seq, reverse=True)
    return json(page_of(rows, data, "/v1/invoiceitems"))


async def retrieve_invoice_item(request: web.Request) -> web.Response:
    item = ls.store.get(f"invoiceitem:{_id(request)}")
    if not isinstance(item, invoices.InvoiceItem):
        raise UserError(404, f"No such invoiceitem: '{_id(request)}'", {"code": "resource_missing"})
    return json(item._export())


# --- test clocks --------------------------------------------------------------------------------------------------


async def create_clock(request: web.Request) -> web.Response:
    return json(clocks.create(await params(request))._export())


async def list_clocks(request: web.Request) -> web.Response:
    return json(clocks.list_clocks(await params(request)))


async def retrieve_clock(request: web.Request) -> web.Response:
    return json(clocks.retrieve(_id(request))._export())


async def delete_clock(request: web.Request) -> web.Response:
    return json(clocks.delete(_id(request)))


async def advance_clock(request: web.Request) -> web.Response:
    return json(clocks.clocks.advance(_id(request), await params(request))._export())


# --- refunds, disputes, application fees -------------------------------------------------------------------------


async def create_refund(request: web.Request) -> web.Response:
    data = await params(request)
    expand = data.pop("expand", None)
    return json(refunds.refund(data)._export(expand=expand))


async def list_refunds(request: web.Request) -> web.Response:
    data = await params(request)
    return json(page_of(refunds.list_refunds(data), data, "/v1/refunds"))


async def list_disputes(request: web.Request) -> web.Response:
    data = await params(request)
    return json(page_of(refunds.list_disputes(data), data, "/v1/disputes"))


def _dispute(request: web.Request) -> refunds.Dispute:
    dispute = ls.store.get(f"dispute:{_id(request)}")
    if not isinstance(dispute, refunds.Dispute):
        raise UserError(404, f"No such dispute: '{_id(request)}'", {"code": "resource_missing", "param": "id"})
    return dispute


async def retrieve_dispute(request: web.Request) -> web.Response:
    data = await params(request)
    return json(_dispute(request)._export(expand=data.get("expand")))


async def update_dispute(request: web.Request) -> web.Response:
    data = await params(request)
    dispute = _dispute(request)
    dispute._submit(data)
    return json(dispute._export(expand=data.get("expand")))


async def close_dispute(request: web.Request) -> web.Response:
    dispute = _dispute(request)
    dispute._close()
    return json(dispute._export())


async def list_application_fees(request: web.Request) -> web.Response:
    data = await params(request)
    rows = [f for f in ls.store.of("application_fee") if isinstance(f, compat.ApplicationFee)]
    if data.get("charge") is not None:
        rows = [f for f in rows if f.charge == data["charge"]]
    rows.sort(key=lambda f: f.created, reverse=True)
    return json(page(rows, url="/v1/application_fees", **_list_params(data)))


async def retrieve_application_fee(request: web.Request) -> web.Response:
    fee = ls.store.get(f"application_fee:{_id(request)}")
    if fee is None:
        raise UserError(404, f"No such application fee: '{_id(request)}'", {"code": "resource_missing"})
    return json(fee._export())


async def list_events(request: web.Request) -> web.Response:
    """Newest first, as Stripe lists them; `type` may end with `.*`."""
    data = await params(request)
    reject_unknown(data, {"type", "types", "created", "limit", "starting_after", "ending_before",
                          "delivery_success"})
    rows = [e for e in ls.store.of("event")]
    wanted = data.get("type")
    if wanted is not None:
        rows = [e for e in rows if e.type == wanted or (wanted.endswith(".*") and e.type.startswith(wanted[:-1]))]
    if data.get("types") is not None:
        rows = [e for e in rows if e.type in set(data["types"])]
    created = data.get("created")
    if isinstance(created, dict):
        for op, test in (("gt", lambda a, b: a > b), ("gte", lambda a, b: a >= b), ("lt", lambda a, b: a < b),
                         ("lte", lambda a, b: a <= b)):
            if created.get(op) is not None:
                bound = as_int(created[op], param=f"created[{op}]")
                rows = [e for e in rows if test(e.created, bound)]
    rows.reverse()
    return json(page(rows, url="/v1/events", **_list_params(data)))


# --- dev routes (no credentials; loopback only): what Stripe's dashboard or Stripe itself would do ---------------


@own_auth
async def dashboard_refund(request: web.Request) -> web.Response:
    """A refund made "in the dashboard": the same refund and events as the API's."""
    return json(refunds.refund(await params(request))._export())


@own_auth
async def open_dispute(request: web.Request) -> web.Response:
    return json(refunds.open_dispute(await params(request))._export())


@own_auth
async def decline_later(request: web.Request) -> web.Response:
    """`{"decline_code": "insufficient_funds"}`: the saved card's later charges fail; `null` undoes it."""
    data = await params(request)
    reject_unknown(data, {"decline_code"})
    method = ls.store.get(f"payment_method:{_id(request)}")
    if method is None:
        raise UserError(404, f"No such PaymentMethod: '{_id(request)}'", {"code": "resource_missing"})
    compat.decline_later(method, data.get("decline_code") or None)
    return json(method._export())


@own_auth
async def named_clock(request: web.Request) -> web.Response:
    """Find (or create) the test clock with this name, e.g. the demo's one clock."""
    return json(clocks.named(await params(request))._export())


@own_auth
async def tick(_request: web.Request) -> web.Response:
    """Do now what has fallen due on the wall clock (renewals of customers without a test clock)."""
    return json({"steps": clocks.clocks.run_wall_clock()})


@own_auth
async def drain(request: web.Request) -> web.Response:
    """Wait (up to `timeout` seconds, default 10) until every queued webhook has had its first delivery."""
    data = await params(request)
    timeout = float(data.get("timeout") or 10)
    done = await deliveries.drain(timeout)
    return json({"drained": done, **deliveries.stats()}, status=200 if done else 504)


ROUTES: list[tuple[str, str, Handler]] = [
    ("POST", "/v1/products", create_product),
    ("GET", "/v1/products", list_products),
    ("GET", "/v1/products/{id}", retrieve_product),
    ("POST", "/v1/products/{id}", update_product),
    ("DELETE", "/v1/products/{id}", delete_product),
    ("POST", "/v1/prices", create_price),
    ("GET", "/v1/prices", list_prices),
    ("GET", "/v1/prices/{id}", retrieve_price),
    ("POST", "/v1/prices/{id}", update_price),
    ("POST", "/v1/customers", create_customer),
    ("GET", "/v1/customers", list_customers),
    ("GET", "/v1/customers/{id}", retrieve_customer),
    ("POST", "/v1/customers/{id}", update_customer),
    ("DELETE", "/v1/customers/{id}", delete_customer),
    ("GET", "/v1/customers/{id}/payment_methods", list_customer_methods),
    ("GET", "/v1/payment_methods", list_payment_methods),
    ("POST", "/v1/payment_methods/{id}/attach", attach_payment_method),
    ("POST", "/v1/payment_methods/{id}/detach", detach_payment_method),
    ("POST", "/v1/setup_intents", create_setup_intent),
    ("GET", "/v1/setup_intents", list_setup_intents),
    ("GET", "/v1/setup_intents/{id}", retrieve_setup_intent),
    ("POST", "/v1/setup_intents/{id}", update_setup_intent),
    ("POST", "/v1/setup_intents/{id}/confirm", confirm_setup_intent),
    ("POST", "/v1/setup_intents/{id}/cancel", cancel_setup_intent),
    ("POST", "/v1/setup_intents/{id}/_authenticate", authenticate_setup_intent),
    ("POST", "/v1/subscriptions", create_subscription),
    ("GET", "/v1/subscriptions", list_subscriptions),
    ("GET", "/v1/subscriptions/{id}", retrieve_subscription),
    ("POST", "/v1/subscriptions/{id}", update_subscription),
    ("DELETE", "/v1/subscriptions/{id}", cancel_subscription),
    ("POST", "/v1/subscriptions/{id}/resume", resume_subscription),
    ("GET", "/v1/subscription_items", list_subscription_items),
    ("GET", "/v1/subscription_items/{id}", retrieve_subscription_item),
    ("POST", "/v1/coupons", create_coupon),
    ("GET", "/v1/coupons/{id}", retrieve_coupon),
    ("POST", "/v1/invoices/create_preview", preview_invoice),
    ("GET", "/v1/invoices", list_invoices),
    ("GET", "/v1/invoices/{id}", retrieve_invoice),
    ("POST", "/v1/invoices/{id}", update_invoice),
    ("POST", "/v1/invoices/{id}/finalize", finalize_invoice),
    ("POST", "/v1/invoices/{id}/pay", pay_invoice),
    ("POST", "/v1/invoices/{id}/void", void_invoice),
    ("POST", "/v1/invoices/{id}/mark_uncollectible", mark_uncollectible),
    ("GET", "/v1/invoices/{id}/lines", invoice_lines),
    ("GET", "/v1/invoice_payments", list_invoice_payments),
    ("GET", "/v1/invoice_payments/{id}", retrieve_invoice_payment),
    ("GET", "/v1/invoiceitems", list_invoice_items),
    ("GET", "/v1/invoiceitems/{id}", retrieve_invoice_item),
    ("POST", "/v1/test_helpers/test_clocks", create_clock),
    ("GET", "/v1/test_helpers/test_clocks", list_clocks),
    ("GET", "/v1/test_helpers/test_clocks/{id}", retrieve_clock),
    ("DELETE", "/v1/test_helpers/test_clocks/{id}", delete_clock),
    ("POST", "/v1/test_helpers/test_clocks/{id}/advance", advance_clock),
    ("POST", "/v1/refunds", create_refund),
    ("GET", "/v1/refunds", list_refunds),
    ("GET", "/v1/disputes", list_disputes),
    ("GET", "/v1/disputes/{id}", retrieve_dispute),
    ("POST", "/v1/disputes/{id}", update_dispute),
    ("POST", "/v1/disputes/{id}/close", close_dispute),
    ("GET", "/v1/application_fees", list_application_fees),
    ("GET", "/v1/application_fees/{id}", retrieve_application_fee),
    ("GET", "/v1/events", list_events),
    ("POST", "/_standin/refund", dashboard_refund),
    ("POST", "/_standin/disputes", open_dispute),
    ("POST", "/_standin/payment_methods/{id}/decline_later", decline_later),
    ("POST", "/_standin/test_clocks", named_clock),
    ("POST", "/_standin/tick", tick),
    ("POST", "/_standin/webhooks/drain", drain),
]
# localstripe routes of the 2017-era Billing model, which these replace (answering 404 is closer to today's
# Stripe than answering with plans and old invoices).
RETIRED_PREFIXES = ("/v1/plans", "/v1/customers/{id}/subscriptions", "/v1/customers/{id}/tax_ids",
                    "/v1/invoices/upcoming", "/v1/invoiceitems", "/v1/subscription_items", "/v1/coupons",
                    "/v1/tax_rates", "/v1/invoices", "/v1/subscriptions")
