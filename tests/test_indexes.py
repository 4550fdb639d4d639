"""The project's tables carry no index that another index already provides.

Django indexes every foreign key on its own; where a composite index or unique constraint starts with that key, the
single-column index serves no lookup the composite does not, and every insert — and every update of an indexed
column (a rating moves its assignment's state, which assignment_queue_order holds) — writes it for nothing.
"""

from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="reads PostgreSQL's catalog"),
]

# Plain btree indexes (not unique, not partial, not on expressions) with their columns and operator classes: an
# index is redundant when another of the same table starts with the same columns under the same operator classes
# (a `varchar_pattern_ops` index for LIKE is not covered by a plain one).
INDEXES = """
SELECT t.relname, c.relname, i.indkey::int2[], i.indclass::oid[], i.indisunique,
       i.indpred IS NOT NULL OR i.indexprs IS NOT NULL
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_am am ON am.oid = c.relam
WHERE t.relname = ANY(%s) AND am.amname = 'btree'
"""


def own_tables() -> list[str]:
    """Tables of the project's own models; Django's automatic many-to-many tables and other packages' are theirs."""
    base = Path(settings.BASE_DIR).resolve()
    own = [config for config in apps.get_app_configs() if Path(config.path).resolve().is_relative_to(base)
           and "site-packages" not in Path(config.path).parts]
    return sorted({model._meta.db_table for config in own for model in config.get_models()
                   if not model._meta.auto_created})


def test_no_index_of_the_projects_tables_is_the_start_of_another():
    with connection.cursor() as cursor:
        cursor.execute(INDEXES, [own_tables()])
        indexes = cursor.fetchall()
    redundant = []
    for table, name, columns, classes, unique, partial in indexes:
        if unique or partial:
            continue
        width = len(columns)
        covering = [other for other_table, other, other_columns, other_classes, _unique, other_partial in indexes
                    if other_table == table and other != name and not other_partial
                    and list(other_columns[:width]) == list(columns) and list(other_classes[:width]) == list(classes)]
        if covering:
            redundant.append(f"{table}.{name} (led by {', '.join(covering)})")
    assert own_tables()
    assert redundant == []


def test_a_speakers_and_an_items_assignments_are_still_found_through_an_index():
    """The lookups the dropped single-column indexes served use the composites that start with the same column."""
    from review.models import Assignment

    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for column, index in (("speaker_id", "assignment_queue_order"), ("item_id", "assignment_one_per_item_speaker")):
            cursor.execute(f"EXPLAIN SELECT id FROM {Assignment._meta.db_table} WHERE {column} = 1")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert index in plan, plan


def test_only_withdrawn_ratings_are_in_the_withdrawal_index():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_indexdef('rating_withdrawn'::regclass)")
        definition = cursor.fetchone()[0]
    assert "WHERE (withdrawal_id IS NOT NULL)" in definition
