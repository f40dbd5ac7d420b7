"""The event websocket opened by the HTML itself, while the JavaScript modules are still on their way.

Reflex opens its websocket when `utils/state.js` runs, that is after every module of the page has arrived: its
TCP set-up and HTTP upgrade (two round trips) come after the module waves, 0.6 s at 300 ms. A small inline script
in the head opens the same connection (same address, session token and subprotocol) as soon as the HTML is parsed
and, when engine.io later asks for exactly that connection, hands it over instead of dialling again: the open
event and the messages that arrived meanwhile are replayed to engine.io's handlers in order. Any other request,
or one that comes late (10 s), gets a new connection as before; the spare one is closed.

The session token must then be in sessionStorage before the app mounts (Reflex keeps a fresh one unsaved until
it connects), so the script saves it the way Reflex's `getToken` would.

A Reflex plugin writes the script into the document root (`app/_document.js`), next to Reflex's own color-mode
script, so that it is in every prerendered page and in the fallback page of the addresses that have none.
`rx.App(head_components=...)` would not do: those go through react-helmet, which adds them only after React has
mounted, too late, and then with a token that is not the one the app connects with (measured: three sockets).
"""

from __future__ import annotations

import json
import re

import reflex as rx
from reflex import constants

# Reflex's `getBackendURL`: these host names mean "the host the page came from" (and https means wss, no port).
SAME_DOMAIN_HOSTNAMES = ["localhost", "0.0.0.0", "::", "0:0:0:0:0:0:0:0"]
TOKEN_KEY = "token"  # Reflex's sessionStorage key for the session token (state.js TOKEN_KEY)
ADOPT_WITHIN_MS = 10_000
DOCUMENT = f"{constants.Dirs.PAGES}/{constants.PageNames.DOCUMENT_ROOT}"  # app/_document.js, in the web folder
HEAD = re.compile(r'jsx\("head",\{\},')

SCRIPT = """(() => {
  if (typeof window === "undefined" || !window.WebSocket || document.visibilityState === "hidden") return;
  try {
    const url = new URL(%(event_url)s);
    if (%(same_domain)s.includes(url.hostname)) {
      url.hostname = location.hostname;
      if (location.protocol === "https:") { url.protocol = "wss:"; url.port = ""; }
    }
    let token = sessionStorage.getItem(%(token_key)s);
    if (!token) {  // a version 4 UUID, as Reflex makes (crypto.randomUUID needs a secure context)
      const hex = [...crypto.getRandomValues(new Uint8Array(16))].map((b, i) =>
        (i === 6 ? (b & 15) | 64 : i === 8 ? (b & 63) | 128 : b).toString(16).padStart(2, "0")).join("");
      token = hex.replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
      sessionStorage.setItem(%(token_key)s, token);
    }
    url.pathname = url.pathname.replace(/\\/$/, "") + "/";
    url.search = new URLSearchParams({token, EIO: "4", transport: "websocket"});
    const Native = window.WebSocket, protocol = %(protocol)s, queue = [];
    let early = new Native(url.href, [protocol]), opened = false;
    early.onopen = () => { opened = true; };
    early.onmessage = (event) => queue.push(event);
    const drop = () => { if (early) { early.onclose = early.onerror = null; early.close(); early = null; } };
    setTimeout(drop, %(adopt_within_ms)d);
    window.addEventListener("pagehide", drop);
    const same = (href, protocols) => {
      const asked = new URL(href, location.href), want = url.searchParams, got = asked.searchParams;
      return asked.origin === url.origin && asked.pathname === url.pathname && [...got.keys()].length === 3
        && ["token", "EIO", "transport"].every((key) => got.get(key) === want.get(key))
        && [].concat(protocols ?? []).join() === protocol;
    };
    function WebSocket(href, protocols) {
      if (early && early.readyState <= 1 && same(href, protocols)) {
        const ws = early;
        early = null;
        queueMicrotask(() => {  // engine.io has set its handlers: replay what it missed, in order
          if (opened) ws.onopen?.(new Event("open"));
          for (const event of queue.splice(0)) ws.onmessage?.(event);
        });
        return ws;
      }
      return protocols === undefined ? new Native(href) : new Native(href, protocols);
    }
    WebSocket.prototype = Native.prototype;
    Object.assign(WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});  // as the native one has
    window.WebSocket = WebSocket;
  } catch (error) {
    // Blocked storage or sockets: Reflex connects the usual way once its modules run.
  }
})();"""


def early_socket_script() -> str:
    """The inline script for this build's event address (`api_url` + `/_event`) and Reflex version."""
    return SCRIPT % {
        "event_url": json.dumps(constants.Endpoint.EVENT.get_url()),
        "same_domain": json.dumps(SAME_DOMAIN_HOSTNAMES),
        "token_key": json.dumps(TOKEN_KEY),
        "protocol": json.dumps(constants.Reflex.VERSION),
        "adopt_within_ms": ADOPT_WITHIN_MS,
    }


def with_early_socket(document: str, script: str) -> str:
    """The compiled document root with `script` first in its head; a changed template fails the build loudly."""
    element = f'jsx("script",{{}},{json.dumps(script)}),'
    written, count = HEAD.subn(lambda match: match.group(0) + element, document, count=1)
    if count != 1:
        raise RuntimeError(f"{DOCUMENT} has no head element: update marketplace/early_socket.py")
    return written


class EarlySocket(rx.plugins.Plugin):
    """Adds the script to the document root that Reflex writes at every compile."""

    def pre_compile(self, **context) -> None:  # noqa: ANN003 - Reflex's PreCompileContext keywords
        context["add_modify_task"](DOCUMENT, lambda document: with_early_socket(document, early_socket_script()))
