"""Locust users for `benchmarks/load.py`: shoppers who browse, search, view agents and buy through the stand-in.

Run by locust from its own virtualenv (`.venv-bench`, benchmarks/requirements-load.txt): it imports nothing
from the app. Each simulated user is signed in (a session load.py issued), then, between pauses of LOAD_WAIT seconds
(`min,max`), does one of: browse the catalogue (a filtered, sorted, paged listing), search, open a page's HTML,
view an agent (the agent and its reviews), or buy an agent it does not own (create the PaymentIntent, confirm it
on the Stripe stand-in as Stripe.js would, complete the purchase). Request names are the kinds reported.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from locust import FastHttpUser, between, events, task

STANDIN = os.environ.get("LOAD_STANDIN_URL", "")
WAIT = [float(x) for x in os.environ.get("LOAD_WAIT", "1,3").split(",")]
PUBLISHABLE_KEY = os.environ.get("LOAD_PUBLISHABLE_KEY", "pk_test_standin")
CATEGORIES = ["", "content-creation", "business-automation", "data-analysis", "customer-support", "marketing",
              "development-tools", "productivity"]
SORTS = ["popularity", "rating", "newest", "price-low", "price-high"]
WORDS = ["email", "code", "support", "data", "seo", "blog", "sales", "meeting", "invoice", "social"]
PAGES = ["/", "/agents", "/categories"]
CATALOG: list[dict] = []  # the live agents, read once per locust process
SESSIONS: list[str] = Path(os.environ["LOAD_SESSIONS"]).read_text().split() if os.environ.get("LOAD_SESSIONS") else []


@events.test_start.add_listener
def _read_catalog(environment, **_kwargs) -> None:
    import requests

    response = requests.get(f"{environment.host}/api/agents", params={"limit": 100}, timeout=30)
    response.raise_for_status()
    CATALOG[:] = response.json()


class Shopper(FastHttpUser):
    wait_time = between(*WAIT)

    def on_start(self) -> None:
        # Signed in already: one session per user, issued by load.py (a sign-in costs an argon2 hash).
        self.client.cookiejar.clear()
        token = SESSIONS.pop()
        self.signed_in = {"Cookie": f"mp_session={token}"}
        self.origin = {"Origin": self.host, **self.signed_in}
        self.owned: set[str] = set()

    @task(5)
    def browse(self) -> None:
        params = {"sort": random.choice(SORTS), "limit": "12", "offset": str(12 * random.randint(0, 1))}
        if category := random.choice(CATEGORIES):
            params["category"] = category
        self.client.get("/api/agents", params=params, headers=self.signed_in, name="browse")

    @task(3)
    def search(self) -> None:
        self.client.get("/api/agents", params={"search": random.choice(WORDS)}, headers=self.signed_in, name="search")

    @task(2)
    def page(self) -> None:
        self.client.get(random.choice(PAGES), headers=self.signed_in, name="page (HTML)")

    @task(4)
    def view_agent(self) -> None:
        agent = random.choice(CATALOG)
        self.client.get(f"/api/agents/{agent['id']}", headers=self.signed_in, name="view agent")
        self.client.get(f"/api/agents/{agent['id']}/reviews", headers=self.signed_in, name="view agent: reviews")

    @task(1)
    def buy(self) -> None:
        choices = [a for a in CATALOG if a["id"] not in self.owned and a["price"] not in ("0", "0.00")]
        if not choices:
            return
        agent = random.choice(choices)
        with self.client.post("/api/purchase/create-payment-intent", json={"agentId": agent["id"]},
                              headers=self.origin, name="buy: create intent", catch_response=True) as answer:
            if answer.status_code != 200:
                answer.failure(f"{answer.status_code}: {answer.text[:200]}")
                return
            intent = answer.json()
        intent_id = intent["paymentIntentId"]
        with self.client.post(f"{STANDIN}/v1/payment_intents/{intent_id}/confirm", data={
            "key": PUBLISHABLE_KEY, "client_secret": intent["clientSecret"], "payment_method_data[type]": "card",
            "payment_method_data[card][number]": "4242424242424242", "payment_method_data[card][exp_month]": "12",
            "payment_method_data[card][exp_year]": "2034", "payment_method_data[card][cvc]": "123",
        }, name="buy: confirm (stand-in, not the app)", catch_response=True) as confirmed:
            if confirmed.status_code != 200 or confirmed.json().get("status") != "succeeded":
                confirmed.failure(f"{confirmed.status_code}: {confirmed.text[:200]}")
                return
        with self.client.post("/api/purchase/complete", json={"paymentIntentId": intent_id, "agentId": agent["id"]},
                              headers=self.origin, name="buy: complete", catch_response=True) as done:
            if done.status_code != 200:
                done.failure(f"{done.status_code}: {done.text[:200]}")
                return
        self.owned.add(agent["id"])
