"""The cheap rating request's machinery: compiled (and on PostgreSQL prepared) queries, prepared writes, the shared
Redis client, the backends that read the signed-in user through a compiled query, and the cached-db sessions."""

import os
import threading
import uuid
from datetime import datetime, timedelta

import pytest
import redis
from django.contrib.sessions.backends.cached_db import KEY_PREFIX as SESSION_CACHE_PREFIX
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, connections
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from accounts.backends import AuthenticationBackend, ModelBackend, user_by_id
from accounts.models import User
from common import compiled
from common.cache import SharedClientRedisCache, SharedClientRedisCacheClient
from common.compiled import CompiledQuery
from organizations.models import Organization
from review import services
from review.models import Assignment, Rating

from .conftest import shared_fixture
from .review_setup import gold_card, settings_for, speakers

pytestmark = pytest.mark.django_db

ASSIGNMENT_COLUMNS = ("pk", "public_id", "state", "is_repeat", "created_at")
PROFILE = "/accounts/profile/"
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")


@pytest.fixture
def pool_size() -> int:
    """Three speakers."""
    return 3


@shared_fixture
def campaign(steward, governance_user, pool, card):
    return services.open_campaign(run_card=card, actor=governance_user,
                                  values=settings_for(pool, sample_size=12, control_count=2))


def speaker_assignments(campaign, speaker):
    return Assignment.objects.filter(campaign=campaign, speaker=speaker).order_by("position")


def unused_user_id() -> int:
    return (User.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def probe_query() -> tuple[CompiledQuery, str]:
    """A compiled query whose SQL no other test sends (its alias is new), to look for among prepared statements."""
    alias = f"probe_{uuid.uuid4().hex}"
    query = CompiledQuery(lambda pk: User.objects.filter(pk=pk).annotate(**{alias: F("pk")}).values_list(alias),
                          pk=int)
    return query, alias


def test_compiled_rows_are_the_orms_rows_for_each_speaker(campaign, pool):
    """Same SQL, new values: each speaker gets exactly their own assignments, converted as the ORM converts them."""
    query = CompiledQuery(lambda campaign, speaker: speaker_assignments(campaign, speaker).values_list(
        *ASSIGNMENT_COLUMNS), campaign=int, speaker=int)
    for speaker in pool:
        expected = list(speaker_assignments(campaign, speaker).values_list(*ASSIGNMENT_COLUMNS))
        assert expected and query.rows(campaign=campaign.pk, speaker=speaker.pk) == expected
    _, public_id, _, is_repeat, created_at = query.first(campaign=campaign.pk, speaker=pool[0].pk)
    assert isinstance(public_id, uuid.UUID) and type(is_repeat) is bool and created_at.tzinfo is not None
    assert query.rows(campaign=campaign.pk, speaker=unused_user_id()) == []
    assert query.first(campaign=campaign.pk + 1000, speaker=pool[0].pk) is None


def test_a_uuid_parameter_finds_only_its_own_row(campaign, pool):
    """A UUID parameter (sent as the backend stores UUIDs) selects its row, and only for its own speaker."""
    query = CompiledQuery(lambda item, speaker: Assignment.objects.filter(public_id=item, speaker=speaker)
                          .values_list("pk", "campaign__public_id", "state"), item=uuid.UUID, speaker=int)
    for assignment in Assignment.objects.filter(campaign=campaign).order_by("pk")[:5]:
        assert query.first(item=assignment.public_id, speaker=assignment.speaker_id) == (
            assignment.pk, campaign.public_id, assignment.state)
        other = next(speaker for speaker in pool if speaker.pk != assignment.speaker_id)
        assert query.first(item=assignment.public_id, speaker=other.pk) is None
    assert query.first(item=uuid.uuid4(), speaker=pool[0].pk) is None


def test_a_datetime_parameter_bounds_the_rows_as_the_orm_does(campaign, pool):
    """A moment is sent as the backend stores it (a string on SQLite), to the microsecond."""
    assignments = speaker_assignments(campaign, pool[0])
    query = CompiledQuery(lambda speaker, since: Assignment.objects.filter(speaker=speaker, created_at__gte=since)
                          .order_by("pk").values_list("pk"), speaker=int, since=datetime)
    moments = sorted(assignments.values_list("created_at", flat=True))
    counts = []
    for since in (moments[0], moments[len(moments) // 2], moments[-1] + timedelta(microseconds=1)):
        expected = list(assignments.filter(created_at__gte=since).order_by("pk").values_list("pk"))
        assert query.rows(speaker=pool[0].pk, since=since) == expected
        counts.append(len(expected))
    assert counts[0] > counts[1] > counts[2] == 0


def test_the_queryset_is_built_once_per_connection():
    """Building the queryset is the cost saved: once for the connection, whatever the number of runs; a thread's
    own connection compiles its own."""
    built = []

    def build(pk):
        built.append(pk)
        return User.objects.filter(pk=pk).values_list("pk", "email")

    query = CompiledQuery(build, pk=int)
    for pk in (1, 2, 3):
        assert query.rows(pk=pk) == []
    assert len(built) == 1

    def in_another_thread():
        try:
            query.rows(pk=4)
        finally:
            connections["default"].close()

    thread = threading.Thread(target=in_another_thread)
    thread.start()
    thread.join()
    assert len(built) == 2


def test_sql_hands_out_the_statement_for_a_larger_one():
    """`sql()` compiles like a run (once per connection) and runs nothing: its statement, as a subquery of the
    caller's, reads what `rows()` reads."""
    built = []

    def build(pk):
        built.append(pk)
        return User.objects.filter(pk=pk).values_list("pk", "email")

    user = User.objects.create_user("inside@example.org")
    query = CompiledQuery(build, pk=int)
    with CaptureQueriesContext(connection) as captured:
        sql, params = query.sql(pk=user.pk)
    assert not captured.captured_queries
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM ({sql}) AS inside", params)
        assert cursor.fetchone() == (1,)
    assert query.rows(pk=user.pk) == [(user.pk, "inside@example.org")] and len(built) == 1


def test_a_declared_parameter_missing_from_the_sql_is_a_configuration_error():
    query = CompiledQuery(lambda pk, speaker: User.objects.filter(pk=pk).values_list("pk"), pk=int, speaker=int)
    with pytest.raises(ImproperlyConfigured, match="speaker"):
        query.rows(pk=1, speaker=2)


def test_rows_refuse_missing_or_extra_values():
    """A forgotten value must not silently run the sentinel."""
    query = CompiledQuery(lambda pk: User.objects.filter(pk=pk).values_list("pk"), pk=int)
    with pytest.raises(TypeError):
        query.rows()
    with pytest.raises(TypeError):
        query.rows(pk=1, speaker=2)
    with pytest.raises(TypeError):
        query.first(speaker=2)


def test_a_string_parameter_is_refused_when_the_query_is_declared():
    """A string's place in the SQL can depend on its value (a LIKE, an empty string): not compilable, and said at
    import time rather than inside a request."""
    with pytest.raises(TypeError, match="str"):
        CompiledQuery(lambda email: User.objects.filter(email=email).values_list("pk"), email=str)


@pytest.mark.django_db(transaction=True)
def test_a_locking_query_refuses_to_run_outside_a_transaction():
    """Django checks `select_for_update` when it compiles; a compiled query checks on every run, or a later run
    outside a transaction would silently lock nothing."""
    from django.db import transaction
    from django.db.transaction import TransactionManagementError

    user = User.objects.create_user("locked@example.org")
    query = CompiledQuery(lambda pk: User.objects.select_for_update().filter(pk=pk).values_list("pk"), pk=int)
    with transaction.atomic():
        assert query.first(pk=user.pk) == (user.pk,)
    with pytest.raises(TransactionManagementError):
        query.first(pk=user.pk)


def test_objects_are_built_as_the_orm_builds_them(campaign, pool):
    """`objects()` gives the instances iterating the queryset gives: the same fields, the `select_related` objects
    already attached (no query to reach them), annotations, deferred fields left deferred."""
    from django.db.models import Value

    query = CompiledQuery(
        lambda speaker: Assignment.objects.filter(speaker=speaker).select_related("item__entry", "campaign")
        .defer("item__entry__source").annotate(marker=Value(7)).order_by("position"),
        speaker=int)
    for speaker in pool:
        expected = list(Assignment.objects.filter(speaker=speaker).select_related("item__entry", "campaign")
                        .order_by("position"))
        with CaptureQueriesContext(connection) as captured:
            found = query.objects(speaker=speaker.pk)
            details = [(a.pk, a.public_id, a.state, a.item.pk, a.item.entry.reference, a.campaign.title, a.marker)
                       for a in found]
        assert len(captured.captured_queries) == 1
        assert details == [(a.pk, a.public_id, a.state, a.item.pk, a.item.entry.reference, a.campaign.title, 7)
                           for a in expected]
        assert found and all("source" in a.item.entry.get_deferred_fields() for a in found)
        assert found[0].item.entry.source == expected[0].item.entry.source, "a deferred field is read when asked"


def test_loaded_defers_the_fields_it_was_not_given(campaign, pool):
    """`loaded` is `.only()` for a row read by a compiled query: given fields in any order, the others deferred."""
    assignment = speaker_assignments(campaign, pool[0]).first()
    instance = compiled.loaded(Assignment, ["state", "id", "campaign_id"],
                               [assignment.state, assignment.pk, assignment.campaign_id])
    assert (instance.pk, instance.state, instance.campaign_id) == (assignment.pk, assignment.state,
                                                                    assignment.campaign_id)
    assert {"position", "public_id", "created_at"} <= instance.get_deferred_fields()
    assert instance.position == assignment.position
    with pytest.raises(ImproperlyConfigured):
        compiled.loaded(Assignment, ["id", "nonsense"], [1, 2])


@on_postgresql
def test_on_postgresql_the_statement_is_prepared_on_its_connection(speaker):
    query, alias = probe_query()
    assert query.first(pk=speaker.pk) == (speaker.pk,)
    assert any(alias in statement for statement in prepared_statements())


@on_postgresql
def test_integers_of_every_size_share_one_prepared_statement(speaker):
    """psycopg sends an int as smallint, integer or bigint by its size: sent as bigint, the statement is prepared
    (and planned) once per connection, not once per integer type."""
    query, alias = probe_query()
    for pk in (speaker.pk, 40_000, 3_000_000_000):
        query.first(pk=pk)
    assert sum(alias in statement for statement in prepared_statements()) == 1


@on_postgresql
def test_prepared_hot_path_off_prepares_nothing(settings, speaker):
    """For a pooler in transaction mode, which cannot keep prepared statements."""
    settings.PREPARED_HOT_PATH = False
    query, alias = probe_query()
    assert query.first(pk=speaker.pk) == (speaker.pk,)
    assert not any(alias in statement for statement in prepared_statements())


def test_query_capture_sees_the_sql_of_prepared_reads_and_writes(campaign, pool):
    """Query counts and logs (CaptureQueriesContext, the debug toolbar) must see the hot path's statements."""
    assignment = speaker_assignments(campaign, pool[0]).first()
    query = CompiledQuery(lambda pk: Assignment.objects.filter(pk=pk).values_list("state"), pk=int)
    rating = Rating(client_id=uuid.uuid4(), assignment=assignment, speaker=pool[0], value="gist")
    with CaptureQueriesContext(connection) as captured:
        query.rows(pk=assignment.pk)
        compiled.execute(services.SET_ASSIGNMENT_STATE, ["rated", assignment.pk])
        compiled.insert(rating)
    sqls = [entry["sql"] for entry in captured.captured_queries]
    assert len(sqls) == 3 and all(isinstance(sql, str) for sql in sqls)
    assert sqls[0].startswith("SELECT") and Assignment._meta.db_table in sqls[0]
    assert sqls[1].startswith("UPDATE") and Assignment._meta.db_table in sqls[1]
    assert sqls[2].startswith("INSERT INTO") and Rating._meta.db_table in sqls[2]


def test_insert_stores_what_create_stores(campaign, pool):
    """A rating inserted on the hot path is the row `objects.create` would have written, defaults included."""
    first, second = speaker_assignments(campaign, pool[0])[:2]
    fields = {"value": "acceptable", "hallucination": True, "comment": "reads well", "active_seconds": 12.5}
    inserted = Rating(client_id=uuid.uuid4(), assignment=first, speaker=pool[0], **fields)
    compiled.insert(inserted)
    created = Rating.objects.create(client_id=uuid.uuid4(), assignment=second, speaker=pool[0], **fields)
    assert inserted.pk is not None and not inserted._state.adding and inserted._state.db == "default"
    compared = [field.attname for field in Rating._meta.concrete_fields
                if field.attname not in ("id", "client_id", "assignment_id", "created_at")]
    stored = Rating.objects.values(*compared, "client_id", "assignment_id", "created_at").get(pk=inserted.pk)
    assert {name: stored[name] for name in compared} == Rating.objects.values(*compared).get(pk=created.pk)
    assert stored["is_current"] is True and stored["semantically_wrong"] is False and stored["timed_by"] == ""
    assert (stored["client_id"], stored["assignment_id"], stored["created_at"]) == (
        inserted.client_id, first.pk, inserted.created_at)


def test_insert_along_another_write_runs_both_in_one_statement(campaign, pool):
    """A rating and its assignment's new state: one statement on PostgreSQL (a data-modifying WITH clause), the
    INSERT then the UPDATE elsewhere; both written either way."""
    assignment = speaker_assignments(campaign, pool[0]).first()
    rating = Rating(client_id=uuid.uuid4(), assignment=assignment, speaker=pool[0], value="gist")
    with CaptureQueriesContext(connection) as captured:
        compiled.insert(rating, along=[(services.SET_ASSIGNMENT_STATE, ["rated", assignment.pk])])
    sqls = [entry["sql"] for entry in captured.captured_queries]
    if connection.vendor == "postgresql":
        assert len(sqls) == 1 and sqls[0].startswith("WITH") and "INSERT INTO" in sqls[0] and "UPDATE" in sqls[0]
    else:
        assert [sql.split()[0] for sql in sqls] == ["INSERT", "UPDATE"]
    assert Rating.objects.get(pk=rating.pk).assignment_id == assignment.pk
    assignment.refresh_from_db()
    assert assignment.state == "rated"


def test_a_rating_post_is_the_session_user_lock_checks_one_write_and_the_commit(client, campaign, pool,
                                                                               django_assert_max_num_queries):
    """rate.js's rating post, holding the next item: the user, then BEGIN with the lock, the checks and the speaker's
    work clock (one round trip on PostgreSQL), the rating with its assignment's state and the clock, COMMIT."""
    client.force_login(pool[0])
    assignment = speaker_assignments(campaign, pool[0]).first()
    with django_assert_max_num_queries(7 if connection.vendor == "postgresql" else 8):
        answer = client.post(f"/review/items/{assignment.public_id}/",
                             {"client_id": str(uuid.uuid4()), "value": "acceptable"},
                             headers={"Accept": "application/json", "X-Requested-With": "fetch",
                                      "X-Next-Item": "held"})
    assert answer.status_code == 201 and answer.json()["saved"] is True
    assignment.refresh_from_db()
    assert assignment.state == "rated" and assignment.ratings.get(is_current=True).value == "acceptable"


def test_insert_stores_a_json_default():
    """JSON values go through the field's own adaptation, as save() sends them."""
    organization = Organization(name="Inserted Nation", slug="inserted")
    compiled.insert(organization)
    stored = Organization.objects.get(pk=organization.pk)
    assert (stored.slug, stored.languages, stored.created_at) == ("inserted", [], organization.created_at)


def test_execute_returns_the_number_of_rows_written(campaign, pool):
    assignments = speaker_assignments(campaign, pool[0])
    count = assignments.count()
    statement = f"UPDATE {Assignment._meta.db_table} SET state = %s WHERE campaign_id = %s AND speaker_id = %s"
    assert count > 1 and compiled.execute(statement, ["skipped", campaign.pk, pool[0].pk]) == count
    assert set(assignments.values_list("state", flat=True)) == {"skipped"}
    assert compiled.execute(services.SET_ASSIGNMENT_STATE, ["rated", assignments[0].pk]) == 1
    assert compiled.execute(services.SET_ASSIGNMENT_STATE, ["rated", 0]) == 0


def reachable_redis_url() -> str:
    url = os.environ.get("REDIS_CACHE_URL") or "redis://127.0.0.1:6379/14"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.exceptions.RedisError:
        pytest.skip(f"no Redis at {url}")
    return url


def test_shared_client_redis_cache_round_trips_with_one_client():
    """One `redis.Redis` per pool, not one per operation: reads and writes reuse the same client."""
    backend = SharedClientRedisCache(reachable_redis_url(), {"KEY_PREFIX": f"hot-path-{uuid.uuid4().hex}"})
    client = backend._cache
    assert isinstance(client, SharedClientRedisCacheClient)
    backend.set("key", {"value": 1}, timeout=30)
    assert backend.get("key") == {"value": 1}
    assert backend.delete("key") and backend.get("key") is None
    assert client.get_client() is client.get_client()
    assert client.get_client(write=True) is client.get_client(write=True)


def test_a_signed_in_session_is_recognised(client, speaker):
    client.force_login(speaker)
    response = client.get(PROFILE)
    assert response.status_code == 200 and response.wsgi_request.user.pk == speaker.pk


def test_a_deactivated_user_is_signed_out_on_the_next_request(client, speaker):
    client.force_login(speaker)
    speaker.is_active = False
    speaker.save()
    response = client.get(PROFILE)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_password_change_signs_out_the_other_sessions(client, speaker):
    """Django's session hash check still runs on the user the compiled query read."""
    client.force_login(speaker)
    assert client.get(PROFILE).status_code == 200
    speaker.set_password("a new passphrase for the hot path")
    speaker.save()
    response = client.get(PROFILE)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_user_by_id_reads_the_user_or_nothing(speaker):
    user = user_by_id(str(speaker.pk))
    assert (user.pk, user.email, user.password, user.is_active) == (
        speaker.pk, speaker.email, speaker.password, True)
    assert not user._state.adding and user.get_deferred_fields() == set()
    for user_id in ("abc", None, str(unused_user_id())):
        assert user_by_id(user_id) is None


@pytest.mark.parametrize("backend", [ModelBackend, AuthenticationBackend])
def test_both_backends_refuse_an_inactive_user(backend, speaker):
    assert backend().get_user(str(speaker.pk)).pk == speaker.pk
    speaker.is_active = False
    speaker.save()
    assert backend().get_user(str(speaker.pk)) is None


def test_a_session_outlives_a_cleared_cache(client, speaker):
    """Sessions are cached for speed and kept in the database: losing the cache signs nobody out."""
    client.force_login(speaker)
    session_key = client.session.session_key
    assert cache.get(SESSION_CACHE_PREFIX + session_key) is not None
    cache.clear()
    response = client.get(PROFILE)
    assert response.status_code == 200 and response.wsgi_request.user.pk == speaker.pk
    assert cache.get(SESSION_CACHE_PREFIX + session_key) is not None


def test_queries_sent_together_give_each_their_own_rows(campaign, pool):
    """`rows_together` (one round trip on PostgreSQL) answers as the queries run one by one would, in order, and the
    query log sees each statement."""
    by_speaker = CompiledQuery(lambda speaker: Assignment.objects.filter(speaker=speaker).order_by("position")
                               .values_list("pk", "public_id"), speaker=int)
    by_id = CompiledQuery(lambda pk: User.objects.filter(pk=pk).values_list("email"), pk=int)
    runs = [(by_speaker, {"speaker": pool[0].pk}), (by_id, {"pk": pool[1].pk}), (by_speaker, {"speaker": -1})]
    with CaptureQueriesContext(connection) as captured:
        together = compiled.rows_together(*runs)
    assert together == [query.rows(**values) for query, values in runs]
    assert together[0] and together[1] == [(pool[1].email,)] and together[2] == []
    assert [bool(q["sql"]) for q in captured.captured_queries] == [True, True, True]


def test_instances_sent_together_are_built_as_one_by_one(campaign, pool):
    """`sent_together` builds each run's instances as `objects` would: related objects and annotations too."""
    by_speaker = CompiledQuery(lambda speaker: Assignment.objects.filter(speaker=speaker).select_related("item__entry")
                               .annotate(twice=F("position") * 2).order_by("position"), speaker=int)
    runs = [(by_speaker, {"speaker": pool[0].pk}), (by_speaker, {"speaker": -1}), (by_speaker, {"speaker": pool[1].pk})]

    def seen(found):
        return [[(a.pk, a.public_id, a.item.entry.entry_id, a.twice) for a in run] for run in found]

    together = [fetched.objects() for fetched in compiled.sent_together(*runs)]
    assert seen(together) == seen([query.objects(**values) for query, values in runs])
    assert together[0] and together[1] == [] and together[0][0].twice == 2 * together[0][0].position


def statements_and_pipelines(request) -> list[tuple[str, bool]]:
    """Each statement `request()` sends and whether it went in a psycopg pipeline (one round trip with others)."""
    from psycopg.pq import PipelineStatus

    sent = []

    def record(execute, sql, params, many, context):
        sent.append((sql, connection.connection.info.pipeline_status != PipelineStatus.OFF))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        request()
    return sent


@on_postgresql
def test_the_rating_page_reads_item_campaign_counts_and_memberships_in_one_round_trip(client, campaign, pool):
    """After the session's user, the item page's reads go together: the item, its campaign (pool and serving
    rule), the speaker's counts and their memberships; then the audit of a secret item."""
    client.force_login(pool[0])
    first = speaker_assignments(campaign, pool[0])[0]
    answers = []
    sent = statements_and_pipelines(lambda: answers.append(client.get(f"/review/items/{first.public_id}/")))
    total = speaker_assignments(campaign, pool[0]).count()
    assert answers[0].status_code == 200 and f'data-done="0" data-total="{total}"' in answers[0].content.decode()
    assert 'FROM "accounts_user"' in sent[0][0] and not sent[0][1]
    reads = [sql for sql, piped in sent[1:5] if piped]
    assert len(reads) == 4, sent
    assert 'FROM "review_assignment"' in reads[0] and 'FROM "review_campaign"' in reads[1]
    assert 'COUNT("review_assignment"."id")' in reads[2] and 'FROM "governance_membership"' in reads[3]
    assert [sql.split()[0] for sql, _ in sent[5:]] == ["INSERT"]  # the audit of the secret item shown


@on_postgresql
def test_a_rating_answered_with_the_next_item_reads_the_campaign_and_that_item_in_one_round_trip(client, campaign,
                                                                                                 pool):
    """rate.js, when the phone may not hold the items, asks for the next one as the rating's answer: after the
    rating, its campaign (with the serving rule) and the next item are read together (a psycopg pipeline)."""
    client.force_login(pool[0])
    first, second = speaker_assignments(campaign, pool[0])[:2]
    answers = []
    sent = statements_and_pipelines(lambda: answers.append(client.post(
        f"/review/items/{first.public_id}/", {"client_id": str(uuid.uuid4()), "value": "gist"},
        headers={"Accept": "application/json", "X-Requested-With": "fetch", "X-Next-Item": "item"})))
    answer = answers[0]
    assert answer.status_code == 201 and answer.json()["next_item"]["id"] == str(second.public_id)
    after_rating = sent[next(i for i, (sql, _) in enumerate(sent) if sql.startswith("WITH inserted")) + 1:]
    reads = [(sql, piped) for sql, piped in after_rating if sql.startswith("SELECT")]
    assert len(reads) == 2 and all(piped for _, piped in reads), reads
    assert 'FROM "review_campaign"' in reads[0][0] and 'FROM "review_assignment"' in reads[1][0]


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_queries_sent_together_run_inside_the_callers_transaction(pool):
    """The locked rating check relies on it: queries sent together in `atomic` are in its transaction (its locks held
    to the end, its rollback theirs), whether the transaction had sent anything before or not."""
    from django.db import transaction
    from psycopg.pq import TransactionStatus

    by_id = CompiledQuery(lambda pk: User.objects.filter(pk=pk).values_list("email"), pk=int)
    with transaction.atomic():
        assert compiled.rows_together((by_id, {"pk": pool[0].pk}), (by_id, {"pk": pool[1].pk})) == [
            [(pool[0].email,)], [(pool[1].email,)]]
        assert connection.connection.info.transaction_status == TransactionStatus.INTRANS
        compiled.execute(f"UPDATE {User._meta.db_table} SET first_name = %s WHERE id = %s", ["Begun", pool[0].pk])
        transaction.set_rollback(True)
    assert User.objects.get(pk=pool[0].pk).first_name != "Begun"  # the whole transaction was rolled back
    with transaction.atomic():
        User.objects.filter(pk=pool[1].pk).exists()  # begun already
        assert compiled.rows_together((by_id, {"pk": pool[0].pk})) == [[(pool[0].email,)]]
        assert connection.connection.info.transaction_status == TransactionStatus.INTRANS
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_failing_query_sent_together_rolls_its_transaction_back_and_leaves_the_connection_usable(pool):
    from django.db import DatabaseError, transaction

    failing = CompiledQuery(lambda pk: User.objects.filter(pk=pk).extra(select={"boom": "1 / (id - id)"})
                            .values_list("boom"), pk=int)
    by_id = CompiledQuery(lambda pk: User.objects.filter(pk=pk).values_list("email"), pk=int)
    with pytest.raises(DatabaseError, match="division by zero"):
        with transaction.atomic():
            compiled.rows_together((by_id, {"pk": pool[0].pk}), (failing, {"pk": pool[0].pk}))
    assert connection.connection.autocommit is True and connection.connection.pgconn.transaction_status == 0
    assert by_id.rows(pk=pool[1].pk) == [(pool[1].email,)]


@pytest.mark.django_db(transaction=True)
def test_a_rating_waiting_for_the_items_lock_sees_the_rating_stored_meanwhile(steward, governance_user):
    """The lock and the checks of a rating go in one round trip, but the checks run once the lock is held: a rating
    of the same item committed while this one waited is seen (and retired), not missed — else the new rating would
    break the one-current-rating rule and fail."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's (SQLite serialises every write)")
    from django.db import transaction

    pool = speakers(steward, 3)
    campaign = services.open_campaign(run_card=gold_card(steward, governance_user, count=12),
                                      actor=governance_user, values=settings_for(pool, sample_size=6))
    assignment = speaker_assignments(campaign, pool[0]).first()
    holding, release = threading.Event(), threading.Event()

    def rate_first_while_holding_the_lock():
        try:
            with transaction.atomic():
                Assignment.objects.select_for_update().get(pk=assignment.pk)
                Rating.objects.create(client_id=uuid.uuid4(), assignment_id=assignment.pk, speaker=pool[0],
                                      value="gist")
                Assignment.objects.filter(pk=assignment.pk).update(state="rated")
                holding.set()
                release.wait(10)
        finally:
            connections["default"].close()

    first = threading.Thread(target=rate_first_while_holding_the_lock)
    first.start()
    assert holding.wait(10)
    threading.Timer(0.5, release.set).start()  # commits while the rating below waits for the lock
    rating, created = services.record_rating(actor=pool[0], item=assignment.public_id,
                                             submission=services.Submission(uuid.uuid4(), "excellent"))
    first.join()
    assert created
    assert list(Rating.objects.filter(assignment=assignment).order_by("created_at")
                .values_list("value", "is_current")) == [("gist", False), ("excellent", True)]


@on_postgresql
def test_the_health_check_of_a_kept_connection_costs_no_round_trip(monkeypatch):
    """Before the first query of each request Django checks a kept connection; here that is a look at its socket,
    not a `SELECT 1` sent to the server."""
    kept = connections.create_connection("default")
    try:
        kept.ensure_connection()

        def no_query(*args, **kwargs):
            raise AssertionError("the health check queried the server")

        monkeypatch.setattr(kept.connection, "cursor", no_query)
        monkeypatch.setattr(kept.connection, "execute", no_query)
        assert kept.is_usable() is True
    finally:
        monkeypatch.undo()
        kept.close()


@on_postgresql
def test_a_connection_idle_for_a_while_is_checked_with_a_query():
    """A firewall or NAT that silently forgot an idle connection sends nothing: after a few idle seconds only
    Django's `SELECT 1` can tell."""
    from common.postgresql.base import POLL_CHECK_SECONDS

    kept = connections.create_connection("default")
    try:
        kept.ensure_connection()
        real_cursor, queried = kept.connection.cursor, []

        def counted_cursor(*args, **kwargs):
            queried.append(1)
            return real_cursor(*args, **kwargs)

        kept.connection.cursor = counted_cursor
        assert kept.is_usable() is True and queried == []
        kept.known_usable_at -= POLL_CHECK_SECONDS + 1
        assert kept.is_usable() is True and queried == [1]
        assert kept.is_usable() is True and queried == [1]  # found usable just now: the socket is enough again
    finally:
        kept.close()


@on_postgresql
def test_the_health_check_finds_a_connection_the_server_dropped():
    """A restart, an idle timeout or `pg_terminate_backend`: the server closed the connection, so the next request
    opens a new one instead of failing on it."""
    kept = connections.create_connection("default")
    try:
        kept.ensure_connection()
        with kept.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            (pid,) = cursor.fetchone()
        kept.close_if_unusable_or_obsolete()  # the end of a request: the connection is kept for the next
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])
        assert kept.is_usable() is False
        kept.close_if_health_check_failed()
        assert kept.connection is None
        with kept.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            assert cursor.fetchone()[0] != pid
    finally:
        kept.close()


def test_every_postgresql_database_uses_the_backend_with_the_cheap_health_check():
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"]
    assert engine == ("common.postgresql" if connection.vendor == "postgresql" else "django.db.backends.sqlite3")


def test_addresses_reversed_once_are_reverse_s_own_under_any_script_prefix():
    """`common.addresses`: each route reversed once per URL configuration and script prefix, an object's id put in."""
    import re

    from django.urls import get_script_prefix, reverse, set_script_prefix

    from common.addresses import address, address_pattern

    item = uuid.uuid4()
    assert address("review:rate", item) == reverse("review:rate", args=[item]) == f"/review/items/{item}/"
    assert address("review:queue") == reverse("review:queue")
    previous = get_script_prefix()
    set_script_prefix("/champollion/")
    try:
        prefixed = f"/champollion/review/items/{item}/"
        assert address("review:rate", item) == reverse("review:rate", args=[item]) == prefixed
    finally:
        set_script_prefix(previous)
    assert address("review:rate", item) == f"/review/items/{item}/"
    assert re.match(address_pattern("review:rate"), f"/review/items/{item}/")
    assert not re.match(address_pattern("review:rate"), f"/review/items/{item}/undo/")
