"""Invitation e-mails go through Celery; the link they carry lets the invitee sign up into the role.

With CELERY_BROKER_URL set (CI: redis://127.0.0.1:6379/0) the e-mail is delivered by a real Celery
worker, started in this process on the Redis broker. Without a broker, Celery runs tasks eagerly and
the on-commit callback that enqueues the task is run by `django_capture_on_commit_callbacks`.
"""

import re
import time
from contextlib import ExitStack, contextmanager, nullcontext

import pytest
from allauth.account.models import EmailAddress
from celery import signals
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.core import mail
from django.test import Client

from accounts.models import User
from config.celery import app as celery_app
from organizations.models import Invitation, Membership

from .conftest import PASSWORD

BROKER = not settings.CELERY_TASK_ALWAYS_EAGER
MAIL_WAIT_SECONDS = 15
INVITEE = "new.speaker@example.org"
LINK = re.compile(r"https?://\S+(/invitations/[\w-]+/)")


def _no_celery_logging_setup(**kwargs):
    """A `setup_logging` receiver makes Celery leave the process' logging (pytest's handlers) alone."""


class TaskDelivery:
    """Delivers the tasks that a block of code enqueues, only once that block has returned."""

    def __init__(self, capture_on_commit_callbacks, stack: ExitStack):
        self._capture = capture_on_commit_callbacks
        self._stack = stack

    @contextmanager
    def deferred(self, tasks: int = 1):
        if BROKER:
            assert not celery_app.conf.task_always_eager
            # Tasks earlier tests enqueued (on data since rolled back) never met a worker: dropped, so that this
            # block's tasks are not queued behind them (a campaign plan takes over a minute).
            celery_app.control.purge()
            # The message waits in Redis: no worker runs until the block has returned.
            yield
            signals.setup_logging.connect(_no_celery_logging_setup)
            self._stack.callback(signals.setup_logging.disconnect, _no_celery_logging_setup)
            self._stack.enter_context(
                start_worker(celery_app, pool="solo", concurrency=1, perform_ping_check=False, shutdown_timeout=15)
            )
        else:
            assert celery_app.conf.task_always_eager
            with self._capture(execute=True) as callbacks:
                yield
            assert len(callbacks) == tasks, f"the block enqueues exactly {tasks} task(s) on commit"

    @staticmethod
    def wait_for_mail(predicate, timeout: float = MAIL_WAIT_SECONDS, count: int = 1) -> list:
        """The matching messages once at least `count` arrived (a task sends them one by one), or at the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            found = [message for message in mail.outbox if predicate(message)]
            if len(found) >= count or time.monotonic() >= deadline:
                return found
            time.sleep(0.05)


@pytest.fixture
def task_delivery(django_capture_on_commit_callbacks):
    with ExitStack() as stack:
        # The worker (if any) stops here, before pytest-django flushes the database.
        yield TaskDelivery(django_capture_on_commit_callbacks, stack)


def sign_up(client, email):
    return client.post("/accounts/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD})


@pytest.mark.django_db(transaction=BROKER)
def test_invitation_mail_is_sent_by_a_task_and_its_link_signs_the_invitee_up(
    client, steward, governance_user, task_delivery
):
    client.force_login(governance_user)
    with task_delivery.deferred():
        response = client.post(f"/orgs/{steward.slug}/", {"email": "New.Speaker@Example.org", "role": "speaker"})
        assert response.status_code == 302
        assert response["Location"] == f"/orgs/{steward.slug}/"
        assert mail.outbox == [], "the request must not send the e-mail itself"

    invitation = Invitation.objects.get(organization=steward)
    assert (invitation.email, invitation.role, invitation.invited_by) == (INVITEE, "speaker", governance_user)
    path = f"/invitations/{invitation.token}/"
    sent = task_delivery.wait_for_mail(lambda message: path in message.body)
    assert sent, f"no invitation e-mail within {MAIL_WAIT_SECONDS} s"
    # (A stale message left in a shared broker could repeat it; every copy goes to the invitee.)
    assert all(message.to == [INVITEE] for message in sent)
    assert sent[0].subject == f"[Champollion Review] Invitation from {steward.name}"
    assert LINK.search(sent[0].body).group(1) == path

    # The invitee follows the link in a fresh browser and signs up with the invited address.
    invitee_client = Client()
    page = invitee_client.get(path)
    assert page.status_code == 200
    assert INVITEE in page.content.decode()
    response = sign_up(invitee_client, INVITEE)
    assert response.status_code == 302
    assert response["Location"] == "/accounts/profile/", "the link proves the address: no confirmation step"

    user = User.objects.get(email=INVITEE)
    assert invitee_client.session["_auth_user_id"] == str(user.pk)
    assert list(Membership.objects.filter(user=user).values_list("organization__slug", "role")) == [
        ("steward", "speaker")
    ]
    assert EmailAddress.objects.get(user=user).verified
    invitation.refresh_from_db()
    assert invitation.accepted_by == user and invitation.accepted_at is not None
    # The link is spent.
    assert Client().get(path).status_code == 404


@pytest.mark.django_db
def test_signing_up_without_an_invitation_grants_no_membership(client, steward, governance_user):
    response = sign_up(client, "walk.in@example.org")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/confirm-email/"

    user = User.objects.get(email="walk.in@example.org")
    assert not Membership.objects.filter(user=user).exists()
    assert not EmailAddress.objects.get(user=user).verified
    assert "_auth_user_id" not in client.session
    assert [message.to for message in mail.outbox] == [["walk.in@example.org"]]  # allauth's confirmation e-mail


@pytest.mark.django_db
def test_signing_up_with_another_address_after_opening_the_link_grants_no_membership(
    client, steward, governance_user
):
    from organizations.services import invite_member

    invitation = invite_member(organization=steward, email=INVITEE, role="curator", actor=governance_user)
    assert client.get(f"/invitations/{invitation.token}/").status_code == 200
    response = sign_up(client, "someone.else@example.org")
    assert response.status_code == 302
    # (allauth still adds the address stashed by the link as a verified, primary address of the new account.)

    assert not Membership.objects.filter(organization=steward, role="curator").exists()
    invitation.refresh_from_db()
    assert invitation.accepted_at is None


@pytest.mark.django_db(transaction=True)
def test_large_run_card_is_verified_by_the_worker_after_202(task_delivery, steward, speaker, settings):
    """The request answers 202 at once; the Celery worker then recomputes the aggregates."""
    from corpus.models import Entry
    from corpus.services import import_corpus
    from leaderboard.models import RunCard

    from .cards import body, make_card, seal
    from .conftest import corpus_bytes, entry, publish

    settings.RUN_CARD_INLINE_MAX_RESULTS = 3
    version = import_corpus(
        data=corpus_bytes([entry(n, domain="medical") for n in range(1, 7)]),
        organization=steward,
        actor=None,
    ).version
    publish(version.dataset)
    client = Client()
    client.force_login(speaker)
    card = make_card(version, list(Entry.objects.filter(version=version)), predict=lambda e: e.reference + " x")
    card["scores"]["exact_matches"] = 6
    # Eagerly (no broker) the on-commit callback runs the task as the request's transaction commits.
    with task_delivery.deferred() if BROKER else nullcontext():
        response = client.post("/api/v1/run-cards/", body(seal(card)), content_type="application/json")
        assert response.status_code == 202 and response.json()["status"] == "processing"
    deadline = time.monotonic() + MAIL_WAIT_SECONDS
    stored = RunCard.objects.get()
    while stored.status == RunCard.Status.PROCESSING and time.monotonic() < deadline:
        time.sleep(0.05)
        stored.refresh_from_db()
    assert stored.status == RunCard.Status.READY
    assert {d["path"] for d in stored.discrepancies} >= {"scores.exact_matches"}
    assert stored.domain_scores.get().result_count == 6
