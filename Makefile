# The two set-up commands of README.md. Each installs what it needs on a fresh machine.
.PHONY: serve test

HOST ?= 127.0.0.1
PORT ?= 8000

serve:
	./deploy/bootstrap.sh
	.venv/bin/teahouse serve --host $(HOST) --port $(PORT)

test:
	./deploy/bootstrap.sh --with-redis
	.venv/bin/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)
