# The two commands of the README: `make run` and `make test`. Both create .venv when it is missing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The store tests also run against this external Redis; they skip when nothing answers there.
EXTERNAL_REDIS_URL ?= redis://127.0.0.1:6379/15

.PHONY: install browser curl run stop test test-unit lint bench clean

# The Python client is its own distribution (clients/python): installed editable beside the service,
# whose tests and README import it as `agentry_client`.
$(STAMP): pyproject.toml clients/python/pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ./clients/python -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

# Headless Chromium and its driver for the console's browser tests, from Debian (CI runs as root).
# Elsewhere, without them, those tests skip; with CI set they fail instead.
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -q && apt-get install -y -q --no-install-recommends chromium chromium-driver; \
	else echo "chromium and chromium-driver are not installed: the console browser tests will skip"; fi

# curl for the README test (tests/integration/test_readme.py runs the curl blocks of the README and its guides), from
# Debian when missing and run as root; elsewhere, without it, that test skips (with CI set it fails).
curl:
	@if command -v curl >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -q && apt-get install -y -q --no-install-recommends curl ca-certificates; \
	else echo "curl is not installed: the README test will skip"; fi

run: install
	$(BIN)/agentry up

# Stops what `make run` started, from another terminal (as Ctrl-C does where it runs).
stop:
	@test -x $(BIN)/agentry || { echo "nothing to stop: $(BIN)/agentry is not installed"; exit 0; }
	$(BIN)/agentry down

# Unit tests first: a broken build says so in about a minute, and make stops there before the
# integration and reliability tests (about 20 minutes on two cores) start Ray.
test: install browser curl
	$(BIN)/python -m pytest tests/unit
	$(BIN)/python -m pytest tests/integration tests/reliability
	$(BIN)/python -m pytest -m store --redis-url $(EXTERNAL_REDIS_URL)

test-unit: install
	$(BIN)/python -m pytest tests/unit

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy core actors tools extraction serve bench clients/python/src/agentry_client

clean:
	rm -rf $(VENV) .agentry .pytest_cache .mypy_cache .ruff_cache
