# Two commands for a fresh machine: `make run` and `make test` (see README.md).
VENV ?= .venv
PY := $(VENV)/bin/python
# 0.0.0.0: every interface, so the others in the room join from their own machines (HOST=127.0.0.1
# keeps it to this one). The demo step prints the LAN address(es) and each campaign's invite link.
HOST ?= 0.0.0.0
PORT ?= 8000

.PHONY: run test test-fast lint install serve bench

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: install
	$(PY) manage.py migrate --noinput
	HOST=$(HOST) PORT=$(PORT) $(PY) manage.py demo
	$(VENV)/bin/uvicorn config.asgi:application --host $(HOST) --port $(PORT) --ws-ping-interval 20 --lifespan off

lint: install
	$(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

test: lint
	@test -x /usr/bin/chromium || { echo "Browser tests need Debian's chromium: sudo apt-get install chromium"; exit 1; }
	$(VENV)/bin/pytest

# Everything but the browser tests, on every core: for the edit-test loop (about 2 minutes on 2 cores).
test-fast: lint
	$(VENV)/bin/pytest -m "not e2e" -q -n auto

bench: install
	$(PY) bench/odds.py
