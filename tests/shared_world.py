"""The rows consecutive tests start from alike, made once for all of them.

Most tests start from the same rows: the steward, its governance staff, a gold-standard run card, a pool of
speakers, made by the conftest's fixtures through the services (a card alone took about 80 ms, and some 200 tests
made one). The fixtures defined with `shared_fixture` (tests/conftest.py; a module's own may be too) are made
outside the test's transaction, each in a transaction of its own (a savepoint) within the one of the fixture made
before it, and these stay open for the next tests: a test starting from the same fixtures, made in the same order,
finds them made; one starting from the first few of them has the others rolled back; one starting from others has
them rolled back and its own made. The test itself still runs in a transaction of its own (pytest-django's, a
savepoint within these) and leaves nothing behind. A test run outside a transaction (`transactional_db`,
`live_server`, ...) has every shared fixture rolled back first and makes its own.

Only the beginning of a test's fixtures, in the order pytest makes them, is shared: shared fixtures and fixtures
that write nothing (INERT); from the first other one on (a module's own, `eager_tasks`, ...), the test makes its
fixtures itself, as before. So a test starts from the rows it would have made, by the same calls in the same order.
Each test gets its own deep copy of the objects, as they were when made (objects remember what they read), and
finds in its outbox copies of the e-mails sent while they were made. Caches are emptied before each test
(`clean_cache`): what making the shared fixtures cached is gone, as a cache may lose anything.

Only `make test-fast` shares (SHARED_FIXTURES=1: SQLite, no browser, no second connection). `make test` makes every
test's fixtures itself: its browser tests and threads open connections of their own, which would wait for ever on
rows the shared fixtures' open transaction holds (a live server inserting the same organization).
"""
import copy
import os
from collections.abc import Callable
from typing import Any

from _pytest.python import get_direct_param_fixture_func
from django.core import mail
from django.db import transaction
from django.test.utils import override_settings

FAST_HASHER = ["django.contrib.auth.hashers.MD5PasswordHasher"]
MISSING = object()  # the value of a shared fixture the test makes itself
SHARING = os.environ.get("SHARED_FIXTURES") == "1"

# Fixtures that make no rows and change nothing the shared fixtures read.
INERT = frozenset({
    "request", "db", "_django_db_marker", "_django_db_helper", "django_db_setup", "django_db_blocker",
    "django_db_modify_db_settings", "django_db_modify_db_settings_parallel_suffix",
    "django_db_modify_db_settings_tox_suffix", "django_db_modify_db_settings_xdist_suffix",
    "django_db_use_migrations", "django_db_keepdb", "django_db_createdb", "django_test_environment",
    "_django_setup_unittest", "_dj_autoclear_mailbox", "_django_clear_site_cache", "_django_set_urlconf",
    "_fail_for_invalid_template_variable", "_template_string_if_invalid_marker", "_django_isolate_apps",
    "_live_server_helper", "django_user_model", "django_username_field",
    "mailoutbox", "django_mail_patch_dns", "django_mail_dnsname", "client", "async_client", "rf", "async_rf",
    "settings", "monkeypatch", "tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory", "caplog", "capsys",
    "capfd", "recwarn", "pytestconfig", "worker_id", "testrun_uid", "django_assert_num_queries",
    "django_assert_max_num_queries", "django_capture_on_commit_callbacks", "shared_world", "media_folders",
    # The conftest's own autouse fixtures: settings and patches the shared fixtures do not depend on.
    "fast_password_hashing", "uploads_in_a_temporary_folder", "force_login_proves_the_second_factor",
    "roomy_api_rates", "clean_cache", "default_language", "totp_clock",
})

# A shared fixture's function (as pytest holds it) → (the function making its value, the fixtures it takes); filled
# by `shared_fixture` in the conftest, which the conftest's fixtures and a module's own can be defined with.
SHARED: dict[Callable[..., Any], tuple[Callable[..., Any], tuple[str, ...]]] = {}
# Fixtures whose value a shared fixture takes and that are computed, not made (`pool_size`): their value is part of
# what the shared rows are.
VALUES = ("pool_size",)


def transactional(item) -> bool:
    """Whether pytest-django runs the test outside a transaction (its own rule), or with models of its own."""
    if item.get_closest_marker("isolate_apps") is not None:
        return True
    marker = item.get_closest_marker("django_db")
    if marker is not None and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")
                               or marker.kwargs.get("serialized_rollback") or (marker.args and marker.args[0])):
        return True
    return bool({"transactional_db", "live_server", "django_db_reset_sequences",
                 "django_db_serialized_rollback"} & set(item.fixturenames))


def creation_order(item) -> list[tuple[str, Any]]:
    """The test's fixtures in the order pytest makes them (each after those it takes), with their definitions. A
    fixture taking a fixture of its own name, directly or through others (a module's `card` taking the conftest's
    `public_card`, which takes `card`), gets the definition one level up, as pytest gives it."""
    definitions = item._fixtureinfo.name2fixturedefs
    order: list[tuple[str, Any]] = []
    made: set[tuple[str, int]] = set()
    levels: dict[str, int] = {}

    def visit(name: str) -> None:
        stack = definitions.get(name)
        level = levels.get(name, 0) - 1
        if not stack or -level > len(stack) or (name, level) in made:
            return
        made.add((name, level))
        definition = stack[level]
        levels[name] = level
        for argument in definition.argnames:
            visit(argument)
        levels[name] = level + 1
        order.append((name, definition))

    for name in item.fixturenames:
        visit(name)
    return order


def plan(item) -> list[tuple[tuple, Callable[..., Any], dict[str, Any]]]:
    """The shared fixtures `item` starts from, in the order they are made: (what identifies each, its function, the
    computed values it takes); empty when it shares nothing."""
    if transactional(item):
        return []
    levels: list[tuple[tuple, Callable[..., Any], dict[str, Any]]] = []
    values: dict[str, Any] = {}
    made: set[str] = set()  # a shared fixture takes only shared ones made before it, and computed values
    for name, definition in creation_order(item):
        if name in VALUES:
            if definition.argnames or definition.params is not None:
                break
            values[name] = definition.func()
        elif definition.func in SHARED and set(SHARED[definition.func][1]) <= {"db", *values, *made}:
            taken = {argument: values[argument] for argument in SHARED[definition.func][1] if argument in values}
            identity = (name, definition.func.__module__, definition.func.__qualname__, tuple(sorted(taken.items())))
            levels.append((identity, definition.func, taken))
            made.add(name)
        elif name not in INERT and definition.func is not get_direct_param_fixture_func:  # a parametrized value
            break
    return levels


class SharedWorld:
    """The shared fixtures made, each in a transaction of its own (a savepoint) within the one before: a test
    starting from the first ones keeps them and has the others rolled back."""

    def __init__(self, blocker, media_root):
        self.blocker = blocker
        self.media_root = media_root
        # (what identifies it, its function, its transaction, a copy of every shared fixture's value as it stood
        # once this one was made, with the e-mails sent while each was made): a later fixture may change an
        # earlier one's object, and a test starting from the earlier ones must not see that.
        self.levels: list[tuple[tuple, Callable[..., Any], transaction.Atomic, dict]] = []
        self.copied: tuple[str, dict[Callable[..., Any], tuple[Any, list]]] = ("", {})

    def prepare(self, item) -> None:
        """Before the test's own transaction starts: the shared fixtures it starts from, made when they are not
        already (those made after the first one that differs are rolled back first)."""
        wanted = plan(item) if SHARING else []
        kept = 0
        while (kept < len(self.levels) and kept < len(wanted)
               and self.levels[kept][0] == wanted[kept][0]):
            kept += 1
        self.close(keep=kept)
        self.copied = ("", {})
        if kept == len(wanted):
            return
        made = copy.deepcopy(self.levels[kept - 1][3]) if kept else {}
        taken = {identity[0]: made[function][0] for identity, function, _, _ in self.levels}
        with self.blocker.unblock():
            try:
                # What the conftest's autouse fixtures set for each test, before its fixtures are made.
                with override_settings(PASSWORD_HASHERS=FAST_HASHER, MEDIA_ROOT=self.media_root):
                    for identity, function, values in wanted[kept:]:
                        atomic = transaction.atomic()
                        atomic.__enter__()
                        self.levels.append((identity, function, atomic, {}))
                        make, arguments = SHARED[function]
                        sent = len(mail.outbox)
                        value = make(**{argument: values.get(argument, taken.get(argument))
                                        for argument in arguments})
                        made[function] = (value, mail.outbox[sent:])
                        taken[identity[0]] = value
                        self.levels[-1] = (identity, function, atomic, copy.deepcopy(made))
            except BaseException:
                self.close()
                raise

    def value(self, item, function: Callable[..., Any]) -> Any:
        """The test's own copy of the value of the shared fixture `function`, or MISSING when the test makes it;
        copies of the e-mails sent while it was made go to the test's outbox, as if the test had made it."""
        if self.copied[0] != item.nodeid:
            self.copied = (item.nodeid, copy.deepcopy(self.levels[-1][3]) if self.levels else {})
        value, sent = self.copied[1].get(function, (MISSING, []))
        mail.outbox.extend(sent)
        return value

    def close(self, keep: int = 0) -> None:
        """Roll back the shared fixtures after the first `keep`."""
        if len(self.levels) <= keep:
            return
        with self.blocker.unblock():
            while len(self.levels) > keep:
                atomic = self.levels.pop()[2]
                transaction.set_rollback(True)
                atomic.__exit__(None, None, None)
