/*
 * Stripe.js stand-in for local runs and tests (served by `python -m dev.stripe_standin` at /js.stripe.com/v3/
 * and at /js.stripe.com/endive/stripe.js; `Stripe.version` says "endive", the release @stripe/stripe-js 10.2.1
 * expects, so its loader does not warn about a version mismatch).
 *
 * Load it with a classic <script src="http://127.0.0.1:8420/js.stripe.com/v3/"> before `loadStripe` runs:
 * `loadStripe` (from @stripe/stripe-js) uses `window.Stripe` when it is already defined. It provides the part
 * of Stripe.js the checkout uses: Stripe(pk).elements({clientSecret, appearance}),
 * elements.create('payment', {layout: 'accordion'}) -> a plain card form (number, expiry, CVC) mounted into
 * a DOM node, and stripe.confirmPayment({elements, redirect, confirmParams}) which confirms the
 * PaymentIntent against the stand-in and resolves {paymentIntent} or {error: {type, code, message, ...}}
 * like Stripe.js does. The same form saves a card: stripe.confirmSetup({elements, redirect, confirmParams})
 * confirms a SetupIntent (clientSecret `seti_..._secret_...`) and resolves {setupIntent} or {error}. A
 * subscription's first payment is an ordinary PaymentIntent (its invoice's confirmation secret), confirmed with
 * confirmPayment. Unlike real Stripe.js the card inputs live in the page itself (no iframe): test cards only.
 */
(function () {
  'use strict';

  var script = document.currentScript;
  var BASE = window.STRIPE_STANDIN_BASE ||
    (script && script.src ? script.src.replace(/\/js\.stripe\.com\/(v3\/?|[a-z]+\/stripe\.js)(\?.*)?$/, '') : '');

  function IntegrationError(message) {
    var error = new Error(message);
    error.name = 'IntegrationError';
    return error;
  }

  function encode(value, prefix, out) {
    out = out || [];
    if (value === undefined || value === null) {
      return out;
    }
    if (Array.isArray(value)) {
      value.forEach(function (item, i) { encode(item, prefix + '[' + i + ']', out); });
    } else if (typeof value === 'object') {
      Object.keys(value).forEach(function (key) {
        encode(value[key], prefix ? prefix + '[' + key + ']' : key, out);
      });
    } else {
      out.push(encodeURIComponent(prefix) + '=' + encodeURIComponent(String(value)));
    }
    return out;
  }

  function request(method, path, params) {
    var body = encode(params, '').join('&');
    var url = BASE + path + (method === 'GET' && body ? '?' + body : '');
    var init = {method: method};
    if (method !== 'GET') {
      // A "simple" cross-origin request: no preflight needed.
      init.headers = {'Content-Type': 'application/x-www-form-urlencoded'};
      init.body = body;
    }
    return fetch(url, init).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (json) {
        return {ok: response.ok, status: response.status, body: json};
      });
    }, function () {
      return {ok: false, status: 0, body: {error: {
        type: 'api_connection_error',
        message: 'We could not connect to the payment service. Please try again.',
      }}};
    });
  }

  function intentIdOf(clientSecret) {
    var match = /^(pi_[A-Za-z0-9]+)_secret_/.exec(clientSecret || '');
    if (!match) {
      throw IntegrationError('Invalid value for clientSecret: it should be a PaymentIntent client secret.');
    }
    return match[1];
  }

  function setupIntentIdOf(clientSecret) {
    var match = /^(seti_[A-Za-z0-9]+)_secret_/.exec(clientSecret || '');
    if (!match) {
      throw IntegrationError('Invalid value for clientSecret: it should be a SetupIntent client secret.');
    }
    return match[1];
  }

  function digits(value) { return (value || '').replace(/\D/g, ''); }

  function openModal(text) {
    return new Promise(function (resolve) {
      var box = document.createElement('div');
      box.setAttribute('role', 'dialog');
      box.setAttribute('data-testid', 'stripe-standin-3ds');
      Object.assign(box.style, {
        position: 'fixed', top: '30%', left: '50%', transform: 'translateX(-50%)', zIndex: 2147483647,
        background: '#fff', border: '1px solid #ccc', borderRadius: '8px', padding: '16px 20px',
        boxShadow: '0 8px 30px rgba(0,0,0,.2)', fontFamily: 'system-ui, sans-serif', textAlign: 'center',
      });
      var p = document.createElement('p');
      p.textContent = text;
      box.appendChild(p);
      [['Complete authentication', true], ['Fail authentication', false]].forEach(function (pair) {
        var button = document.createElement('button');
        button.type = 'button';
        button.textContent = pair[0];
        button.style.margin = '4px';
        button.addEventListener('click', function () { box.remove(); resolve(pair[1]); });
        box.appendChild(button);
      });
      document.body.appendChild(box);
    });
  }

  /* ---------------------------------------------------------------- Payment Element ------------------- */

  function PaymentElement(elements, type, options) {
    this._elements = elements;
    this._type = type;
    this._options = options || {};
    this._listeners = {};
    this._node = null;
    this._ready = false;
    this._destroyed = false;
  }

  PaymentElement.prototype._emit = function (event, payload) {
    (this._listeners[event] || []).slice().forEach(function (handler) { handler(payload); });
  };

  PaymentElement.prototype.on = function (event, handler) {
    (this._listeners[event] = this._listeners[event] || []).push(handler);
    if (event === 'ready' && this._ready) {
      var self = this;
      setTimeout(function () { handler({elementType: self._type}); }, 0);
    }
    return this;
  };

  PaymentElement.prototype.off = function (event, handler) {
    var list = this._listeners[event] || [];
    this._listeners[event] = handler ? list.filter(function (h) { return h !== handler; }) : [];
    return this;
  };

  PaymentElement.prototype.once = function (event, handler) {
    var self = this;
    function wrapped(payload) { self.off(event, wrapped); handler(payload); }
    return this.on(event, wrapped);
  };

  PaymentElement.prototype._field = function (label, name, placeholder, autocomplete) {
    var appearance = this._elements._appearance();
    var wrapper = document.createElement('label');
    Object.assign(wrapper.style, {display: 'flex', flexDirection: 'column', gap: '4px', flex: '1', minWidth: '0',
      fontSize: '14px', color: appearance.colorText});
    var caption = document.createElement('span');
    caption.textContent = label;
    var input = document.createElement('input');
    input.type = 'text';
    input.name = name;
    input.placeholder = placeholder;
    input.autocomplete = autocomplete;
    input.inputMode = 'numeric';
    input.setAttribute('data-testid', 'stripe-standin-' + name);
    input.setAttribute('aria-label', label);
    Object.assign(input.style, {padding: '10px 12px', fontSize: '16px', border: '1px solid #d0d5dd',
      borderRadius: appearance.borderRadius, background: appearance.colorBackground,
      color: appearance.colorText, fontFamily: appearance.fontFamily, minWidth: '0', width: '100%',
      boxSizing: 'border-box'});
    wrapper.appendChild(caption);
    wrapper.appendChild(input);
    return {wrapper: wrapper, input: input};
  };

  PaymentElement.prototype.mount = function (target) {
    if (this._destroyed) {
      throw IntegrationError('This Element has already been destroyed. Please create a new one.');
    }
    var node = typeof target === 'string' ? document.querySelector(target) : target;
    if (!node || !node.appendChild) {
      throw IntegrationError('Invalid DOM element. Make sure to call mount() with a valid DOM element or selector.');
    }
    if (this._node) {
      return;
    }
    var self = this;
    var appearance = this._elements._appearance();
    var root = document.createElement('div');
    root.setAttribute('data-testid', 'stripe-standin-payment-element');
    Object.assign(root.style, {fontFamily: appearance.fontFamily, border: '1px solid #e4e7ec',
      borderRadius: appearance.borderRadius, padding: '12px 14px', display: 'flex', flexDirection: 'column',
      gap: '12px'});

    // Accordion layout with one item: card (the only method the stand-in can take).
    var header = document.createElement('div');
    Object.assign(header.style, {display: 'flex', alignItems: 'center', gap: '8px', fontWeight: '600',
      color: appearance.colorText});
    var radio = document.createElement('input');
    radio.type = 'radio';
    radio.checked = true;
    radio.readOnly = true;
    radio.setAttribute('aria-label', 'Card');
    var title = document.createElement('span');
    title.textContent = 'Card';
    header.appendChild(radio);
    header.appendChild(title);
    root.appendChild(header);

    var number = this._field('Card number', 'cardnumber', '1234 1234 1234 1234', 'cc-number');
    var expiry = this._field('Expiration date', 'exp-date', 'MM / YY', 'cc-exp');
    var cvc = this._field('Security code', 'cvc', 'CVC', 'cc-csc');
    root.appendChild(number.wrapper);
    var row = document.createElement('div');
    Object.assign(row.style, {display: 'flex', gap: '12px'});
    row.appendChild(expiry.wrapper);
    row.appendChild(cvc.wrapper);
    root.appendChild(row);

    var error = document.createElement('div');
    error.setAttribute('role', 'alert');
    error.setAttribute('data-testid', 'stripe-standin-error');
    Object.assign(error.style, {color: appearance.colorDanger, fontSize: '14px', minHeight: '1em'});
    root.appendChild(error);
    var note = document.createElement('div');
    note.setAttribute('data-testid', 'stripe-standin-note');
    // The checkout's own test-mode wording (the spec's note), never the stand-in's name: users read this.
    note.textContent = 'Test mode: no real charges will be made.';
    Object.assign(note.style, {fontSize: '12px', color: '#667085'});
    root.appendChild(note);

    this._inputs = {number: number.input, expiry: expiry.input, cvc: cvc.input};
    this._error = error;

    number.input.addEventListener('input', function () {
      var d = digits(number.input.value).slice(0, 16);
      number.input.value = d.replace(/(\d{4})(?=\d)/g, '$1 ');
      self._changed();
    });
    expiry.input.addEventListener('input', function () {
      var d = digits(expiry.input.value).slice(0, 4);
      expiry.input.value = d.length > 2 ? d.slice(0, 2) + ' / ' + d.slice(2) : d;
      self._changed();
    });
    cvc.input.addEventListener('input', function () {
      cvc.input.value = digits(cvc.input.value).slice(0, 4);
      self._changed();
    });
    [number.input, expiry.input, cvc.input].forEach(function (input) {
      input.addEventListener('focus', function () { self._emit('focus', {elementType: self._type}); });
      input.addEventListener('blur', function () { self._emit('blur', {elementType: self._type}); });
      input.addEventListener('keydown', function (event) {
        if (event.key === 'Escape') { self._emit('escape', {elementType: self._type}); }
      });
    });

    node.appendChild(root);
    this._node = root;
    // Stripe emits `ready` asynchronously, after frameworks have attached their listeners.
    setTimeout(function () {
      if (self._node) {
        self._ready = true;
        self._emit('ready', {elementType: self._type});
      }
    }, 30);
  };

  PaymentElement.prototype._changed = function () {
    if (this._error) { this._error.textContent = ''; }
    var values = this._values();
    this._emit('change', {
      elementType: this._type,
      empty: !values.number && !values.expiry && !values.cvc,
      complete: values.number.length === 16 && values.expiry.length === 4 && values.cvc.length >= 3,
      collapsed: false,
      value: {type: 'card'},
    });
  };

  PaymentElement.prototype._values = function () {
    if (!this._inputs) { return {number: '', expiry: '', cvc: ''}; }
    return {
      number: digits(this._inputs.number.value),
      expiry: digits(this._inputs.expiry.value),
      cvc: digits(this._inputs.cvc.value),
    };
  };

  /* Client-side checks Stripe.js makes before it contacts Stripe; returns an error or null. */
  PaymentElement.prototype._validate = function () {
    var v = this._values();
    var now = new Date();
    function fail(code, message) { return {type: 'validation_error', code: code, message: message}; }
    if (v.number.length < 16) { return fail('incomplete_number', 'Your card number is incomplete.'); }
    if (v.expiry.length < 4) { return fail('incomplete_expiry', "Your card's expiration date is incomplete."); }
    var month = parseInt(v.expiry.slice(0, 2), 10);
    var year = 2000 + parseInt(v.expiry.slice(2), 10);
    if (month < 1 || month > 12) {
      return fail('invalid_expiry_month', "Your card's expiration month is invalid.");
    }
    if (year < now.getFullYear()) {
      return fail('invalid_expiry_year_past', "Your card's expiration year is in the past.");
    }
    if (year === now.getFullYear() && month < now.getMonth() + 1) {
      return fail('invalid_expiry_month_past', "Your card's expiration date is in the past.");
    }
    if (v.cvc.length < 3) { return fail('incomplete_cvc', "Your card's security code is incomplete."); }
    return null;
  };

  PaymentElement.prototype._showError = function (error) {
    if (this._error) { this._error.textContent = error ? error.message : ''; }
  };

  PaymentElement.prototype._cardData = function () {
    var v = this._values();
    return {number: v.number, exp_month: v.expiry.slice(0, 2), exp_year: '20' + v.expiry.slice(2), cvc: v.cvc};
  };

  PaymentElement.prototype.update = function (options) {
    Object.assign(this._options, options || {});
  };
  PaymentElement.prototype.focus = function () { if (this._inputs) { this._inputs.number.focus(); } };
  PaymentElement.prototype.blur = function () {
    if (this._inputs && document.activeElement && document.activeElement.blur) { document.activeElement.blur(); }
  };
  PaymentElement.prototype.clear = function () {
    if (!this._inputs) { return; }
    this._inputs.number.value = this._inputs.expiry.value = this._inputs.cvc.value = '';
    this._changed();
  };
  PaymentElement.prototype.collapse = function () {};
  PaymentElement.prototype.unmount = function () {
    if (this._node) { this._node.remove(); }
    this._node = null;
    this._inputs = null;
    this._ready = false;
  };
  PaymentElement.prototype.destroy = function () {
    this.unmount();
    this._destroyed = true;
    this._listeners = {};
    this._elements._forget(this);
  };

  /* ---------------------------------------------------------------- Elements group ------------------- */

  function Elements(stripe, options) {
    this._stripe = stripe;
    this._options = options || {};
    this._created = {};
  }

  Elements.prototype._appearance = function () {
    var variables = (this._options.appearance && this._options.appearance.variables) || {};
    return {
      colorText: variables.colorText || '#30313d',
      colorDanger: variables.colorDanger || '#df1b41',
      colorBackground: variables.colorBackground || '#ffffff',
      fontFamily: variables.fontFamily || 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      borderRadius: variables.borderRadius || '6px',
    };
  };

  Elements.prototype.create = function (type, options) {
    if (type !== 'payment' && type !== 'card') {
      throw IntegrationError('The local Stripe stand-in supports only the "payment" and "card" Elements.');
    }
    if (this._created[type]) {
      throw IntegrationError('Can only create one Element of type ' + type + '.');
    }
    this._created[type] = new PaymentElement(this, type, options);
    return this._created[type];
  };
  Elements.prototype.getElement = function (type) { return this._created[type] || null; };
  Elements.prototype._forget = function (element) {
    var created = this._created;
    Object.keys(created).forEach(function (key) { if (created[key] === element) { delete created[key]; } });
  };
  Elements.prototype._cardElement = function () {
    return this._created.payment || this._created.card || null;
  };
  Elements.prototype.update = function (options) { Object.assign(this._options, options || {}); };
  Elements.prototype.fetchUpdates = function () { return Promise.resolve({}); };
  Elements.prototype.submit = function () {
    var element = this._cardElement();
    var error = element ? element._validate() : null;
    if (element) { element._showError(error); }
    return Promise.resolve(error ? {error: error} : {});
  };
  Elements.prototype.on = function () { return this; };
  Elements.prototype.off = function () { return this; };

  /* ---------------------------------------------------------------- Stripe instance ------------------- */

  function StripeStandin(publishableKey, options) {
    if (typeof publishableKey !== 'string' || !publishableKey) {
      throw IntegrationError('Please call Stripe() with your publishable key. You used an empty string.');
    }
    if (publishableKey.indexOf('sk_') === 0) {
      throw IntegrationError('You should not use your secret key with Stripe.js.');
    }
    this._key = publishableKey;
    this._options = options || {};
  }

  StripeStandin.prototype.elements = function (options) { return new Elements(this, options); };
  StripeStandin.prototype._registerWrapper = function () {};
  StripeStandin.prototype.registerAppInfo = function () {};

  StripeStandin.prototype._authenticate = function (clientSecret, intent) {
    var key = this._key;
    var collection = intent.object === 'setup_intent' ? '/v1/setup_intents/' : '/v1/payment_intents/';
    return openModal('3D Secure (local stand-in): complete or fail the authentication?').then(function (ok) {
      return request('POST', collection + intent.id + '/_authenticate?success=' + ok,
        {key: key, client_secret: clientSecret});
    });
  };

  /* Confirm with card data; settles to {paymentIntent} or {error} exactly like Stripe.js. */
  StripeStandin.prototype._confirm = function (clientSecret, cardData, extra) {
    var self = this;
    var params = Object.assign({
      key: this._key,
      client_secret: clientSecret,
      payment_user_agent: 'stripe-standin',
      use_stripe_sdk: 'true',
      expected_payment_method_type: 'card',
    }, extra || {});
    if (cardData) {
      params.payment_method_data = Object.assign({type: 'card', card: cardData}, params.payment_method_data || {});
    }
    return request('POST', '/v1/payment_intents/' + intentIdOf(clientSecret) + '/confirm', params)
      .then(function (result) {
        if (!result.ok || result.body.error) {
          return result;
        }
        if (result.body.status !== 'requires_action') {
          return result;
        }
        return self._authenticate(clientSecret, result.body);
      })
      .then(function (result) {
        if (!result.ok || result.body.error) {
          return {error: result.body.error || {type: 'api_error', message: 'An unexpected error occurred.'}};
        }
        var intent = result.body;
        if (intent.status === 'requires_payment_method') {
          return {error: Object.assign({type: 'card_error', payment_intent: intent}, intent.last_payment_error || {
            code: 'payment_intent_authentication_failure',
            message: 'We are unable to authenticate your payment method. Please choose a different payment ' +
              'method and try again.',
          })};
        }
        return {paymentIntent: intent};
      });
  };

  StripeStandin.prototype.confirmPayment = function (options) {
    options = options || {};
    var elements = options.elements;
    var confirmParams = options.confirmParams || {};
    var redirect = options.redirect || 'always';
    try {
      if (!elements || !(elements instanceof Elements)) {
        throw IntegrationError('stripe.confirmPayment(): expected the `elements` created from this Stripe instance.');
      }
      var clientSecret = options.clientSecret || elements._options.clientSecret;
      intentIdOf(clientSecret);
      if (redirect !== 'if_required' && !confirmParams.return_url) {
        throw IntegrationError("stripe.confirmPayment(): the `confirmParams.return_url` argument is required " +
          "unless passing `redirect: 'if_required'`");
      }
      var element = elements._cardElement();
      if (!element || !element._node) {
        throw IntegrationError('stripe.confirmPayment(): a Payment Element must be mounted first.');
      }
    } catch (error) {
      return Promise.reject(error);
    }
    var invalid = element._validate();
    element._showError(invalid);
    if (invalid) {
      return Promise.resolve({error: invalid});
    }
    var extra = {};
    if (confirmParams.return_url) { extra.return_url = confirmParams.return_url; }
    if (confirmParams.receipt_email) { extra.receipt_email = confirmParams.receipt_email; }
    if (confirmParams.payment_method_data) { extra.payment_method_data = confirmParams.payment_method_data; }
    return this._confirm(clientSecret, element._cardData(), extra).then(function (result) {
      if (result.paymentIntent && redirect !== 'if_required') {
        var url = new URL(confirmParams.return_url, window.location.href);
        url.searchParams.set('payment_intent', result.paymentIntent.id);
        url.searchParams.set('payment_intent_client_secret', clientSecret);
        url.searchParams.set('redirect_status', result.paymentIntent.status);
        window.location.assign(url.toString());
        return new Promise(function () {});  // Stripe.js never settles when it redirects.
      }
      return result;
    });
  };

  StripeStandin.prototype.confirmCardPayment = function (clientSecret, data) {
    data = data || {};
    var method = data.payment_method;
    var cardData = null;
    var extra = {};
    if (method && method.card && method.card._cardData) {
      var invalid = method.card._validate();
      method.card._showError(invalid);
      if (invalid) { return Promise.resolve({error: invalid}); }
      cardData = method.card._cardData();
      if (method.billing_details) { extra.payment_method_data = {billing_details: method.billing_details}; }
    } else if (typeof method === 'string') {
      extra.payment_method = method;
    }
    return this._confirm(clientSecret, cardData, extra);
  };

  StripeStandin.prototype.retrievePaymentIntent = function (clientSecret) {
    return request('GET', '/v1/payment_intents/' + intentIdOf(clientSecret),
      {key: this._key, client_secret: clientSecret}).then(function (result) {
      return result.ok ? {paymentIntent: result.body} : {error: result.body.error};
    });
  };

  StripeStandin.prototype.handleNextAction = function (options) {
    var self = this;
    var clientSecret = options && options.clientSecret;
    var setup = /^seti_/.test(clientSecret || '');
    var name = setup ? 'setupIntent' : 'paymentIntent';
    var retrieved = setup ? this.retrieveSetupIntent(clientSecret) : this.retrievePaymentIntent(clientSecret);
    return retrieved.then(function (result) {
      if (result.error || result[name].status !== 'requires_action') { return result; }
      return self._authenticate(clientSecret, result[name]).then(function (auth) {
        var answer = {};
        if (auth.ok) { answer[name] = auth.body; } else { answer.error = auth.body.error; }
        return answer;
      });
    });
  };

  /* Confirm a SetupIntent with card data; settles to {setupIntent} or {error} like Stripe.js. */
  StripeStandin.prototype._confirmSetup = function (clientSecret, cardData, extra) {
    var self = this;
    var params = Object.assign({
      key: this._key,
      client_secret: clientSecret,
      payment_user_agent: 'stripe-standin',
      use_stripe_sdk: 'true',
    }, extra || {});
    if (cardData) {
      params.payment_method_data = Object.assign({type: 'card', card: cardData}, params.payment_method_data || {});
    }
    return request('POST', '/v1/setup_intents/' + setupIntentIdOf(clientSecret) + '/confirm', params)
      .then(function (result) {
        if (!result.ok || result.body.error || result.body.status !== 'requires_action') {
          return result;
        }
        return self._authenticate(clientSecret, result.body);
      })
      .then(function (result) {
        if (!result.ok || result.body.error) {
          return {error: result.body.error || {type: 'api_error', message: 'An unexpected error occurred.'}};
        }
        var intent = result.body;
        if (intent.status === 'requires_payment_method') {
          return {error: Object.assign({type: 'card_error', setup_intent: intent}, intent.last_setup_error || {
            code: 'setup_intent_authentication_failure',
            message: 'We are unable to authenticate your payment method. Please choose a different payment ' +
              'method and try again.',
          })};
        }
        return {setupIntent: intent};
      });
  };

  StripeStandin.prototype.confirmSetup = function (options) {
    options = options || {};
    var elements = options.elements;
    var confirmParams = options.confirmParams || {};
    var redirect = options.redirect || 'always';
    try {
      if (!elements || !(elements instanceof Elements)) {
        throw IntegrationError('stripe.confirmSetup(): expected the `elements` created from this Stripe instance.');
      }
      var clientSecret = options.clientSecret || elements._options.clientSecret;
      setupIntentIdOf(clientSecret);
      if (redirect !== 'if_required' && !confirmParams.return_url) {
        throw IntegrationError("stripe.confirmSetup(): the `confirmParams.return_url` argument is required " +
          "unless passing `redirect: 'if_required'`");
      }
      var element = elements._cardElement();
      if (!element || !element._node) {
        throw IntegrationError('stripe.confirmSetup(): a Payment Element must be mounted first.');
      }
    } catch (error) {
      return Promise.reject(error);
    }
    var invalid = element._validate();
    element._showError(invalid);
    if (invalid) {
      return Promise.resolve({error: invalid});
    }
    var extra = {};
    if (confirmParams.return_url) { extra.return_url = confirmParams.return_url; }
    if (confirmParams.payment_method_data) { extra.payment_method_data = confirmParams.payment_method_data; }
    return this._confirmSetup(clientSecret, element._cardData(), extra).then(function (result) {
      if (result.setupIntent && redirect !== 'if_required') {
        var url = new URL(confirmParams.return_url, window.location.href);
        url.searchParams.set('setup_intent', result.setupIntent.id);
        url.searchParams.set('setup_intent_client_secret', clientSecret);
        url.searchParams.set('redirect_status', result.setupIntent.status);
        window.location.assign(url.toString());
        return new Promise(function () {});  // Stripe.js never settles when it redirects.
      }
      return result;
    });
  };

  StripeStandin.prototype.confirmCardSetup = function (clientSecret, data) {
    data = data || {};
    var method = data.payment_method;
    var cardData = null;
    var extra = {};
    if (method && method.card && method.card._cardData) {
      var invalid = method.card._validate();
      method.card._showError(invalid);
      if (invalid) { return Promise.resolve({error: invalid}); }
      cardData = method.card._cardData();
      if (method.billing_details) { extra.payment_method_data = {billing_details: method.billing_details}; }
    } else if (typeof method === 'string') {
      extra.payment_method = method;
    }
    return this._confirmSetup(clientSecret, cardData, extra);
  };

  StripeStandin.prototype.retrieveSetupIntent = function (clientSecret) {
    return request('GET', '/v1/setup_intents/' + setupIntentIdOf(clientSecret),
      {key: this._key, client_secret: clientSecret}).then(function (result) {
      return result.ok ? {setupIntent: result.body} : {error: result.body.error};
    });
  };

  StripeStandin.prototype.createPaymentMethod = function (options) {
    options = options || {};
    var element = options.elements ? options.elements._cardElement() : options.card || options.element;
    if (!element || !element._cardData) {
      return Promise.reject(IntegrationError('createPaymentMethod needs `elements` or a card Element.'));
    }
    var invalid = element._validate();
    element._showError(invalid);
    if (invalid) { return Promise.resolve({error: invalid}); }
    var params = {key: this._key, type: 'card', card: element._cardData()};
    var billing = options.billing_details || (options.params && options.params.billing_details);
    if (billing) { params.billing_details = billing; }
    return request('POST', '/v1/payment_methods', params).then(function (result) {
      return result.ok ? {paymentMethod: result.body} : {error: result.body.error};
    });
  };

  StripeStandin.prototype.createToken = function (element) {
    if (!element || !element._cardData) {
      return Promise.reject(IntegrationError('createToken needs a card Element.'));
    }
    var invalid = element._validate();
    if (invalid) { return Promise.resolve({error: invalid}); }
    return request('POST', '/v1/tokens', {key: this._key, card: element._cardData()}).then(function (result) {
      return result.ok ? {token: result.body} : {error: result.body.error};
    });
  };

  function Stripe(publishableKey, options) {
    return new StripeStandin(publishableKey, options);
  }
  // @stripe/stripe-js compares this with the release it was built for (RELEASE_TRAIN) and warns otherwise.
  Stripe.version = '__STRIPE_JS_RELEASE__';
  Stripe.standin = {base: BASE};
  window.Stripe = Stripe;
})();
