"""Decisions with k-of-n signatures (docs/governance.md): distinct eligible signers, stale signatures after a change,
one execution, conflicts excluded, eligible n < k refused, restrictions fast and releases slow, k changed under the
current k, audit events, e-mail to signers, and the one-click actions wired through it."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from common.errors import ErrorKind
from corpus import decisions as corpus_decisions
from corpus.services import import_corpus
from governance import kinds, selectors
from governance import services as governance
from governance.models import Decision, DecisionPolicy, DecisionState, Signature
from leaderboard.services import declare_conflict
from organizations.models import AuditEvent, Membership
from organizations.services import remove_member
from review import services as review_services
from submissions import decisions as submission_decisions
from submissions import services as submission_services
from submissions.models import SubmissionState

from .conftest import corpus_bytes, grant_all_consents, member, mixed_entries, password_only_login, shared_fixture
from .review_setup import gold_card, settings_for, speakers
from .test_submissions import package_files, submit, zip_bytes

PUBLICATION = corpus_decisions.PUBLICATION


@shared_fixture
def staff(steward, governance_user):
    """Four governance staff: `governance_user` proposes, the three others may sign."""
    return [governance_user] + [member(f"gov{n}@steward.example", steward, "governance") for n in (2, 3, 4)]


@shared_fixture
def dataset(steward):
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    grant_all_consents(version.dataset)
    return version.dataset


def set_k(organization, kind: str, k: int, hours: int | None = 0) -> None:
    DecisionPolicy.objects.update_or_create(organization=organization, kind=kind,
                                            defaults={"threshold": k, "min_open_hours": hours})


def approve(decision, signer, **fields):
    fields.setdefault("checked", [key for key, _ in kinds.get(decision.kind).checks][:1])
    return governance.sign(actor=signer, decision=decision, verdict="approve",
                           payload_hash=fields.pop("payload_hash", decision.payload_hash), **fields)


def actions(decision) -> list[str]:
    return list(AuditEvent.objects.filter(object_type="governance.Decision", object_id=str(decision.pk))
                .order_by("id").values_list("action", flat=True))


# k = 1: the one-click action as before.

@pytest.mark.django_db
def test_with_k_1_proposing_is_executing(steward, staff, dataset):
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    dataset.refresh_from_db()
    assert dataset.is_public and decision.state == DecisionState.EXECUTED and decision.threshold == 1
    assert decision.executed_by == staff[0]
    assert list(decision.signatures.values_list("signer_id", "as_proposer")) == [(staff[0].pk, True)]
    assert actions(decision) == ["decision.opened", "decision.executed"]
    assert AuditEvent.objects.filter(action="dataset.published").count() == 1


@pytest.mark.django_db
def test_a_refused_action_at_k_1_stores_nothing(steward, staff):
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    with pytest.raises(governance.ApplicationError, match="no active consent record covers public release"):
        corpus_decisions.propose_publication(actor=staff[0], dataset=version.dataset, is_public=True)
    assert not Decision.objects.exists() and not AuditEvent.objects.filter(action__startswith="decision.").exists()


# The canonical payload.

@pytest.mark.django_db
def test_the_payload_hash_is_of_its_canonical_form(steward, staff, dataset):
    set_k(steward, PUBLICATION, 2)
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    assert decision.payload == {"dataset": dataset.identifier, "is_public": True}
    assert decision.payload_hash == governance.payload_digest(
        kind=PUBLICATION, organization_id=steward.pk, subject=f"dataset:{dataset.identifier}",
        payload={"is_public": True, "dataset": dataset.identifier})
    assert governance.canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


# Distinct signers; signing twice counts once; execution once.

@pytest.mark.django_db
def test_k_distinct_signers_execute_it_once(steward, staff, dataset):
    set_k(steward, PUBLICATION, 2)
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    assert (decision.state, decision.threshold, decision.eligible_count) == ("open", 2, 3)
    first = approve(decision, staff[1])
    again = approve(decision, staff[1])
    assert again.pk == first.pk and Signature.objects.filter(decision=decision).count() == 1
    decision.refresh_from_db()
    dataset.refresh_from_db()
    assert decision.state == "open" and not dataset.is_public and selectors.board(decision).approvals == 1
    approve(decision, staff[2])
    decision.refresh_from_db()
    dataset.refresh_from_db()
    assert decision.state == "executed" and dataset.is_public and decision.executed_by == staff[2]
    with pytest.raises(governance.DecisionConflict) as closed:
        approve(decision, staff[3])
    assert closed.value.kind == ErrorKind.CONFLICT and "closed" in closed.value.message
    assert governance.settle_due() == {}
    assert AuditEvent.objects.filter(action="dataset.published").count() == 1
    assert actions(decision) == ["decision.opened", "decision.signed", "decision.signed", "decision.executed"]


@pytest.mark.django_db
def test_the_proposer_does_not_sign_and_one_member_cannot_count_twice(steward, staff, dataset):
    set_k(steward, PUBLICATION, 2)
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    with pytest.raises(governance.NotAllowed, match="proposer does not sign"):
        approve(decision, staff[0])
    with pytest.raises(governance.DecisionConflict, match="already open"):
        corpus_decisions.propose_publication(actor=staff[1], dataset=dataset, is_public=True)
    board = selectors.board(decision)
    assert [row.user for row in board.excluded] == [staff[0]] and board.n == 3


# Stale on edit.

@pytest.mark.django_db
def test_a_change_of_the_payload_makes_every_signature_stale(steward, staff, card):
    set_k(steward, "leaderboard.disqualify", 2)
    from leaderboard.decisions import propose_disqualification

    decision = propose_disqualification(actor=staff[0], run_card=card, reason="Copied the references.")
    old_hash = decision.payload_hash
    approve(decision, staff[1])
    decision = governance.amend(actor=staff[0], decision=decision, changes={"reason": "Copied the gold references."})
    assert decision.revision == 2 and decision.payload_hash != old_hash
    board = selectors.board(decision)
    assert board.approvals == 0
    assert [len(row.stale) for row in board.eligible if row.user == staff[1]] == [1]
    with pytest.raises(governance.DecisionConflict) as stale:
        approve(decision, staff[2], payload_hash=old_hash)
    assert stale.value.kind == ErrorKind.CONFLICT and "changed since you read it" in stale.value.message
    with pytest.raises(governance.NotAllowed, match="Only the proposer"):
        governance.amend(actor=staff[1], decision=decision, changes={"reason": "Other."})
    with pytest.raises(governance.GovernanceError, match="cannot be changed: run_card"):
        governance.amend(actor=staff[0], decision=decision, changes={"run_card": "x"})
    approve(decision, staff[1])
    approve(decision, staff[2])
    decision.refresh_from_db()
    assert decision.state == "executed"
    assert card.disqualifications.get().reason == "Copied the gold references."
    assert "decision.amended" in actions(decision)


# Conflicts of interest; eligible n < k.

@shared_fixture
def card(steward, governance_user):
    return gold_card(steward, governance_user)


@pytest.mark.django_db
def test_members_in_conflict_are_excluded_and_shown_with_why(steward, staff, card):
    set_k(steward, "leaderboard.disqualify", 2)
    declare_conflict(actor=staff[3], run_card=card, reason="I work for its developer.")
    from leaderboard.decisions import propose_disqualification

    decision = propose_disqualification(actor=staff[0], run_card=card, reason="Copied the references.")
    board = selectors.board(decision)
    excluded = {row.user.email: row.reason for row in board.excluded}
    assert excluded["gov4@steward.example"] == "declared a conflict of interest (I work for its developer.)"
    assert excluded["sandbox@steward.example"] == "submitted the run card"
    assert excluded[staff[0].email] == "proposed the decision"
    assert decision.eligible_count == board.n == 2
    with pytest.raises(governance.NotAllowed) as refused:
        approve(decision, staff[3])
    assert refused.value.kind == ErrorKind.NOT_ALLOWED and "declared a conflict of interest" in refused.value.message
    assert not decision.signatures.exists()


@pytest.mark.django_db
def test_a_decision_whose_eligible_n_is_below_k_does_not_open(steward, staff, card):
    set_k(steward, "leaderboard.disqualify", 3)
    declare_conflict(actor=staff[3], run_card=card, reason="I helped build it.")
    from leaderboard.decisions import propose_disqualification

    with pytest.raises(governance.DecisionConflict) as refused:
        propose_disqualification(actor=staff[0], run_card=card, reason="Copied the references.")
    assert refused.value.kind == ErrorKind.CONFLICT
    assert "needs 3 signatures, but only 2 members may sign it" in refused.value.message
    assert "gov4@steward.example" in refused.value.message
    assert not Decision.objects.exists()


@pytest.mark.django_db
def test_a_conflicted_member_cannot_propose_either(steward, staff, card):
    declare_conflict(actor=staff[1], run_card=card, reason="I helped build it.")
    from leaderboard.decisions import propose_disqualification

    with pytest.raises(governance.NotAllowed, match="You cannot propose this decision"):
        propose_disqualification(actor=staff[1], run_card=card, reason="Copied the references.")


# Restricting is fast, releasing is slow.

@pytest.mark.django_db
def test_withdrawing_applies_at_once_and_releasing_waits_for_k_and_the_time(steward, staff, dataset):
    set_k(steward, PUBLICATION, 2, hours=None)  # the kind's default least open time: 48 hours
    dataset.is_public = True
    dataset.save(update_fields=["is_public"])
    withdrawal = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=False)
    dataset.refresh_from_db()
    assert withdrawal.state == "executed" and withdrawal.fast and not dataset.is_public
    release = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    assert not release.fast and release.executable_after >= release.opened_at + timedelta(hours=48)
    approve(release, staff[1])
    approve(release, staff[2])
    release.refresh_from_db()
    dataset.refresh_from_db()
    assert release.state == "open" and not dataset.is_public
    with pytest.raises(governance.DecisionConflict, match="stays open until"):
        governance.execute_now(actor=staff[1], decision=release)
    Decision.objects.filter(pk=release.pk).update(executable_after=timezone.now() - timedelta(minutes=1))
    assert governance.settle_due() == {"executed": 1}
    dataset.refresh_from_db()
    assert dataset.is_public


@pytest.mark.django_db
def test_a_restriction_overtakes_an_open_release(steward, staff, dataset):
    set_k(steward, PUBLICATION, 2)
    release = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    corpus_decisions.propose_publication(actor=staff[1], dataset=dataset, is_public=False)
    release.refresh_from_db()
    assert release.state == "withdrawn"


# Membership re-checked at execution; expiry; rejection.

@pytest.mark.django_db
def test_signers_who_left_the_governance_staff_no_longer_count(steward, staff, dataset):
    set_k(steward, PUBLICATION, 2, hours=1)
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    approve(decision, staff[1])
    approve(decision, staff[2])
    remove_member(actor=None, membership=Membership.objects.get(user=staff[2], organization=steward))
    Decision.objects.filter(pk=decision.pk).update(executable_after=timezone.now() - timedelta(minutes=1))
    governance.settle_due()
    decision.refresh_from_db()
    dataset.refresh_from_db()
    assert decision.state == "open" and not dataset.is_public
    approve(decision, staff[3])
    decision.refresh_from_db()
    assert decision.state == "executed"


def test_an_executed_decision_keeps_the_signatures_it_was_executed_on_when_a_signer_leaves(client, steward, staff,
                                                                                          dataset):
    """The record of an executed decision does not change with roles: after one of its two signers left the
    governance staff, its page still says 2 of the 2 needed, with both under "Who signed"; a decision of one
    signature shows its proposer as its signer."""
    set_k(steward, PUBLICATION, 2)
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    approve(decision, staff[1])
    approve(decision, staff[2])
    decision.refresh_from_db()
    assert decision.state == "executed" and decision.counted_signers == [staff[1].pk, staff[2].pk]
    remove_member(actor=None, membership=Membership.objects.get(user=staff[2], organization=steward))
    record = selectors.board(decision)
    assert (record.closed, record.approvals) == (True, 2)
    assert [row.user for row in record.eligible] == [staff[1], staff[2]]
    assert [row.user for row in record.excluded] == [staff[0]]
    client.force_login(staff[1])
    page = client.get(f"/decisions/{decision.public_id}/").content.decode()
    assert "2 of the 2 needed" in page and "may sign" not in page and "Who signed" in page
    assert staff[2].email in page.split("Who signed")[1] and "not signed yet" not in page

    withdrawal = corpus_decisions.propose_publication(actor=staff[1], dataset=dataset, is_public=False)
    assert withdrawal.state == "executed" and withdrawal.counted_signers == [staff[1].pk]
    alone = selectors.board(withdrawal)
    assert [row.user for row in alone.eligible] == [staff[1]] and alone.excluded == [] and alone.approvals == 1
    assert "1 of 1 needed" in client.get(f"/decisions/{withdrawal.public_id}/").content.decode()


def test_a_decision_reads_in_each_readers_language_whoever_wrote_it(client, steward, staff, dataset):
    """Proposed and signed by members reading French, executed, then read in English (and the other way round): the
    summary, the checks signed and the outcome are each reader's language, not the writer's."""
    from django.utils import translation

    set_k(steward, PUBLICATION, 2)
    with translation.override("fr-ca"):
        decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
        approve(decision, staff[1])
        approve(decision, staff[2])
    decision.refresh_from_db()
    assert decision.state == "executed" and decision.summary == f"Publier {dataset.identifier}"
    client.force_login(staff[1])
    english = client.get(f"/decisions/{decision.public_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"<h1>Release {dataset.identifier} publicly</h1>" in english
    assert "I read the community&#x27;s consent record for public release" in english
    assert f"{dataset.identifier} is public." in english and "Publier" not in english
    french = client.get(f"/decisions/{decision.public_id}/", HTTP_ACCEPT_LANGUAGE="fr-CA").content.decode()
    assert f"<h1>Publier {dataset.identifier}</h1>" in french and f"{dataset.identifier} est public." in french

    policy = governance.propose_policy(actor=staff[0], organization=steward, kind=PUBLICATION, threshold=1)
    with translation.override("fr-ca"):
        assert policy.shown_summary.endswith("1 signature") and "Release a dataset" not in policy.shown_summary


@pytest.mark.django_db
def test_an_expired_decision_refuses_signatures_and_is_closed_by_the_worker(steward, staff, dataset):
    set_k(steward, PUBLICATION, 2)
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    Decision.objects.filter(pk=decision.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    decision.refresh_from_db()
    with pytest.raises(governance.DecisionConflict) as expired:
        approve(decision, staff[1])
    assert expired.value.kind == ErrorKind.CONFLICT and "expired" in expired.value.message
    assert governance.settle_due() == {"expired": 1}
    assert actions(decision)[-1] == "decision.expired"


@pytest.mark.django_db
def test_rejecting_needs_a_comment_and_closes_it_once_k_is_out_of_reach(steward, staff, dataset):
    set_k(steward, PUBLICATION, 2)
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    with pytest.raises(governance.GovernanceError, match="Write why you reject it") as uncommented:
        governance.sign(actor=staff[1], decision=decision, verdict="reject", payload_hash=decision.payload_hash)
    assert uncommented.value.field == "comment"
    with pytest.raises(governance.GovernanceError, match="Tick what you checked"):
        governance.sign(actor=staff[1], decision=decision, verdict="approve", payload_hash=decision.payload_hash)
    governance.sign(actor=staff[1], decision=decision, verdict="reject", payload_hash=decision.payload_hash,
                    comment="The elders have not seen it.")
    decision.refresh_from_db()
    assert decision.state == "open"
    governance.sign(actor=staff[2], decision=decision, verdict="reject", payload_hash=decision.payload_hash,
                    comment="Not yet.")
    decision.refresh_from_db()
    assert decision.state == "rejected" and actions(decision)[-1] == "decision.rejected"


@pytest.mark.django_db
def test_signing_needs_a_session_that_proved_its_second_factor(client, steward, staff, dataset):
    set_k(steward, PUBLICATION, 2)
    decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    from accounts.models import User

    fresh = User.objects.get(pk=staff[1].pk)  # loaded without any proof, as a task or a password-only session
    with pytest.raises(governance.NotAllowed, match="second factor"):
        approve(decision, fresh)
    password_only_login(client, staff[1])
    response = client.post(f"/decisions/{decision.public_id}/sign/", {
        "verdict": "approve", "payload_hash": decision.payload_hash, "checked": "consent"})
    assert response.status_code == 403
    assert not decision.signatures.exists()


# Changing k is itself a decision, under the current k.

@pytest.mark.django_db
def test_k_changes_by_a_decision_under_the_current_k(steward, staff, dataset):
    first = governance.propose_policy(actor=staff[0], organization=steward, kind=PUBLICATION, threshold=2)
    assert first.state == "executed" and selectors.policy_of(steward, PUBLICATION).threshold == 2
    governance.propose_policy(actor=staff[0], organization=steward, kind=governance.POLICY_KIND, threshold=2,
                              min_open_hours=0)
    assert selectors.policy_of(steward, governance.POLICY_KIND).threshold == 2
    back = governance.propose_policy(actor=staff[0], organization=steward, kind=PUBLICATION, threshold=1)
    assert back.state == "open" and selectors.policy_of(steward, PUBLICATION).threshold == 2
    approve(back, staff[1])
    approve(back, staff[2])
    back.refresh_from_db()
    assert back.state == "executed" and selectors.policy_of(steward, PUBLICATION).threshold == 1
    changed = AuditEvent.objects.filter(action="decision_policy.changed").order_by("id").last()
    assert changed.details["threshold"] == {"before": 2, "after": 1}


@pytest.mark.django_db
@pytest.mark.parametrize(("threshold", "message"), [(0, "k ≥ 1"), (-2, "k ≥ 1"), (4, "more than n"),
                                                   (9, "more than n")])
def test_k_out_of_range_is_a_conflict(steward, staff, threshold, message):
    with pytest.raises(governance.DecisionConflict, match=message) as refused:
        governance.propose_policy(actor=staff[0], organization=steward, kind=PUBLICATION, threshold=threshold)
    assert refused.value.kind == ErrorKind.CONFLICT and refused.value.field == "threshold"
    assert not DecisionPolicy.objects.exists() and not Decision.objects.exists()


@pytest.mark.django_db
def test_a_k_that_is_no_number_is_refused_on_its_field(steward, staff):
    with pytest.raises(governance.GovernanceError, match="whole number") as refused:
        governance.propose_policy(actor=staff[0], organization=steward, kind=PUBLICATION, threshold=None)
    assert refused.value.field == "threshold" and not Decision.objects.exists()


@pytest.mark.django_db
def test_an_unknown_kind_is_named(steward, staff):
    with pytest.raises(kinds.UnknownKind, match="corpus.publication"):
        governance.propose_policy(actor=staff[0], organization=steward, kind="corpus.delete_all", threshold=1)


# E-mail and the dashboard.

@pytest.mark.django_db
def test_signers_are_emailed_after_commit_and_see_it_waiting(steward, staff, dataset, eager_tasks,
                                                              django_capture_on_commit_callbacks):
    set_k(steward, PUBLICATION, 2)
    with django_capture_on_commit_callbacks(execute=True):
        decision = corpus_decisions.propose_publication(actor=staff[0], dataset=dataset, is_public=True)
    assert sorted(message.to[0] for message in mail.outbox) == sorted(user.email for user in staff[1:])
    assert decision.summary in mail.outbox[0].subject and str(decision.public_id) in mail.outbox[0].body
    assert selectors.waiting_for_signature(staff[1]) == [decision]
    assert selectors.waiting_for_signature(staff[0]) == []
    approve(decision, staff[1])
    assert selectors.waiting_for_signature(staff[1]) == []


# The one-click actions of submissions, through decisions.

@pytest.fixture
def in_review(steward, governance_user, card, developer_acceptance):
    developer, acceptance = developer_acceptance
    submission = submit(steward, developer, acceptance, zip_bytes(package_files())).submission
    for to_state, extra in ((SubmissionState.AWAITING_SANDBOX, {}), (SubmissionState.EVALUATED, {"run_card": card})):
        submission_services.advance_submission(actor=governance_user, submission=submission, to_state=to_state,
                                               **extra)
    campaign = review_services.open_campaign(run_card=card, actor=governance_user,
                                             values=settings_for(speakers(steward, 4)))
    submission_services.advance_submission(actor=governance_user, submission=submission,
                                           to_state=SubmissionState.IN_REVIEW)
    review_services.record_decision(campaign=campaign, actor=governance_user, outcome="approve",
                                    rationale="The panel found it usable, on fewer items than the policy asks.",
                                    against_recommendation=True)
    return submission


@pytest.fixture
def developer_acceptance(steward, governance_user, settings, tmp_path):
    from accounts.services import get_or_create_user

    settings.MEDIA_ROOT = tmp_path / "media"
    terms = submission_services.publish_terms(organization=steward, actor=governance_user, version="1",
                                              text="Submit in good faith.", transfer_clause="Ownership transfers.")
    developer, _ = get_or_create_user("dev@methods.example", "x" * 20)
    return developer, submission_services.accept_terms(terms=terms, actor=developer)


@pytest.mark.django_db
def test_approving_a_method_is_a_2_of_3_decision_and_the_transfer_another(steward, staff, in_review):
    set_k(steward, submission_decisions.APPROVE, 2)
    decision = submission_decisions.propose_approval(actor=staff[0], submission=in_review, note="Well done.")
    board = selectors.board(decision)
    assert (board.threshold, board.n) == (2, 3)  # the sandbox operator submitted the run card: excluded
    assert {row.user.email for row in board.excluded} == {staff[0].email, "sandbox@steward.example"}
    approve(decision, staff[1], checked=["review", "card"])
    in_review.refresh_from_db()
    assert in_review.state == SubmissionState.IN_REVIEW
    approve(decision, staff[2])
    in_review.refresh_from_db()
    decision.refresh_from_db()
    assert in_review.state == SubmissionState.APPROVED and decision.state == "executed"
    transfer = submission_decisions.propose_transfer(actor=staff[0], submission=in_review)
    assert transfer.state == "executed"  # k = 1 for transfers here
    in_review.refresh_from_db()
    assert in_review.state == SubmissionState.OWNERSHIP_TRANSFERRED


@pytest.mark.django_db
def test_the_submitter_on_the_governance_staff_is_excluded(steward, staff, in_review):
    from organizations.services import add_member

    add_member(email=in_review.submitter.email, organization=steward, role="governance", actor=None)
    set_k(steward, submission_decisions.APPROVE, 2)
    decision = submission_decisions.propose_approval(actor=staff[0], submission=in_review)
    reasons = {row.user.pk: row.reason for row in selectors.board(decision).excluded}
    assert reasons[in_review.submitter_id] == "submitted the method"


# The gate decision against its recommendation (review).

@pytest.mark.django_db
def test_approving_against_the_gate_recommendation_is_a_decision(client, steward, staff, card):
    from review.decisions import GATE_OVERRIDE, record_or_propose
    from review.models import Decision as GateDecision

    campaign = review_services.open_campaign(run_card=card, actor=staff[0], values=settings_for(speakers(steward, 4)))
    set_k(steward, GATE_OVERRIDE, 2)
    rationale = "The panel found it usable, on fewer items than the policy asks."
    proposed = record_or_propose(actor=staff[0], campaign=campaign, outcome="approve", rationale=rationale,
                                 against_recommendation=True)
    assert proposed.state == "open" and proposed.payload["recommendation"] != "pass"
    assert not GateDecision.objects.filter(campaign=campaign).exists()
    assert "sandbox@steward.example" in {row.user.email for row in selectors.board(proposed).excluded}
    client.force_login(staff[1])
    page = client.get(f"/decisions/{proposed.public_id}/")
    assert page.status_code == 200 and "Approve at the review gate against its recommendation" in page.content.decode()
    response = client.post(f"/decisions/{proposed.public_id}/sign/", {
        "verdict": "approve", "payload_hash": "0" * 64, "checked": "evidence"})
    assert response.status_code == 409 and "changed since you read it" in response.content.decode()
    response = client.post(f"/decisions/{proposed.public_id}/sign/", {
        "verdict": "approve", "payload_hash": proposed.payload_hash, "checked": "evidence"})
    assert response.status_code == 302
    approve(proposed, staff[2])
    proposed.refresh_from_db()
    assert proposed.state == "executed"
    gate = GateDecision.objects.get(campaign=campaign)
    assert (gate.outcome, gate.decided_by, gate.rationale) == ("approve", staff[2], rationale)
    # Following the recommendation (a rejection here) is recorded at once, as before.
    assert record_or_propose(actor=staff[0], campaign=campaign, outcome="revoke", rationale="Withdrawn.") is None


@pytest.mark.django_db
def test_pages_answer_403_to_a_conflicted_signer_and_409_to_an_expired_decision(client, steward, staff, card):
    set_k(steward, "leaderboard.disqualify", 2)
    declare_conflict(actor=staff[3], run_card=card, reason="I helped build it.")
    from leaderboard.decisions import propose_disqualification

    decision = propose_disqualification(actor=staff[0], run_card=card, reason="Copied the references.")
    client.force_login(staff[3])
    page = client.get(f"/decisions/{decision.public_id}/").content.decode()
    assert "You may not sign it: you declared a conflict of interest" in page and 'id="sign-form"' not in page
    response = client.post(f"/decisions/{decision.public_id}/sign/", {
        "verdict": "approve", "payload_hash": decision.payload_hash, "checked": "evidence"})
    assert response.status_code == 403 and "You may not sign this decision" in response.content.decode()
    Decision.objects.filter(pk=decision.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    client.force_login(staff[1])
    response = client.post(f"/decisions/{decision.public_id}/sign/", {
        "verdict": "approve", "payload_hash": decision.payload_hash, "checked": "evidence"})
    assert response.status_code == 409 and "expired" in response.content.decode()
    client.force_login(staff[0])
    response = client.post("/orgs/steward/decisions/", {"kind": PUBLICATION, "threshold": "0"})
    assert response.status_code == 409 and "k ≥ 1" in response.content.decode()
    response = client.post("/orgs/steward/decisions/", {"kind": PUBLICATION, "threshold": "7"})
    assert response.status_code == 409 and "more than n" in response.content.decode()
    client.force_login(staff[1])
    assert client.get(f"/decisions/{decision.public_id}/").status_code == 200


@pytest.mark.django_db
def test_the_api_answers_202_with_the_decision_when_k_is_above_1(client, steward, staff, card):
    from accounts.services import create_api_token

    set_k(steward, "leaderboard.disqualify", 2)
    token, secret = create_api_token(actor=staff[0], name="ci", scope="secret")
    response = client.post(f"/api/v1/run-cards/{card.public_id}/disqualification/", {"reason": "Copied."},
                           content_type="application/json", HTTP_AUTHORIZATION=f"Token {secret}")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["threshold"] == 2 and body["state"] == "open" and not card.disqualifications.exists()
