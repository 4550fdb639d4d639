"""The one append-only rule (common.append_only): every model that is evidence refuses change and deletion in
the application and, on PostgreSQL, in the database."""

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, transaction

from common.append_only import AppendOnlyModel

pytestmark = pytest.mark.django_db

EVIDENCE = {"organizations.AuditEvent", "submissions.ParticipationTerms", "submissions.TermsAcceptance",
            "submissions.SubmissionEvent", "submissions.OwnershipTransfer", "review.Decision",
            "review.RatingWithdrawal", "ledger.Payment", "governance.Signature", "submissions.DependencySignOff",
            "submissions.RightsHolderPermission", "corpus.LabelRelease"}


def append_only_models():
    return [model for model in apps.get_models() if issubclass(model, AppendOnlyModel)]


def test_the_evidence_models_are_append_only():
    assert {model._meta.label for model in append_only_models()} == EVIDENCE


def test_every_append_only_table_has_its_trigger_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("the triggers exist on PostgreSQL only")
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
        triggers = {name for (name,) in cursor.fetchall()}
    for model in append_only_models():
        assert f"{model._meta.db_table}_append_only" in triggers, model


def test_a_decision_is_never_changed_or_deleted(steward, governance_user):
    from review import services

    from .review_setup import gold_card, rate_everything, settings_for, speakers

    campaign = services.open_campaign(
        run_card=gold_card(steward, governance_user, count=12),
        actor=governance_user,
        values=settings_for(speakers(steward, 3), sample_size=4),
    )
    rate_everything(campaign)
    decision = services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="reject",
        rationale="Not yet: the verbs are wrong.",
    )
    with pytest.raises(PermissionError):
        decision.save()
    with pytest.raises(PermissionError):
        type(decision).objects.filter(pk=decision.pk).update(rationale="changed")
    if connection.vendor == "postgresql":
        for statement in ("UPDATE review_decision SET rationale = 'x' WHERE id = %s",
                          "DELETE FROM review_decision WHERE id = %s"):
            with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute(statement, [decision.pk])
