# Two entry points for a fresh machine with Python 3.11 and pip:
#   make lab    create .venv if needed, then open JupyterLab on the notebook collection
#   make test   create .venv if needed, then run ruff and the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test lint bench clean browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks notebooks/00_start_here.ipynb

lint: $(STAMP)
	$(BIN)/ruff check iosim tests benchmarks

# The browser tests drive Debian's chromium (no browser download: this machine's network only
# reaches the package registries). Installed when missing and we are root; else they skip.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "note: could not install chromium; browser tests will skip"; \
	  else echo "note: /usr/bin/chromium missing (apt-get install chromium); browser tests will skip"; fi; \
	fi

test: lint browser
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
