# The two commands: `make run` (serve the app on http://localhost:3000) and `make test` (the whole suite).
SHELL := /bin/bash
.DEFAULT_GOAL := run

.PHONY: setup run test test-unit test-e2e lint browser

setup:
	@bash scripts/setup.sh

run: setup
	@bash scripts/run.sh

browser:
	@bash scripts/browser.sh

test: setup browser
	@bash scripts/test.sh

lint: setup
	@.venv/bin/ruff check .
