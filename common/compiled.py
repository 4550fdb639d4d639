"""Reads on a hot path, compiled by the ORM once per database connection and run with new values.

Building a queryset with joins and EXISTS clauses costs the ORM more than PostgreSQL spends running it (about 2 ms
for the rating check's query against 1 ms in the database). A `CompiledQuery` keeps the rule where it is written —
the selector's `Q` objects — and compiles it once: the queryset is built with unique sentinel values in place of
its parameters, the compiler's SQL is kept with the positions of those sentinels among its parameters, and each
run sends that SQL with the new values in those positions, converting the rows as the ORM would.

Parameters are integers (primary and foreign keys), UUIDs or datetimes: values whose place in the SQL never depends
on the value itself (no `None`, no lists).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import psycopg
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators
from django.db.models.sql.compiler import SQLCompiler
from django.db.transaction import TransactionManagementError

M = TypeVar("M", bound=Model)
_sentinel_numbers = itertools.count(1)
_sentinel_lock = threading.Lock()


def _sentinel(kind: type) -> Any:
    """A value no query of the application would carry: an integer above any key it will reach, a random UUID, a
    moment in 1901."""
    with _sentinel_lock:
        number = next(_sentinel_numbers)
    if kind is int:
        # Within the range of every integer column but SmallIntegerField's: the ORM drops or rewrites a comparison
        # with a value its column cannot hold.
        return 2_146_000_000 + number
    if kind is uuid.UUID:
        return uuid.uuid4()
    if kind is datetime:
        return datetime(1901, 1, 1, tzinfo=UTC) + timedelta(microseconds=number)
    raise TypeError(f"a compiled query's parameter is an int, a uuid.UUID or a datetime, not {kind.__name__}")


PARAMETER_TYPES = (int, uuid.UUID, datetime)


def _as_sent(value: Any, connection: BaseDatabaseWrapper) -> tuple[tuple[Any, Callable[[Any], Any]], ...]:
    """The forms the ORM may have given `value` among the parameters, each with the conversion that gives it: the
    value itself, a UUID's hex (databases without a UUID type), a datetime as the backend adapts it. Integers go to
    PostgreSQL as bigint whatever their size, so that a statement is prepared once and not once per integer type."""
    if isinstance(value, int) and connection.vendor == "postgresql":
        from psycopg.types.numeric import Int8

        return ((value, Int8),)
    if isinstance(value, uuid.UUID):
        return ((value, _same), (value.hex, _hex))
    if isinstance(value, datetime):
        adapt = connection.ops.adapt_datetimefield_value
        return ((value, _same), (adapt(value), adapt))
    return ((value, _same),)


def _same(value: Any) -> Any:
    return value


def _hex(value: uuid.UUID) -> str:
    return value.hex


@dataclass(frozen=True)
class _Compiled:
    compiler: SQLCompiler
    sql: str
    params: tuple
    slots: tuple[tuple[int, str, Callable[[Any], Any]], ...]  # (position, parameter name, conversion)

    @functools.cached_property
    def instance_plan(self) -> tuple[type[Model], int, int, list[str], list]:
        """How `ModelIterable` turns a row into the model instance and its `select_related` objects."""
        klass_info, select = self.compiler.klass_info, self.compiler.select
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        init_list = [column[0].target.attname for column in select[start:end]]
        return (klass_info["model"], start, end, init_list,
                get_related_populators(klass_info, select, self.compiler.connection.alias))

    @functools.cached_property
    def converters(self) -> dict:
        """The columns' converters, found once: the compiler's `results_iter` looks them up for every column of
        every run (about 5 % of the rating page's CPU in a profile)."""
        compiler = self.compiler
        return compiler.get_converters([column[0] for column in compiler.select[0:compiler.col_count]])

    def converted(self, fetched: list[tuple], tuple_expected: bool = False) -> list:
        """The fetched rows as `results_iter` converts them."""
        if not self.converters:
            return fetched
        rows = self.compiler.apply_converters(fetched, self.converters)
        return list(map(tuple, rows) if tuple_expected else rows)

    def instances(self, fetched: list[tuple], using: str) -> list[Any]:
        """The fetched rows as model instances, built as Django's `ModelIterable` builds them."""
        model, start, end, init_list, populators = self.instance_plan
        annotations = self.compiler.annotation_col_map
        found = []
        for row in self.converted(fetched):
            obj = model.from_db(using, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            for name, position in annotations.items():
                setattr(obj, name, row[position])
            found.append(obj)
        return found


class CompiledQuery:
    """`build(**parameters)` returns the queryset: a `values_list` one for `rows`/`first`, one of model instances for
    `objects`. Everything else the build computes is fixed at compile time (never call `timezone.now()` there: pass
    the moment as a parameter).

    Compiled per connection (each thread has its own), on first use — inside the caller's transaction, since a
    `select_for_update` queryset compiles only there (and each later run checks it is in one)."""

    def __init__(self, build: Callable[..., QuerySet], **parameters: type) -> None:
        unknown = {name: kind for name, kind in parameters.items() if kind not in PARAMETER_TYPES}
        if unknown:
            raise TypeError(f"a compiled query's parameters are ints, UUIDs or datetimes, not {unknown}")
        self.build = build
        self.parameters = parameters
        self._key = object()  # where each connection keeps this query compiled

    def _compile(self, connection: BaseDatabaseWrapper) -> _Compiled:
        sentinels = {name: _sentinel(kind) for name, kind in self.parameters.items()}
        compiler = self.build(**sentinels).query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        slots = []
        forms = {name: _as_sent(sentinel, connection) for name, sentinel in sentinels.items()}
        for position, param in enumerate(params):
            slots.extend(next(([(position, name, convert)] for name, sent_forms in forms.items()
                               for form, convert in sent_forms if type(param) is type(form) and param == form), []))
        missing = set(sentinels) - {name for _, name, _ in slots}
        if missing:
            raise ImproperlyConfigured(f"compiled query: the SQL carries no parameter for {sorted(missing)}")
        return _Compiled(compiler, sql, tuple(params), tuple(slots))

    def _statement(self, connection: BaseDatabaseWrapper, values: dict[str, Any]) -> tuple[_Compiled, list]:
        """The compiled query for `connection` and its parameters with `values` in their places."""
        if set(values) != set(self.parameters):
            raise TypeError(f"expected the values of {sorted(self.parameters)}, got {sorted(values)}")
        # Kept on the connection object itself: it goes with it (a dictionary keyed by connection would keep every
        # thread's connection alive through the compilers that refer to it).
        kept = connection.__dict__.setdefault("compiled_queries", {})
        compiled = kept.get(self._key)
        if compiled is None:
            compiled = kept[self._key] = self._compile(connection)
        if compiled.compiler.query.select_for_update and connection.get_autocommit():
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        params = list(compiled.params)
        for position, name, convert in compiled.slots:
            params[position] = convert(values[name])
        return compiled, params

    def sql(self, using: str = "default", **values: Any) -> tuple[str, list]:
        """The statement and its parameters, run by nothing: for plain SQL of the caller's around the ORM's
        selection (a subquery in its FROM), which then costs no building and no compiling either."""
        compiled, params = self._statement(connections[using], values)
        return compiled.sql, params

    def _run(self, using: str, values: dict[str, Any]) -> tuple[_Compiled, list]:
        connection = connections[using]
        compiled, params = self._statement(connection, values)
        with _cursor(connection) as cursor:
            cursor.execute(compiled.sql, params)
            return compiled, cursor.fetchall()

    def rows(self, using: str = "default", **values: Any) -> list[tuple]:
        """The rows of a `values_list` queryset, converted as it would convert them."""
        compiled, fetched = self._run(using, values)
        return compiled.converted(fetched, tuple_expected=True)

    def first(self, using: str = "default", **values: Any) -> tuple | None:
        found = self.rows(using, **values)
        return found[0] if found else None

    def objects(self, using: str = "default", **values: Any) -> list[Any]:
        """The model instances of a queryset of instances, built as iterating it would build them (Django's
        `ModelIterable`): deferred fields, `select_related` objects and annotations included."""
        compiled, fetched = self._run(using, values)
        return compiled.instances(fetched, using)


def rows_together(*runs: tuple[CompiledQuery, dict[str, Any]], using: str = "default") -> list[list[tuple]]:
    """The rows of several `values_list` compiled queries, sent to PostgreSQL in one round trip (`sent_together`)."""
    return [fetched.rows() for fetched in sent_together(*runs, using=using)]


@dataclass(frozen=True)
class Fetched:
    """What one compiled query sent with others fetched: its rows (`values_list` queries) or its instances."""

    compiled: _Compiled
    fetched: list[tuple]
    using: str

    def rows(self) -> list[tuple]:
        return self.compiled.converted(self.fetched, tuple_expected=True)

    def objects(self) -> list[Any]:
        return self.compiled.instances(self.fetched, self.using)


def sent_together(*runs: tuple[CompiledQuery, dict[str, Any]], using: str = "default") -> list[Fetched]:
    """Several compiled queries sent to PostgreSQL in one round trip (a psycopg pipeline): each statement still runs
    on its own and in order, with its own snapshot, so a query after one that waits for a row lock sees what was
    committed meanwhile. Elsewhere (or with PREPARED_HOT_PATH off) they run one after the other. In a transaction
    the caller began that has sent nothing yet, psycopg sends its BEGIN first and waits for its answer: one round
    trip more, the price of using psycopg's documented interface only."""
    connection = connections[using]
    if connection.vendor != "postgresql" or not settings.PREPARED_HOT_PATH:
        return [Fetched(*query._run(using, values), using) for query, values in runs]
    statements = [query._statement(connection, values) for query, values in runs]
    cursors = [_cursor(connection) for _ in statements]
    with connection.wrap_database_errors:
        with connection.connection.pipeline():
            for cursor, (compiled, params) in zip(cursors, statements, strict=True):
                cursor.execute(compiled.sql, params)
        found = []
        for cursor, (compiled, _) in zip(cursors, statements, strict=True):
            found.append(Fetched(compiled, cursor.fetchall(), using))
            cursor.close()
    return found


def loaded(model: type[M], field_names: Sequence[str], values: Sequence, using: str = "default") -> M:
    """An instance of `model` as `.only(*field_names)` would load it from a row of `values` (the other fields
    deferred: read from the database if ever asked for)."""
    given = dict(zip(field_names, values, strict=True))
    names = [field.attname for field in model._meta.concrete_fields if field.attname in given]
    if len(names) != len(given):
        raise ImproperlyConfigured(f"not concrete fields of {model.__name__}: {sorted(set(given) - set(names))}")
    return model.from_db(using, names, [given[name] for name in names])


def execute(sql: str, params: Sequence, using: str = "default") -> int:
    """Run one write of a hot path (`%s` placeholders) as a prepared statement; the number of rows it touched."""
    with _cursor(connections[using]) as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def insert(obj: Model, using: str = "default", *, along: Sequence[tuple[str, Sequence]] = ()) -> None:
    """INSERT a new model instance as `save()` would store it (`pre_save`, then each field's database value), as a
    prepared statement, and set its primary key. No `pre_save`/`post_save` signal is sent: for models nothing
    listens to (a rating), like `bulk_create`.

    `along` are more writes (`%s` placeholders, their parameters) of other tables: on PostgreSQL they go in the same
    statement, as data-modifying WITH clauses (one round trip, one statement, for all). All run on the same
    snapshot, so the other writes must not depend on the inserted row or on each other; elsewhere they run after the
    INSERT."""
    if obj.pk is not None:
        raise ValueError(f"insert() stores a new {type(obj).__name__}: its primary key comes from the database")
    connection = connections[using]
    meta = obj._meta
    fields = [field for field in meta.concrete_fields if field is not meta.auto_field and not field.generated]
    params = [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]
    together = connection.vendor == "postgresql"
    sql = _insert_sql(type(obj), connection, tuple(write for write, _ in along) if together else ())
    with _cursor(connection) as cursor:
        cursor.execute(sql, [*params, *(value for _, values in along for value in values)] if together else params)
        obj.pk = cursor.fetchone()[0]
    obj._state.adding = False
    obj._state.db = using
    if not together:
        for write in along:
            execute(*write, using=using)


_insert_statements: dict[tuple[type[Model], str, tuple[str, ...]], str] = {}


def _insert_sql(model: type[Model], connection: BaseDatabaseWrapper, along: tuple[str, ...] = ()) -> str:
    key = (model, connection.vendor, along)
    if key not in _insert_statements:
        insert_sql = _build_insert_sql(model, connection.ops.quote_name)
        writes = "".join(f", along{index} AS ({write})" for index, write in enumerate(along))
        _insert_statements[key] = (f"WITH inserted AS ({insert_sql}){writes} SELECT * FROM inserted" if along
                                   else insert_sql)
    return _insert_statements[key]


def _build_insert_sql(model: type[Model], quote: Callable[[str], str]) -> str:
    meta = model._meta
    columns = [field.column for field in meta.concrete_fields if field is not meta.auto_field and not field.generated]
    return (f"INSERT INTO {quote(meta.db_table)} ({', '.join(map(quote, columns))}) "
            f"VALUES ({', '.join(['%s'] * len(columns))}) RETURNING {quote(meta.pk.column)}")


class PreparingCursor(psycopg.Cursor):
    """psycopg's own cursor (parameters bound by the server), preparing every statement it runs with psycopg's
    documented `prepare=True`; psycopg keeps the prepared statements per connection. Django's query log composes
    its text as it does under server-side binding (common.postgresql.DatabaseOperations)."""

    def execute(self, query, params=None, *, prepare=None, binary=None):
        return super().execute(query, params, prepare=True, binary=binary)


def _cursor(connection: BaseDatabaseWrapper):
    """Django's cursor, or on PostgreSQL (unless turned off) a `PreparingCursor` in Django's own wrapper (so query
    counts and logs see what it runs), made through the connection's public methods."""
    if connection.vendor != "postgresql" or not settings.PREPARED_HOT_PATH:
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    with connection.wrap_database_errors:
        cursor = PreparingCursor(connection.connection)
    return connection.make_debug_cursor(cursor) if connection.queries_logged else connection.make_cursor(cursor)
