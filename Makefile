# Champollion Review — the two commands: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000

.PHONY: run test test-fast test-compat lint install install-test migrate demo bench bench-tools gate-check check-deploy worker beat clean messages print-site-base-url

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The pinned dependencies of pyproject.toml (and of an extra, e.g. `test`), one per line: the project itself is an
# application run from its checkout, not a package to build and install (which only printed setuptools warnings).
REQUIREMENTS = $(BIN)/python -c 'import sys, tomllib; project = tomllib.load(open("pyproject.toml", "rb"))["project"]; 	print("\n".join(project["dependencies"] + [p for extra in sys.argv[1:] for p in project["optional-dependencies"][extra]]))'

install: $(BIN)/python
	$(REQUIREMENTS) > $(VENV)/requirements.txt
	$(BIN)/pip install --quiet -r $(VENV)/requirements.txt

install-test: $(BIN)/python
	$(REQUIREMENTS) test > $(VENV)/requirements-test.txt
	$(BIN)/pip install --quiet -r $(VENV)/requirements-test.txt

migrate: install
	$(BIN)/python manage.py migrate --noinput

# The address links in e-mails and printed invitations point to (the demo's too).
SITE_BASE_URL ?= http://127.0.0.1:$(PORT)
export SITE_BASE_URL

print-site-base-url:
	@echo "$$SITE_BASE_URL"

demo: migrate
	$(BIN)/python manage.py load_demo

## Install, migrate, load the human-authored demo data and serve on http://127.0.0.1:$(PORT)/
run: demo
	@echo "Open $(SITE_BASE_URL)/ (demo accounts: README.md)."
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

## Install test dependencies, check the code (lint) and run the whole suite (DATABASE_URL / CELERY_BROKER_URL
## select PostgreSQL / Redis) in TEST_WORKERS processes (pytest-xdist; each its own test database, cache keys and
## Celery queue: tests/workers.py; a module's tests in one of them, so its browser starts once; 0: one process),
## then the tests marked `alone` (one restarts PostgreSQL) by themselves; pytest's 5 is "none of them selected".
TEST_WORKERS ?= 2
test: lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not alone" $(PYTEST_ARGS)
	$(BIN)/python -m pytest -m alone $(PYTEST_ARGS) || [ $$? -eq 5 ]

## The edit–test loop: the suite on SQLite (in-process cache, eager Celery tasks) in parallel (pytest-xdist,
## TEST_FAST_WORKERS processes, an idle one taking tests queued for another); nothing but Python needed (no
## PostgreSQL, Redis, Chromium, Node.js or gettext). About 110 CPU-seconds across its processes: 57 to 60 seconds
## on two otherwise idle cores. It leaves out what only `make test` runs: the browser tests, the tests marked `slow`
## (the walks of every URL as each persona, the API fuzzing, the migrations run back and forth, the harness CLI
## against a live server, the gate's calibration simulations, upstream's bootstrap recomputed, the Python processes
## started in production mode) and those that need PostgreSQL or a Celery worker (concurrency, row locks, prepared
## statements, triggers, a killed worker, the database restart), which skip without them. Consecutive tests that
## start from the same conftest fixtures share them (SHARED_FIXTURES=1, tests/shared_world.py; `make test` does not:
## its live servers and threads use connections of their own). Each worker's migrated test database is kept in
## .test-databases/ and made again when a migration changes (PYTEST_ARGS=--create-db makes it again anyway);
## bytecode and pytest's rewritten test modules are kept in __pycache__/ even where PYTHONDONTWRITEBYTECODE is set,
## so that a run does not compile them again.
TEST_FAST_WORKERS ?= auto
TEST_FAST_ENV := env -u DATABASE_URL -u REDIS_CACHE_URL -u CELERY_BROKER_URL -u REQUIRE_POSTGRES -u REQUIRE_BROWSER \
	-u REQUIRE_GETTEXT -u REQUIRE_NODE -u ALLOW_POSTGRES_RESTART -u PYTHONDONTWRITEBYTECODE
test-fast: install-test
	$(TEST_FAST_ENV) SHARED_FIXTURES=1 $(BIN)/python -m pytest -q -n $(TEST_FAST_WORKERS) --dist worksteal --reuse-db -m "not browser and not slow" \
		$(PYTEST_ARGS)

## The hot path's tests (compiled and prepared queries, the rating page) and every query-count test, with the oldest
## and the newest releases of Django and psycopg within pyproject.toml's supported ranges, each in a venv of its own
## that reads the rest of .venv's packages; a bound whose releases are the pinned ones is skipped. .ci/run runs it.
COMPAT_TESTS := tests/test_hot_path.py tests/test_rate_page.py
test-compat: install-test
	@for bound in oldest newest; do \
	  reqs=$$($(BIN)/python scripts/compat_versions.py $$bound) || exit 1; \
	  if [ -z "$$reqs" ]; then echo "test-compat: the $$bound supported releases are the pinned ones"; continue; fi; \
	  env=.venv-compat-$$bound; rm -rf $$env; $(PYTHON) -m venv $$env || exit 1; \
	  $$env/bin/python -m pip install --quiet --no-deps $$reqs || exit 1; \
	  $(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" \
	    > $$($$env/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/shared-venv.pth; \
	  $$env/bin/python -c "import django, psycopg; print('test-compat ($$bound): Django', django.get_version(), \
	    '· psycopg', psycopg.__version__)"; \
	  $$env/bin/python -m pytest -p no:cacheprovider -q $(COMPAT_TESTS) || exit 1; \
	  $$env/bin/python -m pytest -p no:cacheprovider -q tests -k "query or queries" || exit 1; \
	done

## ruff (pinned configuration in pyproject.toml), the layer contracts (import-linter) and mypy on services and
## selectors (django-stubs); docs/architecture.md
lint: install-test
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

## The benchmark report (docs/performance.md): the rating loop, leaderboard and decision page under load against a
## bare view, import vs COPY, ingest vs sacrebleu, memory, queries per page, in interleaved rounds; drops and
## creates PostgreSQL champollion_bench (BENCH_DATABASE_URL); installs wrk first (bench-tools). Prints the goals
## and tables, writes bench/results.json and the results block of docs/performance.md; then runs the gate's
## calibration suite (gate-check below).
bench: install-test bench-tools
	$(BIN)/python scripts/bench.py --docs docs/performance.md --gate-check-docs docs/validation-gate.md $(BENCH_ARGS)

## wrk, the benchmark's HTTP load generator: installed with apt-get when missing (as root on Debian or Ubuntu),
## otherwise named with how to install it, before anything else runs.
bench-tools:
	@command -v wrk >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; } \
	  || { echo "make bench needs wrk, the HTTP load generator: apt-get install wrk (Debian, Ubuntu)," \
	       "brew install wrk (macOS)" >&2; exit 1; }

## The Deployable validation gate's calibration suite: every design the campaign form allows, simulated through the
## real aggregation and gate (false passes at the threshold, coverage, the chance of a pass); writes
## bench/gate_check.json and the generated table of docs/validation-gate.md. About five minutes on two cores.
gate-check: install
	$(BIN)/python scripts/gate_check.py --docs docs/validation-gate.md $(GATE_CHECK_ARGS)

## Refresh the French (Canada) catalogs from the code and compile them (needs GNU gettext: apt-get install gettext).
## Translations are written by hand in locale/fr_CA/LC_MESSAGES/*.po; the suite fails on any string left untranslated.
MESSAGES_IGNORE := --ignore=tests --ignore=scripts --ignore=staticfiles --ignore=bench --ignore=docs --ignore=media
messages: install
	$(BIN)/python manage.py makemessages -l fr_CA --no-obsolete $(MESSAGES_IGNORE)
	$(BIN)/python manage.py makemessages -d djangojs -l fr_CA --no-obsolete $(MESSAGES_IGNORE)
	$(BIN)/python manage.py compilemessages -l fr_CA --ignore=.venv

check-deploy: install
	DJANGO_ENV=production SECRET_KEY=$$(openssl rand -hex 32) ALLOWED_HOSTS=review.example.org \
		REDIS_CACHE_URL=$${REDIS_CACHE_URL:-redis://127.0.0.1:6379/1} MFA_ENCRYPTION_KEY=$$(openssl rand -hex 32) \
		$(BIN)/python manage.py check --deploy --fail-level WARNING

worker: install
	$(BIN)/celery -A config worker --loglevel=info

beat: install
	$(BIN)/celery -A config beat --loglevel=info

clean:
	rm -rf $(VENV) staticfiles db.sqlite3 .pytest_cache
