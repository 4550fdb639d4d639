"""The audit log: events appended as things happen, a hash chain that detects tampering, no updates."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction

from corpus.services import import_corpus, set_dataset_public
from organizations.audit import CHAIN_LOCK, GENESIS, event_hash, record_event, seal_secret_views, verify_chain
from organizations.models import AuditAction, AuditEvent, Organization, PendingSecretView, chain_of
from organizations.services import invite_member

from .conftest import corpus_bytes, entry, grant_all_consents

CHANGED = AuditAction.ORGANIZATION_CHANGED  # any action the log knows

pytestmark = pytest.mark.django_db


def actions():
    return list(AuditEvent.objects.order_by("id").values_list("action", flat=True))


def test_governance_events_are_recorded_in_order(steward, governance_user, curator):
    invite_member(organization=steward, email="new@example.org", role="speaker", actor=governance_user)
    version = import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None).version
    grant_all_consents(version.dataset, governance_user)
    set_dataset_public(dataset=version.dataset, is_public=True, actor=governance_user)
    set_dataset_public(dataset=version.dataset, is_public=True, actor=governance_user)
    assert actions() == ["organization.created", "membership.added", "membership.added", "invitation.sent",
                         "corpus.imported", "consent.granted", "dataset.published"]
    published = AuditEvent.objects.get(action="dataset.published")
    assert (published.actor, published.organization, published.details) == (
        governance_user, steward, {"dataset": "test-en-crk"})


def test_the_chain_verifies_and_the_command_says_so(steward, governance_user, capsys):
    for n in range(3):
        record_event(CHANGED, actor=governance_user, organization=steward, details={"n": n, "text": "niwâpamâw"})
    assert verify_chain() == (5, None)  # organization.created, membership.added and the three test events
    call_command("verify_audit_log")
    assert "audit log intact: 5 events verified" in capsys.readouterr().out


def altered_directly(sql: str, params: list) -> None:
    """Change the table behind the application's back (on PostgreSQL, past its trigger)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Django's deferred foreign-key checks must run first: ALTER TABLE refuses pending ones.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("ALTER TABLE governance_auditevent DISABLE TRIGGER governance_auditevent_append_only")
        cursor.execute(sql, params)
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE governance_auditevent ENABLE TRIGGER governance_auditevent_append_only")


def test_an_event_altered_in_the_database_is_detected(steward, governance_user):
    events = [record_event(CHANGED, actor=governance_user, organization=steward, details={"n": n})
              for n in range(3)]
    altered_directly("UPDATE governance_auditevent SET action = %s WHERE id = %s", ["test.other", events[1].pk])
    checked, broken = verify_chain()
    assert broken.event_id == events[1].pk and "altered" in broken.reason
    assert checked == 3  # organization.created (fixture), membership.added, events[0]
    with pytest.raises(CommandError, match=f"audit log broken at event {events[1].pk}"):
        call_command("verify_audit_log")


def test_a_removed_event_is_detected(steward, governance_user):
    events = [record_event(CHANGED, actor=governance_user, organization=steward) for _ in range(3)]
    altered_directly("DELETE FROM governance_auditevent WHERE id = %s", [events[1].pk])
    _, broken = verify_chain()
    assert broken.event_id == events[2].pk and "removed" in broken.reason


def test_each_organization_extends_its_own_chain(steward, other_org, governance_user):
    """Two communities' events never link to each other: each chain starts at the genesis and goes on from its
    own last event; site-wide events form the `site` chain."""
    ours = record_event(CHANGED, actor=governance_user, organization=steward)
    site = record_event(CHANGED, actor=governance_user)
    theirs = record_event(CHANGED, organization=other_org)
    ours_again = record_event(CHANGED, organization=steward)
    theirs_again = record_event(CHANGED, organization=other_org)
    assert (ours.chain, site.chain, theirs.chain) == (
        f"organization:{steward.pk}", "site", f"organization:{other_org.pk}")
    assert (ours_again.previous_hash, theirs_again.previous_hash) == (ours.hash, theirs.hash)
    assert AuditEvent.objects.filter(chain=chain_of(steward.pk)).order_by("id").first().previous_hash == GENESIS
    assert site.previous_hash == GENESIS
    assert verify_chain()[1] is None


def test_an_event_moved_to_another_chain_is_detected(steward, other_org):
    moved = record_event(CHANGED, organization=steward)
    record_event(CHANGED, organization=other_org)
    altered_directly("UPDATE governance_auditevent SET chain = %s WHERE id = %s", [chain_of(other_org.pk), moved.pk])
    _, broken = verify_chain()
    assert broken.event_id == moved.pk and "not its organization's" in broken.reason


def test_events_logged_before_chains_were_split_stay_verifiable(steward, governance_user):
    """Every event the log held before per-organization chains sits in the `site` chain, whatever its
    organization; the site chain goes on from the last of them."""
    previous = AuditEvent.objects.filter(chain="site").order_by("-id").values_list("hash", flat=True).first() or GENESIS
    legacy = []
    for n in range(2):
        event = AuditEvent(organization=steward, actor=governance_user, action=CHANGED, details={"n": n},
                           chain="site", previous_hash=previous)
        event.hash = event_hash(previous, steward.pk, governance_user.pk, CHANGED, "", "", {"n": n}, event.created_at)
        event.save()
        legacy.append(event)
        previous = event.hash
    after = record_event(CHANGED)
    assert after.previous_hash == legacy[-1].hash
    assert verify_chain()[1] is None


def test_writers_of_different_organizations_do_not_wait_for_each_other(other_org):
    """The chain lock is per organization: while another connection holds one organization's, the other's events
    are appended at once, and the held one's wait. (The test's own transaction already holds the fixtures'
    organizations' locks, so the held one is an organization that has logged nothing yet.)"""
    if connection.vendor != "postgresql":
        pytest.skip("advisory locks are PostgreSQL's")
    import psycopg
    from django.db import OperationalError

    quiet = Organization.objects.create(slug="quiet", name="Quiet")
    holder = psycopg.connect(**{k: v for k, v in connection.get_connection_params().items()
                                if k in ("dbname", "user", "host", "port", "password")}, autocommit=True)
    try:
        holder.execute("SELECT pg_advisory_lock(%s, %s)", [CHAIN_LOCK, quiet.pk])
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '300ms'")
        try:
            assert record_event(CHANGED, organization=other_org).chain == chain_of(other_org.pk)
            with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
                record_event(CHANGED, organization=quiet)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = 0")
    finally:
        holder.close()


def test_the_application_cannot_change_or_delete_events(steward):
    event = record_event(CHANGED, organization=steward)
    event.action = "changed"
    with pytest.raises(PermissionError):
        event.save()
    with pytest.raises(PermissionError):
        event.delete()
    with pytest.raises(PermissionError):
        AuditEvent.objects.filter(pk=event.pk).update(action="changed")
    with pytest.raises(PermissionError):
        AuditEvent.objects.all().delete()


def test_the_database_refuses_updates_and_deletes_on_postgresql(steward):
    if connection.vendor != "postgresql":
        pytest.skip("the trigger exists on PostgreSQL only")
    event = record_event(CHANGED, organization=steward)
    for statement in ("UPDATE governance_auditevent SET action = 'x' WHERE id = %s",
                      "DELETE FROM governance_auditevent WHERE id = %s"):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(statement, [event.pk])
    assert AuditEvent.objects.get(pk=event.pk).action == CHANGED


def test_only_governance_staff_read_and_export_the_log(client, steward, governance_user, curator, outsider):
    version = import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None).version
    grant_all_consents(version.dataset, governance_user)
    set_dataset_public(dataset=version.dataset, is_public=True, actor=governance_user)
    url = f"/orgs/{steward.slug}/audit/"
    for user in (None, curator, outsider):
        client.logout()
        if user:
            client.force_login(user)
        assert client.get(url).status_code in (302, 403)
    client.force_login(governance_user)
    page = client.get(url, {"action": "dataset.published"})
    assert page.status_code == 200 and len(page.context["page"].object_list) == 1
    assert b"test-en-crk" in page.content
    exported = client.get(url, {"format": "csv"})
    assert exported["Content-Disposition"].startswith('attachment; filename="steward-audit-log.csv"')
    assert b"dataset.published" in exported.content and b"membership.added" in exported.content


def test_each_request_showing_secret_entries_is_recorded(client, public_version, curator, speaker):
    client.force_login(speaker)
    client.get(f"/datasets/versions/{public_version.pk}/entries/")
    seal_secret_views()
    assert not AuditEvent.objects.filter(action="secret_entries.shown").exists(), "nothing secret was shown"
    client.force_login(curator)
    secret = public_version.entries.get(segment="gold_standard")
    for url in (f"/datasets/versions/{public_version.pk}/entries/", f"/datasets/entries/{secret.pk}/",
                f"/datasets/versions/{public_version.pk}/export.json", "/api/v1/entries/",
                f"/api/v1/entries/{secret.pk}/", f"/api/v1/dataset-versions/{public_version.pk}/export/"):
        assert client.get(url).status_code == 200
    seal_secret_views()
    events = list(AuditEvent.objects.filter(action="secret_entries.shown").order_by("id"))
    assert [(e.details["count"], e.actor) for e in events] == [
        (2, curator), (1, curator), (2, curator), (2, curator), (1, curator), (2, curator)]
    assert events[0].details["where"] == f"/datasets/versions/{public_version.pk}/entries/"
    assert verify_chain()[1] is None


# Secret views: written at once, chained in batches.


def test_a_secret_view_is_one_insert_and_waits_for_no_chain(client, public_version, curator,
                                                            django_assert_num_queries):
    """The page's own record of what it showed is one plain INSERT: no chain lock, no read of the last hash."""
    from django.test.utils import CaptureQueriesContext

    secret = public_version.entries.get(segment="gold_standard")
    client.force_login(curator)
    client.get(f"/datasets/entries/{secret.pk}/")  # warm the session and caches
    with CaptureQueriesContext(connection) as captured:
        assert client.get(f"/datasets/entries/{secret.pk}/").status_code == 200
    sqls = [query["sql"] for query in captured.captured_queries]
    assert sum("organizations_pendingsecretview" in sql for sql in sqls) == 1
    assert not any("pg_advisory" in sql or "governance_auditevent" in sql for sql in sqls)
    assert PendingSecretView.objects.count() == 2


def test_sealing_chains_the_views_in_order_with_their_own_time_among_other_events(
        client, public_version, curator, governance_user, steward):
    secret = public_version.entries.get(segment="gold_standard")
    client.force_login(curator)
    client.get(f"/datasets/entries/{secret.pk}/")
    record_event(CHANGED, actor=governance_user, organization=steward, details={"between": True})
    client.get(f"/datasets/versions/{public_version.pk}/entries/")
    pending = list(PendingSecretView.objects.order_by("id").values_list("created_at", "details"))
    assert len(pending) == 2 and not AuditEvent.objects.filter(action="secret_entries.shown").exists()
    assert seal_secret_views() == 2
    assert not PendingSecretView.objects.exists()
    sealed = list(AuditEvent.objects.filter(action="secret_entries.shown").order_by("id"))
    assert [(event.created_at, event.details) for event in sealed] == pending
    assert {(event.organization, event.actor, event.chain) for event in sealed} == {
        (steward, curator, chain_of(steward.pk))}
    assert [event.previous_hash for event in sealed[1:]] == [sealed[0].hash]
    assert seal_secret_views() == 0
    assert verify_chain()[1] is None


def test_the_log_page_the_dashboard_and_the_check_see_views_not_yet_sealed(
        client, public_version, curator, governance_user, steward, capsys):
    secret = public_version.entries.get(segment="gold_standard")
    client.force_login(curator)
    client.get(f"/datasets/entries/{secret.pk}/")
    client.force_login(governance_user)
    page = client.get(f"/orgs/{steward.slug}/audit/", {"action": "secret_entries.shown"})
    assert page.status_code == 200 and len(page.context["page"].object_list) == 1
    client.force_login(curator)
    client.get(f"/datasets/entries/{secret.pk}/")
    client.force_login(governance_user)
    dashboard = client.get(f"/orgs/{steward.slug}/dashboard/")
    assert dashboard.status_code == 200
    assert sum(event.event.action == "secret_entries.shown" for event in dashboard.context["board"].events) == 2
    client.force_login(curator)
    client.get(f"/datasets/entries/{secret.pk}/")
    call_command("verify_audit_log")
    assert not PendingSecretView.objects.exists()
    assert AuditEvent.objects.filter(action="secret_entries.shown").count() == 3


def test_the_scheduled_task_seals_what_is_pending(client, public_version, curator, settings):
    from organizations.tasks import seal_secret_views_task

    assert settings.CELERY_BEAT_SCHEDULE["organizations-seal-secret-views"] == {
        "task": "organizations.tasks.seal_secret_views_task", "schedule": 10}
    client.force_login(curator)
    client.get(f"/datasets/versions/{public_version.pk}/entries/")
    assert seal_secret_views_task.apply().get() == 1
    assert AuditEvent.objects.filter(action="secret_entries.shown", actor=curator).count() == 1


def test_a_request_that_fails_leaves_no_view_behind(public_version, curator):
    from organizations.audit import record_secret_access

    with pytest.raises(RuntimeError), transaction.atomic():
        record_secret_access(curator, {public_version.dataset.organization_id: 2}, "/somewhere/")
        raise RuntimeError("the response failed after the entries were read")
    assert not PendingSecretView.objects.exists()


def test_a_response_showing_several_communities_secret_entries_is_recorded_in_each_chain(steward, other_org,
                                                                                         curator):
    """One pending view per organization whose secret entries a response showed (none for a count of zero), each
    sealed into its own organization's chain with its count."""
    from organizations.audit import record_secret_access

    record_secret_access(curator, {steward.pk: 2, other_org.pk: 1, Organization.objects.create(slug="none").pk: 0},
                         "/several/")
    assert sorted(PendingSecretView.objects.values_list("organization_id", "details__count")) == sorted(
        [(steward.pk, 2), (other_org.pk, 1)])
    assert seal_secret_views() == 2
    assert {(event.chain, event.details["count"]) for event in AuditEvent.objects.filter(
        action="secret_entries.shown", actor=curator)} == {(chain_of(steward.pk), 2), (chain_of(other_org.pk), 1)}
    assert verify_chain()[1] is None


@pytest.mark.django_db(transaction=True)
def test_two_sealers_at_once_chain_each_view_once(steward, curator):
    """The beat task and a reader of the log at the same moment: each takes other rows, and the chain stays one."""
    import threading

    from organizations.audit import record_secret_access

    if connection.vendor != "postgresql":
        pytest.skip("concurrency is proven on PostgreSQL (SQLite serialises every write)")
    for number in range(400):
        record_secret_access(curator, {steward.pk: 1}, f"/view/{number}/")
    barrier = threading.Barrier(2)
    sealed, errors = [], []

    def seal():
        try:
            barrier.wait()
            sealed.append(seal_secret_views())
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=seal) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and sum(sealed) == 400
    wheres = list(AuditEvent.objects.filter(action="secret_entries.shown").values_list("details__where", flat=True))
    assert sorted(wheres) == sorted(f"/view/{number}/" for number in range(400))
    assert verify_chain()[1] is None
