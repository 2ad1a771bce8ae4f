# Two commands on a fresh machine: `make run` starts the bot, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: run test lint bench sync migrate clean demo screenshots

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the project's metadata changed.
$(VENV)/.installed-run: pyproject.toml | $(PY)
	$(PIP) install -e .
	touch $@

# The tests need the demo extra too: tests/demo plays in the browser demo's world.
$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PIP) install -e '.[test,dev,demo]'
	touch $@ $(VENV)/.installed-run $(VENV)/.installed-demo

run: $(VENV)/.installed-run
	$(PY) -m bot

sync: $(VENV)/.installed-run
	$(PY) -m bot sync

# A deploy step: bring the database's schema up to date (the bot also does it at start-up).
migrate: $(VENV)/.installed-run
	$(PY) -m bot migrate

# ruff, the layers (import-linter contracts in pyproject.toml) and strict typing.
lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy

test: lint
	$(PY) -m pytest

bench: $(VENV)/.installed-test
	$(PY) -m bench

$(VENV)/.installed-demo: pyproject.toml | $(PY)
	$(PIP) install -e '.[demo]'
	touch $@ $(VENV)/.installed-run

# Play in a browser against a simulated Discord: no token, served on 127.0.0.1 only.
# Options: make demo DEMO_ARGS="--language ru --port 9000"
demo: $(VENV)/.installed-demo
	$(PY) -m bot.demo $(DEMO_ARGS)

$(VENV)/.installed-screenshots: pyproject.toml | $(PY)
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(PIP) install -e '.[demo,screenshots]'
	touch $@ $(VENV)/.installed-run

# Regenerate docs/lobby.png, turn.png, scorecard.png and final.png from the bot's messages.
screenshots: $(VENV)/.installed-screenshots
	$(PY) tools/screenshots.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
