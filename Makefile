# The two set-up commands of README.md. Each installs what it needs on a fresh machine.
.PHONY: serve test

HOST ?= 127.0.0.1
PORT ?= 8000
# `slow` tests (nightly-sized playouts of every game) are part of the whole suite; TEAHOUSE_SLOW=0 skips them.
TEAHOUSE_SLOW ?= 1

serve:
	./deploy/bootstrap.sh
	.venv/bin/teahouse serve --host $(HOST) --port $(PORT)

test:
	./deploy/bootstrap.sh --with-redis
	TEAHOUSE_SLOW=$(TEAHOUSE_SLOW) .venv/bin/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)
