"""Decisions an organization takes together: k of its eligible governance members sign one exact, hashed
payload (docs/governance.md). The kinds of decision and how each executes belong to the apps that own the
actions (`governance.kinds`); these tables hold only what was proposed, who signed what, and what happened.

The app also keeps the migration history of the tables `organizations` and `submissions` now own
(docs/architecture.md); those tables keep their `governance_*` names."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from common.append_only import AppendOnlyModel
from common.sentences import shown
from organizations.models import Organization

MAX_THRESHOLD = 50


class DecisionPolicy(models.Model):
    """How many signatures (k) a kind of decision needs in one organization, and how long it stays open at least
    before it executes. No row: k = 1 and no wait, the one-click behaviour. Changed only by a decision of the
    kind `governance.policy` (`governance.services`)."""

    # Indexed as the first column of decisionpolicy_one_per_kind.
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="decision_policies",
                                     db_index=False)
    kind = models.CharField(max_length=60)
    threshold = models.PositiveSmallIntegerField(default=1, help_text="k: the approvals a decision needs.")
    min_open_hours = models.PositiveIntegerField(
        null=True, blank=True, help_text="The least time a decision stays open before it executes (k ≥ 2); empty: "
                                         "the kind's default.")
    changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["organization", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "kind"], name="decisionpolicy_one_per_kind"),
            models.CheckConstraint(condition=Q(threshold__gte=1, threshold__lte=MAX_THRESHOLD),
                                   name="decisionpolicy_threshold_range"),
        ]

    def __str__(self) -> str:
        return f"{self.organization}: {self.kind} needs {self.threshold}"


class DecisionState(models.TextChoices):
    OPEN = "open", gettext_lazy("Open for signatures")
    EXECUTED = "executed", gettext_lazy("Executed")
    REJECTED = "rejected", gettext_lazy("Rejected")
    EXPIRED = "expired", gettext_lazy("Expired")
    WITHDRAWN = "withdrawn", gettext_lazy("Withdrawn by its proposer")
    FAILED = "failed", gettext_lazy("Could not be executed")


class Decision(models.Model):
    """One proposed action of a registered kind on one subject, with its canonical payload and the payload's
    SHA-256. Changing the payload raises `revision` and changes the hash: every signature given before is stale.
    `threshold` is k as it was when the decision opened; `eligible_count` the n shown then."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # Indexed as the first column of decision_org_state.
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="decisions",
                                     db_index=False)
    kind = models.CharField(max_length=60)
    subject = models.CharField(max_length=200, help_text="What it is about, as its kind names it (e.g. a "
                                                         "submission's public id).")
    summary = models.CharField(max_length=300)
    payload = models.JSONField()
    payload_hash = models.CharField(max_length=64)
    revision = models.PositiveIntegerField(default=1)
    proposer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    threshold = models.PositiveSmallIntegerField()
    eligible_count = models.PositiveSmallIntegerField()
    fast = models.BooleanField(default=False, help_text="A restriction: one signature, applied at once.")
    state = models.CharField(max_length=12, choices=DecisionState.choices, default=DecisionState.OPEN)
    opened_at = models.DateTimeField(default=timezone.now)
    executable_after = models.DateTimeField()
    expires_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    executed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    outcome_note = models.TextField(blank=True)
    # The summary and the outcome as sentences (common.sentences), shown in the reader's language; the texts above
    # are the same sentences as their writer read them, for the admin, the audit log and older rows.
    summary_sentence = models.JSONField(null=True, blank=True)
    outcome_sentence = models.JSONField(null=True, blank=True)
    counted_signers = models.JSONField(
        default=list, blank=True,
        help_text="The user ids of the members whose approvals executed it, as counted then: the record keeps them "
                  "whatever roles those members hold later.")

    @property
    def shown_summary(self) -> str:
        return shown(self.summary_sentence, self.summary)

    @property
    def shown_outcome(self) -> str:
        return shown(self.outcome_sentence, self.outcome_note)

    class Meta:
        ordering = ["-opened_at", "-pk"]
        indexes = [models.Index(fields=["organization", "state"], name="decision_org_state")]
        constraints = [
            models.CheckConstraint(condition=Q(threshold__gte=1), name="decision_threshold_positive"),
            models.CheckConstraint(condition=Q(state__in=DecisionState.values), name="decision_state_valid"),
            models.CheckConstraint(condition=Q(state="open", closed_at__isnull=True)
                                   | (~Q(state="open") & Q(closed_at__isnull=False)),
                                   name="decision_closed_when_not_open"),
            models.CheckConstraint(condition=~Q(state="executed") | Q(executed_by__isnull=False),
                                   name="decision_executed_by_someone"),
            # One open decision per subject and kind: a second proposal amends the first instead.
            models.UniqueConstraint(fields=["organization", "kind", "subject"], condition=Q(state="open"),
                                    name="decision_one_open_per_subject"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} on {self.subject} ({self.state})"


class Verdict(models.TextChoices):
    APPROVE = "approve", gettext_lazy("Approve")
    REJECT = "reject", gettext_lazy("Reject")


class Signature(AppendOnlyModel):
    """One member's signature of one revision of a decision: approve or reject, what they checked, and their
    comment (required to reject). A signature of an earlier revision is stale and counts for nothing; a member
    signs a revision once."""

    # Indexed as the first column of signature_once_per_revision.
    decision = models.ForeignKey(Decision, on_delete=models.PROTECT, related_name="signatures", db_index=False)
    signer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    verdict = models.CharField(max_length=8, choices=Verdict.choices)
    checked = models.JSONField(default=list, blank=True, help_text="The checks the signer says they made.")
    comment = models.TextField(blank=True)
    revision = models.PositiveIntegerField()
    payload_hash = models.CharField(max_length=64)
    as_proposer = models.BooleanField(default=False, help_text="The proposal itself, where one signature decides "
                                                               "(k = 1, or a restriction).")
    signed_at = models.DateTimeField(default=timezone.now)

    append_only_message = "Signatures are never changed or deleted."

    class Meta:
        ordering = ["signed_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["decision", "signer", "revision"], name="signature_once_per_revision"),
            models.CheckConstraint(condition=Q(verdict__in=Verdict.values), name="signature_verdict_valid"),
            models.CheckConstraint(condition=~Q(verdict="reject") | ~Q(comment=""),
                                   name="signature_reject_has_comment"),
        ]

    def __str__(self) -> str:
        return f"{self.signer} {self.verdict}s {self.decision} (revision {self.revision})"
