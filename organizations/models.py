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

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=60, unique=True)
    languages = models.JSONField(default=list, blank=True, help_text="BCP 47 codes of the languages it stewards.")
    principles = models.TextField(blank=True, help_text="The principles it operates under, e.g. OCAP®, CARE.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "governance_organization"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


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
    """Every action the audit log records; `record_event` refuses any other."""

    ORGANIZATION_CREATED = "organization.created", "Organization created"
    ORGANIZATION_CHANGED = "organization.changed", "Organization changed"
    MEMBERSHIP_ADDED = "membership.added", "Member added"
    MEMBERSHIP_ROLE_CHANGED = "membership.role_changed", "Member's role changed"
    MEMBERSHIP_REMOVED = "membership.removed", "Member removed"
    INVITATION_SENT = "invitation.sent", "Invitation sent"
    INVITATION_REVOKED = "invitation.revoked", "Invitation revoked"
    CONSENT_GRANTED = "consent.granted", "Consent granted"
    CONSENT_REVOKED = "consent.revoked", "Consent revoked"
    DATASET_PUBLISHED = "dataset.published", "Dataset published"
    DATASET_WITHDRAWN = "dataset.withdrawn", "Dataset withdrawn from public view"
    DATASET_VERSION_FROZEN = "dataset_version.frozen", "Dataset version frozen"
    SECRET_ENTRIES_SHOWN = "secret_entries.shown", "Secret entries shown"
    RUN_CARD_SECRET_TEXT_REFUSED = "run_card.secret_text_refused", "Run card refused for holding secret text"
    VERIFICATION_TIER_CHANGED = "verification_tier.changed", "Verification tier changed"
    CAMPAIGN_OPENED = "campaign.opened", "Review campaign opened"
    CAMPAIGN_PAUSED = "campaign.paused", "Review campaign paused"
    CAMPAIGN_RESUMED = "campaign.resumed", "Review campaign resumed"
    CAMPAIGN_CLOSED = "campaign.closed", "Review campaign closed"
    CAMPAIGN_SPEAKER_ADDED = "campaign.speaker_added", "Speaker added to a campaign"
    CAMPAIGN_SPEAKER_REMOVED = "campaign.speaker_removed", "Speaker removed from a campaign"
    GATE_POLICY_CHANGED = "gate_policy.changed", "Validation gate policy changed"
    REVIEW_DECISION = "review.decision", "Review gate decision recorded"
    REVIEW_RATINGS_EXPORTED = "review.ratings_exported", "Ratings exported"
    TERMS_PUBLISHED = "terms.published", "Participation terms published"
    TERMS_ACCEPTED = "terms.accepted", "Participation terms accepted"
    SUBMISSION_STATE_CHANGED = "submission.state_changed", "Method submission state changed"
    OWNERSHIP_TRANSFERRED = "ownership.transferred", "Ownership transferred"
    CAMPAIGN_INSTRUCTIONS_CHANGED = "campaign.instructions_changed", "Review campaign's instructions changed"
    RATING_EXAMPLES_CHANGED = "rating_examples.changed", "Community's rating examples changed"
    SPEAKER_EXCLUDED = "review.speaker_excluded", "Speaker's ratings excluded from a campaign's figures"
    SPEAKER_INCLUDED = "review.speaker_included", "Speaker's ratings counted again in a campaign's figures"
    RATINGS_WITHDRAWN = "review.ratings_withdrawn", "Speaker withdrew their ratings of a campaign"
    SPEAKER_CREDIT_CHANGED = "review.speaker_credit_changed", "Speaker changed how they are credited"
    PAY_RATE_CHANGED = "pay.rate_changed", "Speakers' pay rate changed"
    PAYMENT_RECORDED = "pay.payment_recorded", "Payment to a speaker recorded"
    TIMESHEET_EXPORTED = "pay.timesheet_exported", "Timesheet exported"
    ACCOUNT_DELETED = "account.deleted", "Account deleted and anonymised"
    INTERFACE_LANGUAGE_ADDED = "interface_language.added", "Interface language added"
    INTERFACE_TRANSLATION_CHANGED = "interface_translation.changed", "Interface translation changed"
    CORPUS_IMPORTED = "corpus.imported", "Corpus file imported"
    CORPUS_ENTRY_ADDED = "corpus.entry_added", "Corpus entry added"
    CORPUS_ENTRY_CHANGED = "corpus.entry_changed", "Corpus entry changed"
    CORPUS_BULK_IMPORTED = "corpus.bulk_imported", "Corpus entries imported in bulk"
    DATASET_VERSION_CREATED = "dataset_version.created", "Dataset version created"
    SEGMENTS_ROTATED = "dataset_version.segments_rotated", "Entries rotated between segments into a new version"
    HELD_OUT_ACTIVATED = "dataset_version.held_out_activated", "Held-out segment made scorable"
    RUN_CARD_DISQUALIFIED = "run_card.disqualified", "Run card or method disqualified"
    DISQUALIFICATION_LIFTED = "run_card.disqualification_lifted", "Disqualification lifted"
    TIER_BANDS_CHANGED = "tier_bands.changed", "Quality-tier bands changed"
    SKILL_ATTESTED = "speaker_skill.attested", "Speaker's language skill attested"
    ATTESTATION_WITHDRAWN = "speaker_skill.attestation_withdrawn", "Attestation of a speaker's language skill withdrawn"
    PRACTICE_ROUND_CHANGED = "practice.round_changed", "Practice round settings changed"
    PRACTICE_ITEM_CHANGED = "practice.item_changed", "Practice item written, changed or retired"
    PRACTICE_PASSED = "practice.passed", "Practice round passed"
    PRACTICE_FAILED = "practice.failed", "Practice round failed"
    CONFLICT_DECLARED = "conflict.declared", "Conflict of interest declared"
    CONFLICT_WITHDRAWN = "conflict.withdrawn", "Declared conflict of interest withdrawn"


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
