"""`python -m dev.stripe_standin --port 8420`: localstripe + our compatibility layer + the Stripe.js shim."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import sys
from pathlib import Path

from aiohttp import web

from dev.stripe_standin.server import create_app


def _loopback(host: str) -> str:
    if host != "localhost" and not ipaddress.ip_address(host).is_loopback:
        raise argparse.ArgumentTypeError("the stand-in only listens on loopback addresses")
    return host


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dev.stripe_standin", description=__doc__)
    parser.add_argument("--port", type=int, default=8420)
    parser.add_argument("--host", type=_loopback, default="127.0.0.1")
    parser.add_argument("--webhook-url", help="deliver events here, e.g. http://localhost:3000/api/stripe/webhook")
    parser.add_argument("--webhook-secret", help="signing secret for --webhook-url (STRIPE_WEBHOOK_SECRET)")
    parser.add_argument("--state-file", type=Path, help="keep objects across restarts in this pickle file")
    parser.add_argument("--quiet", action="store_true", help="no access log")
    args = parser.parse_args(argv)

    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="stripe-standin: %(message)s")
    app = create_app(state_file=args.state_file, webhook_url=args.webhook_url, webhook_secret=args.webhook_secret)
    access_log = None if args.quiet else logging.getLogger("aiohttp.access")
    print(f"stripe-standin listening on http://{args.host}:{args.port}", flush=True)
    web.run_app(app, host=args.host, port=args.port, access_log=access_log, print=None,
                handle_signals=True)


if __name__ == "__main__":
    main()
