"""Reads on a hot path, compiled by the ORM once per database connection and run with new values.

Building a queryset with joins and EXISTS clauses costs the ORM more than PostgreSQL spends running it (about 2 ms
for the rating check's query against 1 ms in the database). A `CompiledQuery` keeps the rule where it is written —
the selector's `Q` objects — and compiles it once: the queryset is built with unique sentinel values in place of
its parameters, the compiler's SQL is kept with the positions of those sentinels among its parameters, and each
run sends that SQL with the new values in those positions, converting the rows as the ORM would.

Parameters are integers (primary and foreign keys) or UUIDs: values whose place in the SQL never depends on the
value itself (no `None`, no lists).

On PostgreSQL the statement is also prepared on each connection (server-side binding), so that PostgreSQL plans it
once per connection instead of on every request: planning the rating check's EXISTS clauses took it several times
longer than running them. `settings.PREPARED_HOT_PATH = False` turns that off (for a connection pooler in
transaction mode that cannot keep prepared statements: PgBouncer before 1.21). Either way the statement runs through
Django's cursor wrapper, so query counts and logging see it.
"""

import functools
import itertools
import threading
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model, QuerySet
from django.db.models.sql.compiler import SQLCompiler

_sentinel_numbers = itertools.count(1)
_sentinel_lock = threading.Lock()


def _sentinel(kind: type) -> Any:
    """A value no query of the application would carry: far below any key, or a random UUID."""
    if kind is int:
        with _sentinel_lock:
            return -7_340_000_000_000 - next(_sentinel_numbers)
    if kind is uuid.UUID:
        return uuid.uuid4()
    raise TypeError(f"a compiled query's parameter is an int or a uuid.UUID, not {kind.__name__}")


@dataclass(frozen=True)
class _Compiled:
    compiler: SQLCompiler
    sql: str
    params: tuple
    slots: tuple[tuple[int, str, bool], ...]  # (position among the params, parameter name, sent as hex)


class CompiledQuery:
    """`build(**parameters)` returns the queryset (a `values_list` or `values`); `rows(**values)` runs it.

    Compiled per connection object (each thread has its own), on first use — inside the caller's transaction, since
    a `select_for_update` queryset compiles only there."""

    def __init__(self, build: Callable[..., QuerySet], **parameters: type) -> None:
        self.build = build
        self.parameters = parameters
        self._compiled: weakref.WeakKeyDictionary[BaseDatabaseWrapper, _Compiled] = weakref.WeakKeyDictionary()

    def _compile(self, connection: BaseDatabaseWrapper) -> _Compiled:
        sentinels = {name: _sentinel(kind) for name, kind in self.parameters.items()}
        compiler = self.build(**sentinels).query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        slots = []
        for position, param in enumerate(params):
            for name, sentinel in sentinels.items():
                if type(param) is type(sentinel) and param == sentinel:
                    slots.append((position, name, False))
                elif isinstance(sentinel, uuid.UUID) and param == sentinel.hex:
                    slots.append((position, name, True))
        missing = set(sentinels) - {name for _, name, _ in slots}
        if missing:
            raise ImproperlyConfigured(f"compiled query: the SQL carries no parameter for {sorted(missing)}")
        return _Compiled(compiler, sql, tuple(params), tuple(slots))

    def rows(self, using: str = "default", **values: Any) -> list[tuple]:
        """The rows, converted as the queryset would convert them (tuples, in the queryset's column order)."""
        if set(values) != set(self.parameters):
            raise TypeError(f"expected the values of {sorted(self.parameters)}, got {sorted(values)}")
        connection = connections[using]
        compiled = self._compiled.get(connection)
        if compiled is None:
            compiled = self._compiled[connection] = self._compile(connection)
        params = list(compiled.params)
        for position, name, as_hex in compiled.slots:
            params[position] = values[name].hex if as_hex else values[name]
        with _cursor(connection) as cursor:
            cursor.execute(compiled.sql, params)
            fetched = cursor.fetchall()
        return list(compiled.compiler.results_iter([fetched], tuple_expected=True))

    def first(self, using: str = "default", **values: Any) -> tuple | None:
        found = self.rows(using, **values)
        return found[0] if found else None


def execute(sql: str, params: Sequence, using: str = "default") -> int:
    """Run one write of a hot path (`%s` placeholders) as a prepared statement; the number of rows it touched."""
    with _cursor(connections[using]) as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def insert(obj: Model, using: str = "default") -> None:
    """INSERT a new model instance as `save()` would store it (`pre_save`, then each field's database value), as a
    prepared statement, and set its primary key. No `pre_save`/`post_save` signal is sent: for models nothing
    listens to (a rating), like `bulk_create`."""
    connection = connections[using]
    meta = obj._meta
    fields = [field for field in meta.concrete_fields if field is not meta.auto_field and not field.generated]
    sql = _insert_sql(type(obj), connection)
    params = [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]
    with _cursor(connection) as cursor:
        cursor.execute(sql, params)
        obj.pk = cursor.fetchone()[0]
    obj._state.adding = False
    obj._state.db = using


@functools.cache
def _insert_sql(model: type[Model], connection: BaseDatabaseWrapper) -> str:
    meta = model._meta
    quote = connection.ops.quote_name
    columns = [field.column for field in meta.concrete_fields if field is not meta.auto_field and not field.generated]
    return (f"INSERT INTO {quote(meta.db_table)} ({', '.join(map(quote, columns))}) "
            f"VALUES ({', '.join(['%s'] * len(columns))}) RETURNING {quote(meta.pk.column)}")


@functools.cache
def _preparing_cursor_class() -> type:
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        """psycopg's server-binding cursor, preparing every statement it runs (psycopg keeps them per connection)."""

        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True, binary=binary)

        def _send_query_prepared(self, name, pgq, *, binary=None):
            # psycopg keeps the statement's text only for an unprepared run; Django's query log reads it there.
            self._query = pgq
            return super()._send_query_prepared(name, pgq, binary=binary)

    return PreparingCursor


def _cursor(connection: BaseDatabaseWrapper):
    """Django's cursor, or on PostgreSQL (unless turned off) Django's wrapper around a cursor that binds on the
    server and prepares what it runs."""
    if connection.vendor != "postgresql" or not settings.PREPARED_HOT_PATH:
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(_preparing_cursor_class()(connection.connection))
