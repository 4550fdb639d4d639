"""The migrations that drop foreign keys' own indexes (common.indexes.ForeignKeyIndexDropped) drop those indexes and
nothing else: on SQLite the tables keep their triggers (the leaderboard's cache invalidation; Django's AlterField
would rebuild the tables without them), on PostgreSQL the foreign key constraints are the same ones, not dropped and
checked again over every row. Each database is a scratch one, migrated by `manage.py migrate` as an operator would."""

import sqlite3
from pathlib import Path

import psycopg
import pytest

from .scratch import manage, scratch_database  # noqa: F401 - fixture

pytestmark = pytest.mark.slow  # a dozen `manage.py migrate` processes

BEFORE = [("corpus", "0011"), ("languages", "0001"), ("leaderboard", "0007"), ("organizations", "0006"),
          ("review", "0012"), ("submissions", "0002")]
DROPPED = {"review_assignment_item_id_36233156", "review_assignment_speaker_id_75145a0d",
           "review_rating_withdrawal_id_3ee8f273", "corpus_entry_version_id_690a593d",
           "leaderboard_runcardresult_run_card_id_72156fa8", "governance_auditevent_organization_id_81a16bd2"}


# The migrations that drop the indexes; later migrations add tables, indexes and triggers of their own.
AFTER = [("corpus", "0012"), ("languages", "0002"), ("leaderboard", "0008"), ("organizations", "0007"),
         ("review", "0013"), ("submissions", "0003")]


def migrate_to_before(url: str) -> None:
    for app, migration in BEFORE:
        manage(url, "migrate", app, migration, "--noinput")


def migrate_to_after(url: str) -> None:
    for app, migration in AFTER:
        manage(url, "migrate", app, migration, "--noinput")


OWN_TABLES = ("corpus_", "languages_", "leaderboard_", "governance_", "review_", "submissions_")


def sqlite_schema(path: Path, kind: str) -> set[str]:
    """The triggers or indexes of the migrated apps' tables (`migrate` also brings other packages' tables along)."""
    with sqlite3.connect(path) as db:
        return {name for name, table in db.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = ?", [kind])
                if table.startswith(OWN_TABLES)}


def test_on_sqlite_the_indexes_go_and_come_back_and_the_tables_keep_their_triggers(tmp_path):
    path = tmp_path / "laptop.sqlite3"
    url = f"sqlite:///{path}"
    migrate_to_before(url)
    triggers, indexes = sqlite_schema(path, "trigger"), sqlite_schema(path, "index")
    assert {"corpus_datasetversion_update_touches_leaderboard",
            "corpus_datasetversion_delete_touches_leaderboard"} <= triggers
    assert DROPPED <= indexes

    migrate_to_after(url)
    assert sqlite_schema(path, "trigger") == triggers
    assert sqlite_schema(path, "index") == (indexes - DROPPED - {
        "corpus_datasetversion_dataset_id_4bcda81a", "languages_interfacetranslation_language_id_adf43b73",
        "leaderboard_domainscore_run_card_id_9033a485", "governance_membership_user_id_d58ac7e1",
        "review_campaignspeaker_campaign_id_905a2e5b", "review_item_campaign_id_45a4f5fa",
        "review_speakercredit_organization_id_cbc79d4a", "governance_participationterms_organization_id_57480a8b",
        "governance_termsacceptance_terms_id_1943a6ac", "governance_methodsubmission_organization_id_c98dc44e",
        "submissions_harness_intake_entry_intake_id_8d2496e8"}) | {"rating_withdrawn"}

    manage(url, "migrate", "review", "0012", "--noinput")
    back = sqlite_schema(path, "index")
    assert {"review_assignment_item_id_36233156", "review_assignment_speaker_id_75145a0d",
            "review_rating_withdrawal_id_3ee8f273"} <= back
    assert "rating_withdrawn" not in back
    assert sqlite_schema(path, "trigger") == triggers


def test_on_postgresql_only_the_indexes_change(scratch_database):  # noqa: F811
    url, database = scratch_database
    migrate_to_before(url)
    catalog = ("SELECT conname, oid FROM pg_constraint WHERE contype = 'f'",
               "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")
    with psycopg.connect(**database) as db:
        foreign_keys = dict(db.execute(catalog[0]).fetchall())
        indexes = {name for (name,) in db.execute(catalog[1])}
    assert DROPPED <= indexes

    migrate_to_after(url)
    with psycopg.connect(**database) as db:
        after = dict(db.execute(catalog[0]).fetchall())
        indexes_after = {name for (name,) in db.execute(catalog[1])}
    assert {name: after.get(name) for name in foreign_keys} == foreign_keys
    assert not DROPPED & indexes_after
    assert "rating_withdrawn" in indexes_after
