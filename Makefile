# Two commands for a fresh machine: `make run` and `make test` (see README.md).
VENV ?= .venv
PY := $(VENV)/bin/python
# 0.0.0.0: every interface, so the others in the room join from their own machines (HOST=127.0.0.1
# keeps it to this one). The demo step prints the LAN address(es) and each campaign's invite link.
HOST ?= 0.0.0.0
PORT ?= 8000

# Python may keep compiled modules (and pytest its assert-rewritten tests) in __pycache__, whatever the
# shell says: without them every test process and every server a test starts compiles the whole tree
# again (measured: a third of the non-browser suite's CPU).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-fast test-browser test-loaded test-fifth-system browser lint install serve bench

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

# Debug off, this installation's own secret key (made once into data/secret_key). Every step is told
# HOST: DJANGO_DEBUG=1 refuses to start unless it is loopback (config/settings.py).
run: install
	HOST=$(HOST) $(PY) manage.py migrate --noinput
	HOST=$(HOST) PORT=$(PORT) $(PY) manage.py demo
	HOST=$(HOST) $(VENV)/bin/uvicorn config.asgi:application --host $(HOST) --port $(PORT) --ws-ping-interval 20 --lifespan off

lint: install
	$(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

# The whole suite: everything but the browser on every core, then the browser tests on every core too
# (each test its own live server, database and browser). Each run prints the 25 slowest tests.
test: browser test-fast test-browser

# Everything but the browser tests, on every core: the edit-test loop. worksteal: a core that runs out
# of tests takes waiting ones from the other, so no core is left with a queue while one idles.
test-fast: lint
	$(VENV)/bin/pytest -m "not e2e" -q -n auto --dist worksteal --durations=25

# A Chromium to drive: found, or installed by apt (as root or with password-less sudo) or by Playwright's
# download, each bounded in time (tests/e2e/browser.py).
browser: install
	$(PY) tests/e2e/browser.py

test-browser: lint browser
	$(VENV)/bin/pytest -m e2e -q -n auto --dist worksteal --durations=25

# The browser tests where a live refresh meets a click, again with a process spinning on every core: a
# busy machine or a slow phone must not lose the player's work (each spinner ends by itself after 20 min).
LOADED_TESTS = tests/e2e/test_live_sheets.py tests/e2e/test_edit_conflicts.py tests/e2e/test_first_evening.py \
	tests/e2e/test_session_freefall.py
test-loaded: lint browser
	@spinners=""; for _ in $$(seq $$(nproc)); do timeout 1200 sh -c 'while :; do :; done' & spinners="$$spinners $$!"; done; \
	$(VENV)/bin/pytest -m e2e -q --durations=5 $(LOADED_TESTS); status=$$?; kill $$spinners 2>/dev/null; exit $$status

# A fifth game system added by docs/architecture.md's steps (Triad's package copied under a new name) in a
# throwaway copy of the checkout, the import contracts and the contract suites run over all five.
test-fifth-system: install
	$(PY) tests/fifth_system.py

bench: install
	$(PY) bench/odds.py
