# Two entry points for a fresh machine with Python 3.11 and pip (as a user or as root):
#   make lab    create .venv if needed, then open JupyterLab on the notebook collection
#   make test   create .venv if needed, then run ruff and the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WARM := $(VENV)/.warm
# JupyterLab refuses to start as root unless told; root is the normal user in containers
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
# the files the compiled fast engine is built from: a change recompiles it at set-up
ENGINE_SOURCES := $(wildcard iosim/engine/*.py iosim/devices/*.py) iosim/dists.py

.PHONY: lab test lint bench validate gallery clean browser

$(STAMP): pyproject.toml
	@echo "iosim set-up: creating $(VENV) and installing the dependencies (a few minutes, once)..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	touch $(STAMP)

$(WARM): $(STAMP) $(ENGINE_SOURCES)
	$(BIN)/python -m iosim.warmup
	touch $(WARM)

lab: $(WARM)
	@echo "iosim: opening JupyterLab on notebooks/00_start_here.ipynb (Ctrl-C to stop)"
	$(BIN)/jupyter lab $(ALLOW_ROOT) --notebook-dir=notebooks notebooks/00_start_here.ipynb

lint: $(STAMP)
	$(BIN)/ruff check iosim tests benchmarks

# The browser tests drive Debian's chromium (no browser download: this machine's network only
# reaches the package registries). Installed when missing and we are root; else they skip.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "iosim set-up: installing Debian's chromium for the browser tests..."; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "note: could not install chromium; browser tests will skip"; \
	  else echo "note: /usr/bin/chromium missing (apt-get install chromium); browser tests will skip"; fi; \
	fi

test: lint browser $(WARM)
	$(BIN)/python -m pytest

bench: $(WARM)
	$(BIN)/python benchmarks/engine.py

# the accuracy table: every data set and corpus sweep, calibrated points apart (docs/validation.md)
validate: $(WARM)
	$(BIN)/iosim validate -o docs/validation.md

# every plot kind rendered to PNG (test-artifacts/gallery/index.html), to look at after a change
gallery: $(WARM)
	$(BIN)/python -m iosim.gallery test-artifacts/gallery

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
