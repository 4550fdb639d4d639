"""A database created before organizations and submissions got their own apps migrates without losing or
rewriting anything: the models moved in the migration state only, so the rows, foreign keys, content types and
append-only triggers are the ones that were there.

The test builds that database for real: a scratch PostgreSQL database migrated to the last migrations before the
move (today's schema, when `governance` owned the tables), filled with rows through SQL, then migrated to the end
by `manage.py migrate` in a child process, as an operator would."""

import psycopg
import pytest

from .scratch import manage, scratch_database  # noqa: F401 - fixture

BEFORE_THE_MOVE = [("accounts", "0003"), ("governance", "0004"), ("corpus", "0008"), ("leaderboard", "0001"),
                   ("review", "0002")]
MOVED = {"organizations": ["organization", "membership", "invitation", "auditevent"],
         "submissions": ["participationterms", "termsacceptance", "methodsubmission", "submissionevent",
                         "ownershiptransfer"]}


def test_a_database_from_before_the_move_keeps_its_rows_constraints_and_triggers(scratch_database):  # noqa: F811
    url, database = scratch_database
    for app, migration in BEFORE_THE_MOVE:
        manage(url, "migrate", app, migration, "--noinput")
    with psycopg.connect(**database) as db:
        # What the database looked like under the old code: the content types were governance's. One new content
        # type is left as a partial `migrate` would leave it (created empty by its post-migrate step): the move
        # must not leave the old row behind beside it.
        db.execute("DELETE FROM django_content_type WHERE app_label IN ('organizations', 'submissions') "
                   "AND NOT (app_label = 'organizations' AND model = 'organization')")
        moved = [model for models in MOVED.values() for model in models]
        # governance has models again (decisions), so the partial migrate's post-migrate step may already have
        # created some of these rows from the state at 0004: the old code's rows, whoever wrote them.
        db.execute("INSERT INTO django_content_type (app_label, model) SELECT 'governance', unnest(%s::text[]) "
                   "ON CONFLICT (app_label, model) DO NOTHING", [moved])
        old_type_ids = dict(db.execute(
            "SELECT model, id FROM django_content_type WHERE app_label = 'governance' AND model = ANY(%s)",
            [moved]).fetchall())
        user_id = db.execute(
            "INSERT INTO accounts_user (password, is_superuser, first_name, last_name, email, is_staff, is_active, "
            "date_joined) VALUES ('!', false, '', '', 'keeper@history.example', false, true, now()) "
            "RETURNING id").fetchone()[0]
        org_id = db.execute(
            "INSERT INTO governance_organization (name, slug, languages, principles, created_at) "
            "VALUES ('Keepers of History', 'history', '[\"xx\"]', 'CARE', now()) RETURNING id").fetchone()[0]
        db.execute("INSERT INTO governance_membership (user_id, organization_id, role, created_at) "
                   "VALUES (%s, %s, 'governance', now())", [user_id, org_id])
        db.execute("INSERT INTO governance_auditevent (organization_id, actor_id, action, object_type, object_id, "
                   "details, created_at, previous_hash, hash) VALUES (%s, %s, 'organization.created', "
                   "'organization', %s, '{}', now(), '', 'h1')", [org_id, user_id, str(org_id)])
        terms_id = db.execute(
            "INSERT INTO governance_participationterms (organization_id, version, text, transfer_clause, "
            "published_at, published_by_id) VALUES (%s, '1', 'Terms', 'Clause', now(), %s) RETURNING id",
            [org_id, user_id]).fetchone()[0]
        db.execute("INSERT INTO governance_termsacceptance (terms_id, user_id, accepted_at) VALUES (%s, %s, now())",
                   [terms_id, user_id])
        db.execute("INSERT INTO corpus_dataset (organization_id, identifier, is_public, created_at) "
                   "VALUES (%s, 'stories', false, now())", [org_id])

    manage(url, "migrate", "--noinput")

    assert "No changes detected" in manage(url, "makemigrations", "--check", "--dry-run")
    shown = manage(url, "shell", "-c", (
        "from organizations.models import AuditEvent, Membership, Organization\n"
        "from submissions.models import ParticipationTerms, TermsAcceptance\n"
        "from corpus.models import Dataset\n"
        "org = Organization.objects.get(slug='history')\n"
        "print(org.name, org.memberships.get().role, AuditEvent.objects.get().action,\n"
        "      ParticipationTerms.objects.get().organization.slug, TermsAcceptance.objects.get().user.email,\n"
        "      Dataset.objects.get().organization.slug, sep='|')\n"))
    assert shown.strip().splitlines()[-1] == (
        "Keepers of History|governance|organization.created|history|keeper@history.example|history"
    )

    with psycopg.connect(**database) as db:
        types = dict(((app, model), type_id) for app, model, type_id in db.execute(
            "SELECT app_label, model, id FROM django_content_type "
            "WHERE app_label IN ('governance', 'organizations', 'submissions')").fetchall())
        expected = {(app, model): old_type_ids[model] for app, models in MOVED.items() for model in models}
        moved = {model for models in MOVED.values() for model in models}
        types = {key: type_id for key, type_id in types.items() if key[1] in moved}  # not models added since
        assert types == expected, "the same content type rows, relabelled; none left behind under governance"
        with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match="append-only"):
            db.execute("UPDATE governance_auditevent SET action = 'rewritten'")
        db.rollback()
        with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match="append-only"):
            db.execute("DELETE FROM governance_termsacceptance")
        db.rollback()
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            db.execute("INSERT INTO corpus_dataset (organization_id, identifier, is_public, created_at) "
                       "VALUES (%s, 'orphan', false, now())", [org_id + 99])
        db.rollback()

    # And back: undoing the move (everything that depends on it goes first) leaves the rows where they are.
    manage(url, "migrate", "organizations", "zero", "--noinput")
    with psycopg.connect(**database) as db:
        assert db.execute("SELECT name FROM governance_organization").fetchall() == [("Keepers of History",)]
        assert dict(db.execute("SELECT model, id FROM django_content_type WHERE app_label = 'governance' "
                               "AND model = ANY(%s)", [list(old_type_ids)]).fetchall()) == old_type_ids
