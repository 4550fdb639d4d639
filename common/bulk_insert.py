"""Fast bulk inserts: COPY on PostgreSQL, bulk_create elsewhere, inside the caller's transaction."""

import json
from collections.abc import Iterable
from itertools import islice
from typing import Any

from django.db import connections, models, router

BATCH_SIZE = 5000


def bulk_insert(model: type[models.Model], field_names: tuple[str, ...], rows: Iterable[tuple[Any, ...]]) -> None:
    """Insert `rows` (values in `field_names` order; foreign keys as primary keys, JSON fields as Python
    values) into `model`'s table.

    On PostgreSQL the rows stream through COPY: bulk_create's per-field preparation of model instances
    took most of a large import's time (docs/benchmarks.md), and COPY holds no batch in memory.
    """
    fields = [model._meta.get_field(name) for name in field_names]
    connection = connections[router.db_for_write(model)]
    if connection.vendor != "postgresql":
        attnames = [field.attname for field in fields]
        pending = iter(rows)
        while batch := list(islice(pending, BATCH_SIZE)):
            model.objects.bulk_create([model(**dict(zip(attnames, row, strict=True))) for row in batch])
        return
    quote = connection.ops.quote_name
    json_positions = [index for index, field in enumerate(fields) if isinstance(field, models.JSONField)]
    statement = (f"COPY {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
                 "FROM STDIN")
    # wrap_database_errors raises django.db errors (IntegrityError, …) as bulk_create would.
    with connection.wrap_database_errors, connection.cursor() as cursor, cursor.copy(statement) as copy:
        for row in rows:
            if json_positions:
                row = list(row)
                for index in json_positions:
                    row[index] = json.dumps(row[index], ensure_ascii=False)
            copy.write_row(row)
