"""Local Stripe stand-in: localstripe plus our compatibility layer plus a Stripe.js shim, on one loopback port.

Dev/test tooling only: the product (`marketplace`) never imports this package; it talks to whatever
STRIPE_API_BASE points at, exactly as it would talk to Stripe.

Run it
------
    python -m dev.stripe_standin --port 8420 \
        --webhook-url http://localhost:3000/api/stripe/webhook --webhook-secret whsec_local_standin

and start the app with

    STRIPE_SECRET_KEY=sk_test_standin STRIPE_PUBLISHABLE_KEY=pk_test_standin \
    STRIPE_WEBHOOK_SECRET=whsec_local_standin STRIPE_API_BASE=http://127.0.0.1:8420

(any `sk_...`/`pk_...` strings work; the webhook secret must be the same on both sides). Tests use the
`stripe_standin` fixture (tests/payments_fixtures.py), which starts it on a free port and points settings at it.

What it adds to localstripe
---------------------------
README.md (next to this file) lists everything the stand-in supports and how it behaves: Billing
(Products, Prices with lookup keys, Customers on test clocks, Subscriptions, Invoices with their PaymentIntents,
prorations, renewals, failed-payment retries), Test Clocks whose advance waits for the app's webhook answers,
SetupIntents, refunds with `reverse_transfer` / `refund_application_fee`, disputes, test cards, dev routes,
webhook delivery (signed, in order per customer, retried) and the state file. Modules: store.py (indexed
store written in the background), delivery.py (events and webhooks), context.py (API version, request ids,
clock time), shapes.py (expand, lists), catalog.py, customers.py, subscriptions.py, invoices.py,
renewals.py, clocks.py, refunds.py, billing_api.py (their routes), and, from before:

- Connect: POST/GET /v1/accounts (charges_enabled, payouts_enabled, details_submitted, requirements,
  capabilities; `controller` {fees, losses, requirement_collection, stripe_dashboard} checked and shown as Stripe
  shows it, the deprecated `type` still accepted and mapped onto it), POST /v1/account_links (a hosted
  onboarding page at /_standin/connect/onboarding/<token> whose buttons complete the account and send
  `account.updated`), POST /v1/accounts/<id>/login_links,
  /v1/transfers (a destination charge transfers its whole amount and collects the application fee).
- Connect money (payouts.py): a connected account's balance is fed by its destination charges (each transfer is
  available at once; pending stays zero) and GET /v1/balance, GET/POST /v1/payouts, GET/POST /v1/payouts/<id>
  and POST /v1/payouts/<id>/cancel honour the `Stripe-Account` header as Stripe does: payouts start pending and
  more than the available balance is refused (`balance_insufficient`). Events about a connected account carry
  `account`. Dev routes (no credentials) do what Stripe does on its own:
    POST /_standin/connect/accounts/<id>/complete   finish onboarding without a browser (sends account.updated)
    POST /_standin/connect/accounts/<id>/payout     an automatic payout of the available balance
                                                    (optional currency, method, created: a past unix time)
    POST /_standin/payouts/<id>/status              {status: in_transit | paid | failed, failure_code?,
                                                    failure_message?}; failing returns the amount to the balance
                                                    with Stripe's message ("The bank account has been closed.")
- PaymentIntents keep and return application_fee_amount, transfer_data[destination], on_behalf_of,
  automatic_payment_methods, allowed_payment_method_types, description, receipt_email, setup_future_usage;
  `payment_method_types` is refused (`parameter_unknown`), as the pinned API version refuses it.
- Card declines at charge time, as Stripe answers them: 4242424242424242 succeeds, 4000000000000002
  "Your card was declined." (generic_decline), 4000000000009995 "Your card has insufficient funds."
  (insufficient_funds); also ...9987 lost, ...9979 stolen, ...0069 expired, ...0127 CVC, ...0119 processing;
  3-D Secure cards (4000002500003155...) ask for authentication. localstripe alone declined ...0002 and ...9995
  only when attaching a card to a customer, so confirming a PaymentIntent with them *succeeded*.
- Idempotency-Key replay (same key + same body -> same answer; different body -> idempotency_error).
- POST /v1/payment_intents/<id>/confirm and GET /v1/payment_intents/<id> with the publishable key + client
  secret (what Stripe.js does), and POST /v1/payment_methods with the publishable key.
- aiohttp: localstripe registers plain-function handlers, deprecated in aiohttp 3.x (warning today, an error
  in a future release); every one is re-registered wrapped as a coroutine. It runs with the pinned aiohttp.
- localstripe pickles its whole store to a fixed /tmp file on every write; here the store stays in memory
  (or in --state-file, written in the background).
- POST /_standin/reset forgets everything (tests), GET /_standin/health answers when ready.

How the browser gets Stripe.js (for the checkout page)
------------------------------------------------------
The stand-in serves a Stripe.js shim at `<STRIPE_API_BASE>/js.stripe.com/v3/` (also at
`/js.stripe.com/endive/stripe.js`; its `Stripe.version` is "endive", what @stripe/stripe-js 10.2.1 expects, so
the loader logs no version warning); real Stripe serves
`https://js.stripe.com/endive/stripe.js` (payments.REAL_STRIPE_JS_URL). The app says which one in
`GET /api/stripe/config`:

    {"publishableKey": "pk_test_...", "stripeJsUrl": "http://127.0.0.1:8420/js.stripe.com/v3/"}

(`marketplace.services.purchases.browser_config()` gives the same to Reflex state code.) A page:

1. Injects the script and the key: add a classic `<script src="{stripeJsUrl}">` (not a module, not async
   before it runs) and wait for its `load` event (or for `window.Stripe` to exist); then
   `const stripe = await loadStripe(publishableKey)` using `import {loadStripe} from '@stripe/stripe-js/pure'`.
   `loadStripe` returns `window.Stripe` when it is already defined, so the same code serves real Stripe
   and the stand-in. (The default `@stripe/stripe-js` entry starts loading js.stripe.com as soon as it is
   imported, so use `/pure`, or make sure the script tag precedes the app bundle.)
2. Creates the intent: `POST /api/purchase/create-payment-intent {agentId, customerEmail, customerName,
   isGuestCheckout: false}` -> `{clientSecret, paymentIntentId, currency, displayAmount, exchangeRate,
   supportedPaymentMethods, ...}` (401 signed out, 404 agent not live, 409 already owned, 403 own agent,
   400 free agent -> use `POST /api/purchase/claim-free {agentId}` instead).
3. Mounts and confirms: `<Elements stripe={stripe} options={{clientSecret, appearance}}>` +
   `<PaymentElement options={{layout: 'accordion'}}/>` (or `stripe.elements({clientSecret, appearance})
   .create('payment', {layout: 'accordion'}).mount(node)`), then
   `const {paymentIntent, error} = await stripe.confirmPayment({elements, redirect: 'if_required',
   confirmParams: {return_url: origin + '/purchase-success'}})`. `error.message` is the text to show
   ("Your card was declined."); success means `paymentIntent.status === 'succeeded'`.
4. Records the purchase: `POST /api/purchase/complete {paymentIntentId: paymentIntent.id, agentId,
   agentName, userId, customerEmail, customerName, isGuestCheckout: false}`; the server retrieves the intent
   from Stripe and checks it, and the webhook records the same purchase if the page never gets that far.

A subscription's first payment works the same way: its client secret is the first invoice's
`confirmation_secret.client_secret` (see README.md, "Billing"). Saving a card (the update-card page) uses a
SetupIntent's client secret with `stripe.confirmSetup({elements, redirect: 'if_required', confirmParams})`,
which resolves `{setupIntent}` or `{error}`.

The shim implements `Stripe(pk)` with `elements({clientSecret, appearance})`, `elements.create('payment' |
'card')` (a card number / expiry / CVC form mounted into the node, with `on/off/once('ready' | 'change' |
'focus' | 'blur')`, `update`, `destroy`), `elements.submit()`, `confirmPayment`, `confirmCardPayment`,
`confirmSetup`, `confirmCardSetup`, `retrievePaymentIntent`, `retrieveSetupIntent`, `handleNextAction`,
`createPaymentMethod`, `createToken`; enough for
@stripe/react-stripe-js's `Elements`/`PaymentElement`. Its inputs are ordinary page inputs (no iframe):
test cards only.
"""
