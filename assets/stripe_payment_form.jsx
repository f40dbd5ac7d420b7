/*
 * The Stripe Payment Element with its submit button, wrapped for Reflex by
 * marketplace/components/stripe_payment.py.
 *
 * Stripe.js comes from the URL the server names (real Stripe, or the local stand-in): it is loaded as a classic
 * <script> first, and only then is `loadStripe` from `@stripe/stripe-js/pure` called, which reuses
 * `window.Stripe` (the default `@stripe/stripe-js` entry would fetch js.stripe.com as soon as it is imported).
 *
 * No money and no business decisions here: the button label and the error above it come from the server, and
 * the outcome of `confirmPayment` is reported through the callbacks; the server then verifies the PaymentIntent
 * itself. The error hides as soon as a new attempt starts (the server clears it too); when it shows, it takes the
 * keyboard's focus, so a screen reader reads it and the next Tab goes on from it (not from the top of the page).
 */
import React, { useEffect, useMemo, useRef, useState } from "react";
import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { loadStripe } from "@stripe/stripe-js/pure";
import { Button, Callout, Flex, Spinner, Text } from "@radix-ui/themes";

const PAYMENT_ELEMENT_OPTIONS = { layout: "accordion" };
const DEFAULT_APPEARANCE = {
  theme: "stripe",
  variables: { colorPrimary: "#6e56cf", borderRadius: "8px" },
};

const scriptLoads = new Map();
const stripeLoads = new Map();

/* One classic <script> per URL; resolves once window.Stripe exists. A failed load can be retried. */
function loadStripeScript(url) {
  if (window.Stripe) {
    return Promise.resolve();
  }
  if (!scriptLoads.has(url)) {
    const load = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = () => (window.Stripe ? resolve() : reject(new Error("Stripe.js did not start.")));
      script.onerror = () => {
        script.remove();
        reject(new Error("The secure payment form could not be loaded."));
      };
      document.head.appendChild(script);
    });
    scriptLoads.set(url, load);
    load.catch(() => scriptLoads.delete(url));
  }
  return scriptLoads.get(url);
}

/* One Stripe instance per (script URL, publishable key), shared by every mount of the form. */
function getStripe(url, publishableKey) {
  const id = `${url}|${publishableKey}`;
  if (!stripeLoads.has(id)) {
    const load = loadStripeScript(url).then(() => loadStripe(publishableKey));
    stripeLoads.set(id, load);
    load.catch(() => stripeLoads.delete(id));
  }
  return stripeLoads.get(id);
}

function PaymentForm({
  buttonLabel, disabled, errorMessage, returnUrl, intentType, onStart, onSucceeded, onIncomplete, onError, className,
}) {
  const stripe = useStripe();
  const elements = useElements();
  const [ready, setReady] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const guard = useRef(false);
  const errorBox = useRef(null);
  const showError = Boolean(errorMessage) && !submitting;

  // The refusal is brought into view (it sat at the window's bottom edge at 1280x800) and takes the focus, so a
  // screen reader reads it.
  useEffect(() => {
    if (showError && errorBox.current) {
      errorBox.current.scrollIntoView({ block: "center" });
      errorBox.current.focus({ preventScroll: true });
    }
  }, [showError, errorMessage]);

  // The server's refusal ends the attempt, also one Stripe reported as succeeded (e.g. a second payment that
  // was refunded): the form is usable again and shows why.
  useEffect(() => {
    if (errorMessage) {
      guard.current = false;
      setSubmitting(false);
    }
  }, [errorMessage]);

  // `code`: Stripe's error code, so the server can say what to do (e.g. a failed 3-D Secure check).
  const fail = (report, value, code) => {
    guard.current = false;
    setSubmitting(false);
    if (report) {
      report(value, code || "");
    }
  };

  const submit = async (event) => {
    event.preventDefault();
    if (!stripe || !elements || !ready || disabled || guard.current) {
      return;
    }
    guard.current = true;
    setSubmitting(true);
    if (onStart) {
      onStart();
    }
    // "setup": a SetupIntent saves a card (the update-card page); otherwise a PaymentIntent is paid.
    const setup = intentType === "setup";
    const confirmParams = {
      return_url: new URL(returnUrl || "/purchase-success", window.location.origin).toString(),
    };
    let result;
    try {
      result = setup
        ? await stripe.confirmSetup({ elements, redirect: "if_required", confirmParams })
        : await stripe.confirmPayment({ elements, redirect: "if_required", confirmParams });
    } catch (error) {
      fail(onError, (error && error.message) || "", (error && error.code) || "");
      return;
    }
    const { error } = result || {};
    const intent = result && (setup ? result.setupIntent : result.paymentIntent);
    if (error) {
      fail(onError, error.message || "", error.code || "");
    } else if (intent && intent.status === "succeeded") {
      // Stays disabled: the server records what was paid (or saved) and moves on.
      if (onSucceeded) {
        onSucceeded(intent.id);
      }
    } else {
      fail(onIncomplete, (intent && intent.status) || "");
    }
  };

  return (
    <form onSubmit={submit} id="payment-form" className={className} style={{ width: "100%" }}>
      <Flex direction="column" gap="4">
        <PaymentElement
          id="payment-element"
          options={PAYMENT_ELEMENT_OPTIONS}
          onReady={() => setReady(true)}
        />
        {showError ? (
          <Callout.Root color="red" role="alert" id="payment-error" size="1" ref={errorBox} tabIndex={-1}>
            <Callout.Text>
              <Text weight="bold">Payment Error</Text>
              {" "}
              <span id="payment-error-message">{errorMessage}</span>
            </Callout.Text>
          </Callout.Root>
        ) : null}
        <Button
          type="submit"
          size="3"
          id="submit-payment"
          disabled={!stripe || !elements || !ready || disabled || submitting}
          style={{ width: "100%" }}
        >
          {buttonLabel}
        </Button>
      </Flex>
    </form>
  );
}

export function StripePaymentForm({
  stripeJsUrl,
  publishableKey,
  clientSecret,
  appearance,
  returnUrl,
  intentType,
  buttonLabel,
  disabled,
  errorMessage,
  onStart,
  onSucceeded,
  onIncomplete,
  onError,
  onLoadError,
  className,
}) {
  const [stripe, setStripe] = useState(null);
  const reportLoadError = useRef(onLoadError);
  reportLoadError.current = onLoadError;

  useEffect(() => {
    let live = true;
    setStripe(null);
    if (!stripeJsUrl || !publishableKey) {
      return undefined;
    }
    getStripe(stripeJsUrl, publishableKey).then(
      (instance) => live && setStripe(instance),
      (error) => live && reportLoadError.current && reportLoadError.current((error && error.message) || ""),
    );
    return () => {
      live = false;
    };
  }, [stripeJsUrl, publishableKey]);

  const appearanceKey = JSON.stringify(appearance || null);
  const options = useMemo(
    () => ({ clientSecret, appearance: appearance || DEFAULT_APPEARANCE }),
    // Reflex passes a fresh object on every render; only a changed value should reach Stripe.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [clientSecret, appearanceKey],
  );

  if (!stripe || !clientSecret) {
    return (
      <Flex align="center" gap="2" id="payment-form-loading" py="4" className={className}>
        <Spinner size="2" />
        <Text size="2" color="gray">Loading secure payment form...</Text>
      </Flex>
    );
  }
  return (
    <Elements stripe={stripe} options={options} key={clientSecret}>
      <PaymentForm
        buttonLabel={buttonLabel}
        disabled={disabled}
        errorMessage={errorMessage}
        returnUrl={returnUrl}
        intentType={intentType}
        onStart={onStart}
        onSucceeded={onSucceeded}
        onIncomplete={onIncomplete}
        onError={onError}
        className={className}
      />
    </Elements>
  );
}
