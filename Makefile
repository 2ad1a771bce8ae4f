# Two commands on a fresh machine: `make run` starts the bot, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: run test lint bench sync clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the project's metadata changed.
$(VENV)/.installed-run: pyproject.toml | $(PY)
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PIP) install -e '.[test,dev]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(PY) -m bot

sync: $(VENV)/.installed-run
	$(PY) -m bot sync

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .

test: lint
	$(PY) -m pytest

bench: $(VENV)/.installed-test
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
