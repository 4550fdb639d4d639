"""Language-community organizations, their members' roles, invitations and the audit log: the ground floor every
other app stands on. The tables keep the names they were created with (`governance_*`)."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import pgettext_lazy

from common.append_only import AppendOnlyModel
from common.text import validate_visible_label


class Role(models.TextChoices):
    GOVERNANCE = "governance", "Governance staff"
    CURATOR = "curator", "Corpus curator"
    SPEAKER = "speaker", "Speaker"


# The roles' names as pages show them, in the reader's language. Role keeps its English labels: they are
# recorded in migrations, which translating them would churn.
ROLE_LABELS = {
    Role.GOVERNANCE: pgettext_lazy("role", "Governance staff"),
    Role.CURATOR: pgettext_lazy("role", "Corpus curator"),
    Role.SPEAKER: pgettext_lazy("role", "Speaker"),
}
ROLE_CHOICES = list(ROLE_LABELS.items())


def role_label(role: str) -> str:
    """A role's name in the active language (the value itself for a role no longer defined)."""
    return str(ROLE_LABELS.get(role, role))


# Roles that may see the secret segments of the organization's corpora.
SECRET_READER_ROLES = (Role.GOVERNANCE, Role.CURATOR)


class Organization(models.Model):
    """Represents a language community; stewards corpora and operates under recorded principles."""

    name = models.CharField(max_length=200, validators=[validate_visible_label])
    slug = models.SlugField(max_length=60, unique=True)
    languages = models.JSONField(default=list, blank=True, help_text="BCP 47 codes of the languages it stewards.")
    principles = models.TextField(blank=True, help_text="The principles it operates under, e.g. OCAP®, CARE.")
    created_at = models.DateTimeField(default=timezone.now)
    # Its commitments (benchmark specification §8.4), shown on its page; `organizations.services.update_commitments`
    # changes them, audited.
    community_relationship = models.TextField(
        blank=True, help_text="How it represents the community: its mandate and the evidence of it.")
    relationship_evidence = models.CharField(
        max_length=300, blank=True, help_text="Where that evidence is kept (e.g. a council resolution's reference).")
    key_custody = models.TextField(blank=True, help_text="Who holds the keys to its secret segments, and how.")
    evaluable_commitment = models.TextField(
        blank=True, help_text="Its commitment to keep the benchmark evaluable (how long, under which conditions).")
    evaluation_paused_until = models.DateField(null=True, blank=True)
    evaluation_pause_reason = models.TextField(blank=True)
    commitments_changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "governance_organization"
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(evaluation_paused_until__isnull=True) | ~Q(evaluation_pause_reason=""),
                                   name="organization_pause_has_reason"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def evaluation_paused(self) -> bool:
        """Whether the community paused evaluation of its datasets (until the end of `evaluation_paused_until`):
        no new run card against them and no new review campaign until then."""
        return self.evaluation_paused_until is not None and timezone.localdate() <= self.evaluation_paused_until


class Membership(models.Model):
    """One role of one user in one organization; a user with several roles has several rows."""

    # Indexed as the first column of membership_unique_role.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="memberships", db_index=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "governance_membership"
        ordering = ["organization__name", "role"]
        constraints = [
            models.UniqueConstraint(fields=["user", "organization", "role"], name="membership_unique_role"),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="membership_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} — {self.get_role_display()} of {self.organization}"


def new_invitation_token() -> str:
    return secrets.token_urlsafe(32)


def default_invitation_expiry():
    return timezone.now() + timedelta(days=14)


class Invitation(models.Model):
    """A sign-up link bound to one organization and role, sent to one e-mail address."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=20, choices=[(Role.CURATOR, "Corpus curator"), (Role.SPEAKER, "Speaker")])
    token = models.CharField(max_length=64, unique=True, default=new_invitation_token)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(default=default_invitation_expiry)
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        db_table = "governance_invitation"
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(role__in=["curator", "speaker"]), name="invitation_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.email} as {self.role} of {self.organization}"

    @property
    def is_open(self) -> bool:
        return self.accepted_at is None and self.expires_at > timezone.now()


class AuditAction(models.TextChoices):
    """Every action the audit log records; `record_event` refuses any other. The label is what pages show for it,
    in the reader's language; the code stays in the log and its CSV export."""

    ORGANIZATION_CREATED = "organization.created", pgettext_lazy("audit action", "Organization created")
    ORGANIZATION_CHANGED = "organization.changed", pgettext_lazy("audit action", "Organization changed")
    COMMITMENTS_CHANGED = "organization.commitments_changed", pgettext_lazy(
        "audit action", "Organization's commitments changed")
    MEMBERSHIP_ADDED = "membership.added", pgettext_lazy("audit action", "Member added")
    MEMBERSHIP_ROLE_CHANGED = "membership.role_changed", pgettext_lazy("audit action", "Member's role changed")
    MEMBERSHIP_REMOVED = "membership.removed", pgettext_lazy("audit action", "Member removed")
    INVITATION_SENT = "invitation.sent", pgettext_lazy("audit action", "Invitation sent")
    INVITATION_REVOKED = "invitation.revoked", pgettext_lazy("audit action", "Invitation revoked")
    CONSENT_GRANTED = "consent.granted", pgettext_lazy("audit action", "Consent granted")
    CONSENT_REVOKED = "consent.revoked", pgettext_lazy("audit action", "Consent revoked")
    DATASET_PUBLISHED = "dataset.published", pgettext_lazy("audit action", "Dataset published")
    DATASET_WITHDRAWN = "dataset.withdrawn", pgettext_lazy("audit action", "Dataset withdrawn from public view")
    DATASET_LABELS_CHANGED = "dataset.labels_changed", pgettext_lazy(
        "audit action", "Dataset's Local Contexts labels changed")
    DATASET_LABELS_RELEASED = "dataset.labels_released", pgettext_lazy(
        "audit action", "Dataset released under its restrictive labels")
    DATASET_VERSION_FROZEN = "dataset_version.frozen", pgettext_lazy("audit action", "Dataset version frozen")
    SECRET_ENTRIES_SHOWN = "secret_entries.shown", pgettext_lazy("audit action", "Secret entries shown")
    RUN_CARD_SECRET_TEXT_REFUSED = "run_card.secret_text_refused", pgettext_lazy(
        "audit action", "Run card refused for holding secret text")
    VERIFICATION_TIER_CHANGED = "verification_tier.changed", pgettext_lazy("audit action", "Verification tier changed")
    CAMPAIGN_OPENED = "campaign.opened", pgettext_lazy("audit action", "Review campaign opened")
    CAMPAIGN_PAUSED = "campaign.paused", pgettext_lazy("audit action", "Review campaign paused")
    CAMPAIGN_RESUMED = "campaign.resumed", pgettext_lazy("audit action", "Review campaign resumed")
    CAMPAIGN_CLOSED = "campaign.closed", pgettext_lazy("audit action", "Review campaign closed")
    CAMPAIGN_SPEAKER_ADDED = "campaign.speaker_added", pgettext_lazy("audit action", "Speaker added to a campaign")
    CAMPAIGN_SPEAKER_REMOVED = "campaign.speaker_removed", pgettext_lazy(
        "audit action", "Speaker removed from a campaign")
    GATE_POLICY_CHANGED = "gate_policy.changed", pgettext_lazy("audit action", "Validation gate policy changed")
    REVIEW_DECISION = "review.decision", pgettext_lazy("audit action", "Review gate decision recorded")
    REVIEW_RATINGS_EXPORTED = "review.ratings_exported", pgettext_lazy("audit action", "Ratings exported")
    TERMS_PUBLISHED = "terms.published", pgettext_lazy("audit action", "Participation terms published")
    TERMS_ACCEPTED = "terms.accepted", pgettext_lazy("audit action", "Participation terms accepted")
    SUBMISSION_STATE_CHANGED = "submission.state_changed", pgettext_lazy(
        "audit action", "Method submission state changed")
    OWNERSHIP_TRANSFERRED = "ownership.transferred", pgettext_lazy("audit action", "Ownership transferred")
    CAMPAIGN_INSTRUCTIONS_CHANGED = "campaign.instructions_changed", pgettext_lazy(
        "audit action", "Review campaign's instructions changed")
    RATING_EXAMPLES_CHANGED = "rating_examples.changed", pgettext_lazy(
        "audit action", "Community's rating examples changed")
    SPEAKER_EXCLUDED = "review.speaker_excluded", pgettext_lazy(
        "audit action", "Speaker's ratings excluded from a campaign's figures")
    SPEAKER_INCLUDED = "review.speaker_included", pgettext_lazy(
        "audit action", "Speaker's ratings counted again in a campaign's figures")
    RATINGS_WITHDRAWN = "review.ratings_withdrawn", pgettext_lazy(
        "audit action", "Speaker withdrew their ratings of a campaign")
    SPEAKER_CREDIT_CHANGED = "review.speaker_credit_changed", pgettext_lazy(
        "audit action", "Speaker changed how they are credited")
    PAY_RATE_CHANGED = "pay.rate_changed", pgettext_lazy("audit action", "Speakers' pay rate changed")
    PAYMENT_RECORDED = "pay.payment_recorded", pgettext_lazy("audit action", "Payment to a speaker recorded")
    TIMESHEET_EXPORTED = "pay.timesheet_exported", pgettext_lazy("audit action", "Timesheet exported")
    ACCOUNT_DELETED = "account.deleted", pgettext_lazy("audit action", "Account deleted and anonymised")
    INTERFACE_LANGUAGE_ADDED = "interface_language.added", pgettext_lazy("audit action", "Interface language added")
    INTERFACE_TRANSLATION_CHANGED = "interface_translation.changed", pgettext_lazy(
        "audit action", "Interface translation changed")
    CORPUS_IMPORTED = "corpus.imported", pgettext_lazy("audit action", "Corpus file imported")
    CORPUS_ENTRY_ADDED = "corpus.entry_added", pgettext_lazy("audit action", "Corpus entry added")
    CORPUS_ENTRY_CHANGED = "corpus.entry_changed", pgettext_lazy("audit action", "Corpus entry changed")
    CORPUS_BULK_IMPORTED = "corpus.bulk_imported", pgettext_lazy("audit action", "Corpus entries imported in bulk")
    CORPUS_ENTRIES_ADDED = "corpus.entries_added", pgettext_lazy("audit action", "Corpus entries added")
    CORPUS_ENTRIES_REMOVED = "corpus.entries_removed", pgettext_lazy("audit action", "Corpus entries removed")
    ELICITATION_BATCH_CREATED = "elicitation.batch_created", pgettext_lazy("audit action", "Elicitation batch created")
    DATASET_VERSION_CREATED = "dataset_version.created", pgettext_lazy("audit action", "Dataset version created")
    SEGMENTS_ROTATED = "dataset_version.segments_rotated", pgettext_lazy(
        "audit action", "Entries rotated between segments into a new version")
    HELD_OUT_ACTIVATED = "dataset_version.held_out_activated", pgettext_lazy(
        "audit action", "Held-out segment made scorable")
    RUN_CARD_DISQUALIFIED = "run_card.disqualified", pgettext_lazy("audit action", "Run card or method disqualified")
    DISQUALIFICATION_LIFTED = "run_card.disqualification_lifted", pgettext_lazy(
        "audit action", "Disqualification lifted")
    TIER_BANDS_CHANGED = "tier_bands.changed", pgettext_lazy("audit action", "Quality-tier bands changed")
    SKILL_ATTESTED = "speaker_skill.attested", pgettext_lazy("audit action", "Speaker's language skill attested")
    ATTESTATION_WITHDRAWN = "speaker_skill.attestation_withdrawn", pgettext_lazy(
        "audit action", "Attestation of a speaker's language skill withdrawn")
    PRACTICE_ROUND_CHANGED = "practice.round_changed", pgettext_lazy("audit action", "Practice round settings changed")
    PRACTICE_ITEM_CHANGED = "practice.item_changed", pgettext_lazy(
        "audit action", "Practice item written, changed or retired")
    PRACTICE_PASSED = "practice.passed", pgettext_lazy("audit action", "Practice round passed")
    PRACTICE_FAILED = "practice.failed", pgettext_lazy("audit action", "Practice round failed")
    CONFLICT_DECLARED = "conflict.declared", pgettext_lazy("audit action", "Conflict of interest declared")
    CONFLICT_WITHDRAWN = "conflict.withdrawn", pgettext_lazy("audit action", "Declared conflict of interest withdrawn")
    DECISION_OPENED = "decision.opened", pgettext_lazy("audit action", "Decision proposed")
    DECISION_AMENDED = "decision.amended", pgettext_lazy(
        "audit action", "Decision changed (earlier signatures are stale)")
    DECISION_SIGNED = "decision.signed", pgettext_lazy("audit action", "Decision signed")
    DECISION_EXECUTED = "decision.executed", pgettext_lazy("audit action", "Decision executed")
    DECISION_REJECTED = "decision.rejected", pgettext_lazy("audit action", "Decision rejected")
    DECISION_EXPIRED = "decision.expired", pgettext_lazy("audit action", "Decision expired")
    DECISION_WITHDRAWN = "decision.withdrawn", pgettext_lazy("audit action", "Decision withdrawn")
    DECISION_FAILED = "decision.failed", pgettext_lazy("audit action", "Decision could not be executed")
    DECISION_POLICY_CHANGED = "decision_policy.changed", pgettext_lazy(
        "audit action", "Signatures a kind of decision needs changed")
    PACKAGE_DOWNLOADED = "submission.package_downloaded", pgettext_lazy(
        "audit action", "Method package downloaded")
    PACKAGE_REVISED = "submission.package_revised", pgettext_lazy(
        "audit action", "Method package revised before its manifest audit")
    DEPENDENCY_SIGNED_OFF = "submission.dependency_signed_off", pgettext_lazy(
        "audit action", "Method dependency signed off")
    RIGHTS_PERMISSION_RECORDED = "submission.rights_permission_recorded", pgettext_lazy(
        "audit action", "Rights holder's permission recorded")
    A1_RUN_APPROVED = "a1_run.approved", pgettext_lazy("audit action", "A1 run on secret sources approved")
    A1_RUN_USED = "a1_run.used", pgettext_lazy("audit action", "A1 run approval used by a run card")


SITE_CHAIN = "site"


def chain_of(organization_id: int | None) -> str:
    """The chain an event of this organization (None: site-wide) extends."""
    return SITE_CHAIN if organization_id is None else f"organization:{organization_id}"


class AuditEvent(AppendOnlyModel):
    """One governance-relevant event, chained to the event before it in its chain by `previous_hash`: changing or
    removing any event breaks every hash after it (`manage.py verify_audit_log`). Each organization has its own
    chain, and site-wide events (and every event logged before chains were split) form the `site` chain, so
    that two communities' writers never wait for each other."""

    # Indexed as the first column of auditevent_org_action.
    organization = models.ForeignKey(
        Organization, null=True, blank=True, on_delete=models.PROTECT, related_name="audit_events", db_index=False
    )
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    action = models.CharField(max_length=60, choices=AuditAction.choices)
    object_type = models.CharField(max_length=60, blank=True)
    object_id = models.CharField(max_length=100, blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    chain = models.CharField(max_length=40, default=SITE_CHAIN)
    previous_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)

    append_only_message = "The audit log is append-only."

    class Meta:
        db_table = "governance_auditevent"
        ordering = ["-id"]
        indexes = [models.Index(fields=["organization", "action"], name="auditevent_org_action"),
                   models.Index(fields=["chain", "id"], name="auditevent_chain_id")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action}"


class PendingSecretView(models.Model):
    """A response that showed secret entries, written at once with one plain INSERT (no chain lock, no read of the
    chain's last hash) and sealed into the audit chain as a `secret_entries.shown` event, with its own time, in
    batches (`organizations.audit.seal_secret_views`): every few seconds by a task, and before anything reads the
    log. The rows of a batch leave this table in the transaction that chains them."""

    # No index but the primary key: each row is written once, read once by the sealer in id order, then deleted;
    # the table holds a few seconds' views.
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="+", db_index=False)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+", db_index=False)
    details = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)
