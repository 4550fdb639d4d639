"""The leaderboard's state stamp: database triggers that give `LeaderboardState.stamp` a new random value in the
same transaction as any write the public leaderboard depends on (so readers never wait, and a cache keyed by the
stamp can't outlive the data it was computed from — whether the write came through the ORM, a bulk `update()`,
the admin or SQL).

Writes that cannot change a listed row fire nothing: a run card inserted while it is still being verified, a new
method, dataset or version (no ready card refers to it yet). That keeps a long corpus import or card ingest from
holding the stamp row's lock for its whole transaction; a card turning ready takes it at the end of verification."""

from django.db import migrations

STATE_TABLE = "leaderboard_leaderboardstate"
FUNCTION = "leaderboard_state_touch"
# (table, events firing for every statement on PostgreSQL)
STATEMENT_TRIGGERS = (
    ("corpus_consentrecord", ("INSERT", "UPDATE", "DELETE")),
    ("corpus_dataset", ("UPDATE", "DELETE")),
    ("corpus_datasetversion", ("UPDATE", "DELETE")),
    ("leaderboard_method", ("UPDATE", "DELETE")),
    ("leaderboard_domainscore", ("INSERT", "UPDATE", "DELETE")),
)
# Run cards: only rows that are, or were, listed (ready, or unverified: published without per-entry rows).
CARD_TABLE = "leaderboard_runcard"
LISTED = "('ready', 'unverified')"
CARD_CONDITIONS = {
    "INSERT": f"NEW.status IN {LISTED}",
    "UPDATE": f"OLD.status IN {LISTED} OR NEW.status IN {LISTED}",
    "DELETE": f"OLD.status IN {LISTED}",
}

POSTGRESQL_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger AS $$
BEGIN
    INSERT INTO {STATE_TABLE} (id, stamp) VALUES (1, gen_random_uuid()::text)
        ON CONFLICT (id) DO UPDATE SET stamp = EXCLUDED.stamp;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""
SQLITE_TOUCH = (f"INSERT INTO {STATE_TABLE} (id, stamp) VALUES (1, lower(hex(randomblob(16)))) "
                "ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp;")


def trigger_names() -> list[tuple[str, str]]:
    names = [(table, f"{table}_touches_leaderboard") for table, _ in STATEMENT_TRIGGERS]
    names += [(CARD_TABLE, f"{CARD_TABLE}_{event.lower()}_touches_leaderboard") for event in CARD_CONDITIONS]
    names += [(table, f"{table}_truncate_touches_leaderboard") for table in
              [CARD_TABLE, *(table for table, _ in STATEMENT_TRIGGERS)]]
    return names


def create_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRESQL_FUNCTION)
        for table, events in STATEMENT_TRIGGERS:
            schema_editor.execute(f"CREATE TRIGGER {table}_touches_leaderboard AFTER {' OR '.join(events)} "
                                  f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()")
        for event, condition in CARD_CONDITIONS.items():
            schema_editor.execute(f"CREATE TRIGGER {CARD_TABLE}_{event.lower()}_touches_leaderboard AFTER {event} "
                                  f"ON {CARD_TABLE} FOR EACH ROW WHEN ({condition}) EXECUTE FUNCTION {FUNCTION}()")
        for table in [CARD_TABLE, *(table for table, _ in STATEMENT_TRIGGERS)]:
            schema_editor.execute(f"CREATE TRIGGER {table}_truncate_touches_leaderboard AFTER TRUNCATE ON {table} "
                                  f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()")
    elif vendor == "sqlite":  # row-level triggers only; a flush deletes rows, so DELETE covers it
        for table, events in STATEMENT_TRIGGERS:
            for event in events:
                schema_editor.execute(f"CREATE TRIGGER {table}_{event.lower()}_touches_leaderboard AFTER {event} "
                                      f"ON {table} BEGIN {SQLITE_TOUCH} END")
        for event, condition in CARD_CONDITIONS.items():
            schema_editor.execute(f"CREATE TRIGGER {CARD_TABLE}_{event.lower()}_touches_leaderboard AFTER {event} "
                                  f"ON {CARD_TABLE} WHEN {condition} BEGIN {SQLITE_TOUCH} END")
    schema_editor.execute(f"INSERT INTO {STATE_TABLE} (id, stamp) VALUES (1, 'initial')")


def drop_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        for table, name in trigger_names():
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}()")
    elif vendor == "sqlite":
        for table, events in STATEMENT_TRIGGERS:
            for event in events:
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_{event.lower()}_touches_leaderboard")
        for event in CARD_CONDITIONS:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {CARD_TABLE}_{event.lower()}_touches_leaderboard")


def card_trigger_statements(vendor: str) -> list[str]:
    """The run-card triggers, created with the current CARD_CONDITIONS (after dropping any older ones)."""
    statements = []
    for event, condition in CARD_CONDITIONS.items():
        name = f"{CARD_TABLE}_{event.lower()}_touches_leaderboard"
        if vendor == "postgresql":
            statements += [f"DROP TRIGGER IF EXISTS {name} ON {CARD_TABLE}",
                           f"CREATE TRIGGER {name} AFTER {event} ON {CARD_TABLE} FOR EACH ROW WHEN ({condition}) "
                           f"EXECUTE FUNCTION {FUNCTION}()"]
        elif vendor == "sqlite":
            statements += [f"DROP TRIGGER IF EXISTS {name}",
                           f"CREATE TRIGGER {name} AFTER {event} ON {CARD_TABLE} WHEN {condition} "
                           f"BEGIN {SQLITE_TOUCH} END"]
    return statements


def recreate_card_triggers(apps, schema_editor) -> None:
    for statement in card_trigger_statements(schema_editor.connection.vendor):
        schema_editor.execute(statement)


def recreate_card_triggers_on_sqlite(apps, schema_editor) -> None:
    """SQLite drops a table's triggers when a migration rebuilds the table (PostgreSQL's ALTER TABLE keeps them), as
    0009 rebuilt the run cards' and left their writes with the stamp unchanged: put them back there."""
    if schema_editor.connection.vendor == "sqlite":
        recreate_card_triggers(apps, schema_editor)


def state_triggers() -> migrations.RunPython:
    return migrations.RunPython(create_triggers, drop_triggers)


def table_triggers(table: str, events: tuple[str, ...]) -> migrations.RunPython:
    """Statement triggers on a table created after the first ones (STATEMENT_TRIGGERS stays as migration 0002 ran
    it): any of `events` on it changes the stamp."""
    def create(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        if vendor == "postgresql":
            schema_editor.execute(f"CREATE TRIGGER {table}_touches_leaderboard AFTER {' OR '.join(events)} ON {table} "
                                  f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()")
            schema_editor.execute(f"CREATE TRIGGER {table}_truncate_touches_leaderboard AFTER TRUNCATE ON {table} "
                                  f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()")
        elif vendor == "sqlite":
            for event in events:
                schema_editor.execute(f"CREATE TRIGGER {table}_{event.lower()}_touches_leaderboard AFTER {event} "
                                      f"ON {table} BEGIN {SQLITE_TOUCH} END")

    def drop(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        if vendor == "postgresql":
            for name in (f"{table}_touches_leaderboard", f"{table}_truncate_touches_leaderboard"):
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        elif vendor == "sqlite":
            for event in events:
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_{event.lower()}_touches_leaderboard")

    return migrations.RunPython(create, drop)
