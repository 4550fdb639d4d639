"""A database created while review owned the pay and credit ledger migrates without losing or rewriting anything:
pay policies, payments and credit choices moved to `ledger` in the migration state only, so the rows, constraints,
content types and the payments' append-only trigger are the ones that were there.

The test builds that database for real: a scratch PostgreSQL database migrated to the last review migration before
the move, filled with rows through SQL, then migrated to the end by `manage.py migrate` in a child process, as an
operator would."""

import psycopg
import pytest

from .scratch import manage, scratch_database  # noqa: F401 - fixture

MOVED = ["paypolicy", "payment", "speakercredit"]


def test_a_database_from_before_the_ledger_keeps_its_rows_constraints_and_trigger(scratch_database):  # noqa: F811
    url, database = scratch_database
    manage(url, "migrate", "review", "0015", "--noinput")
    with psycopg.connect(**database) as db:
        # What the database looked like under the old code: the content types were review's.
        db.execute("DELETE FROM django_content_type WHERE app_label = 'ledger'")
        old_type_ids = dict(db.execute(
            "INSERT INTO django_content_type (app_label, model) SELECT 'review', unnest(%s::text[]) "
            "ON CONFLICT (app_label, model) DO UPDATE SET model = EXCLUDED.model RETURNING model, id",
            [MOVED]).fetchall())
        user_id = db.execute(
            "INSERT INTO accounts_user (password, is_superuser, first_name, last_name, email, is_staff, is_active, "
            "date_joined) VALUES ('!', false, 'Ida', '', 'paid@ledger.example', false, true, now()) "
            "RETURNING id").fetchone()[0]
        org_id = db.execute(
            "INSERT INTO governance_organization (name, slug, languages, principles, created_at) "
            "VALUES ('Keepers of Accounts', 'accounts', '[\"xx\"]', 'CARE', now()) RETURNING id").fetchone()[0]
        db.execute("INSERT INTO review_paypolicy (organization_id, hourly_rate, currency, default_seconds_per_rating, "
                   "updated_at, updated_by_id) VALUES (%s, 31.50, 'CAD', 45, now(), %s)", [org_id, user_id])
        db.execute("INSERT INTO review_speakercredit (organization_id, user_id, choice, display_name, updated_at) "
                   "VALUES (%s, %s, 'display_name', 'Ida of the river', now())", [org_id, user_id])

    manage(url, "migrate", "--noinput")

    assert "No changes detected" in manage(url, "makemigrations", "--check", "--dry-run")
    shown = manage(url, "shell", "-c", (
        "from ledger.models import Payment, PayPolicy, SpeakerCredit\n"
        "policy, credit = PayPolicy.objects.get(), SpeakerCredit.objects.get()\n"
        "print(policy.organization.slug, policy.hourly_rate, policy.currency, credit.user.email, credit.display_name,\n"
        "      Payment._meta.db_table, Payment.objects.count(), sep='|')\n"))
    assert shown.strip().splitlines()[-1] == (
        "accounts|31.50|CAD|paid@ledger.example|Ida of the river|review_payment|0"
    )

    with psycopg.connect(**database) as db:
        types = dict(db.execute("SELECT model, id FROM django_content_type WHERE app_label = 'ledger'").fetchall())
        assert {model: types.get(model) for model in MOVED} == old_type_ids, "the same content type rows, relabelled"
        assert not db.execute("SELECT 1 FROM django_content_type WHERE app_label = 'review' AND model = ANY(%s)",
                              [MOVED]).fetchall(), "none left behind under review"
        assert db.execute("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'review_payment'::regclass "
                          "AND tgname = 'review_payment_append_only'").fetchone()[0] == 1
        with pytest.raises(psycopg.errors.CheckViolation):
            db.execute("UPDATE review_paypolicy SET currency = 'cad'")
        db.rollback()
        with pytest.raises(psycopg.errors.UniqueViolation):
            db.execute("INSERT INTO review_speakercredit (organization_id, user_id, choice, display_name, updated_at) "
                       "SELECT organization_id, user_id, 'anonymous', '', now() FROM review_speakercredit")
        db.rollback()

    # And back: undoing the move (review's half goes first) leaves the rows where they are.
    manage(url, "migrate", "ledger", "zero", "--noinput")
    with psycopg.connect(**database) as db:
        assert db.execute("SELECT currency FROM review_paypolicy").fetchall() == [("CAD",)]
        assert dict(db.execute("SELECT model, id FROM django_content_type WHERE app_label = 'review' "
                               "AND model = ANY(%s)", [MOVED]).fetchall()) == old_type_ids
