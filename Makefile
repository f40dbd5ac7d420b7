# The two commands: `make run` (serve the app on http://localhost:3000) and `make test` (the whole suite);
# `make test-unit` and `make test-e2e` run its two halves.
SHELL := /bin/bash
.DEFAULT_GOAL := run

.PHONY: setup run test test-unit test-e2e test-runtime lint browser

setup:
	@bash scripts/setup.sh

run: setup
	@bash scripts/run.sh

browser:
	@bash scripts/browser.sh

test: setup browser
	@bash scripts/test.sh

# Lint and the unit + API tests (no browser): the quick loop.
test-unit: setup
	@bash scripts/test.sh unit

# The browser tests only (builds the app once, drives it in headless Chromium).
test-e2e: setup browser
	@bash scripts/test.sh e2e

# The runtime requirements alone run the app in production mode (a virtualenv of its own; needs
# TEST_DATABASE_URL on PostgreSQL). `make test` runs it too when that is set.
test-runtime:
	@bash scripts/test.sh runtime

lint: setup
	@.venv/bin/ruff check .
	@.venv/bin/lint-imports --no-cache --no-logo
	@.venv/bin/mypy
