# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
# `make demo` installs the runtime only (`pip install valuechain`: what the demo needs);
# `make test`, `make lint` and `make bench` add the dev extra to the same .venv. Each layer has
# its stamp, so `make demo` then `make test` upgrades the venv rather than rebuilding it.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
BASE   := $(VENV)/.installed-base
DEV    := $(VENV)/.installed-dev

.PHONY: demo test lint docs bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(BASE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# newer than the base stamp or reinstalled: a changed pyproject.toml reaches both layers
$(DEV): $(BASE)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(BASE)
	$(BIN)/valuechain demo
	@echo
	@echo "valuechain is installed in $(VENV). Run it by its path:  $(BIN)/valuechain --help"
	@echo "or activate the venv first:  source $(BIN)/activate  then  valuechain --help"

test: $(DEV)
	$(BIN)/python -m pytest -n 2 -q

lint: $(DEV)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy --strict src
	$(BIN)/lint-imports

# the site in site/; it must name no script or stylesheet on the web (it reads offline)
docs: $(DEV)
	$(BIN)/mkdocs build --strict --quiet
	! grep -rlE '<(script|link)[^>]+(src|href)="https?://' site

bench: $(DEV)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist site valuechain-demo.duckdb*
