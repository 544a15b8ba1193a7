# The two set-up commands of README.md, then the developer's targets. Each installs what it needs
# on a fresh machine: `serve` the runtime dependencies only, every other target the test extras too.
.PHONY: serve test fast lint types vectors schemas openapi

HOST ?= 127.0.0.1
PORT ?= 8000
# `slow` tests (nightly-sized playouts of every game, the wheel install) are part of the whole
# suite; TEAHOUSE_SLOW=0 skips them.
TEAHOUSE_SLOW ?= 1
PYTEST = .venv/bin/python -m pytest -q -p no:cacheprovider

serve:
	./deploy/bootstrap.sh --runtime
	.venv/bin/teahouse serve --host $(HOST) --port $(PORT)

test:
	./deploy/bootstrap.sh --with-redis
	TEAHOUSE_SLOW=$(TEAHOUSE_SLOW) $(PYTEST) $(PYTEST_ARGS)

# The suite without the slow tests and without the browser tests (tests/web).
fast:
	./deploy/bootstrap.sh --with-redis
	TEAHOUSE_SLOW=0 $(PYTEST) --ignore=tests/web $(PYTEST_ARGS)

lint:
	./deploy/bootstrap.sh
	.venv/bin/python -m ruff check .

types:
	./deploy/bootstrap.sh
	.venv/bin/python -m mypy protocol service clients/python

# Committed files made by a program: regenerate, then review the diff like code.
vectors:
	./deploy/bootstrap.sh
	.venv/bin/python -m tools.make_vectors

schemas:
	./deploy/bootstrap.sh
	.venv/bin/python -m tools.make_view_schemas

openapi:
	./deploy/bootstrap.sh
	.venv/bin/python -m tools.make_openapi
