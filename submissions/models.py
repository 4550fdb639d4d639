"""Participation terms, method submissions and ownership transfer (SPEC §5, §6; docs/submissions.md). The
tables keep the names they were created with (`governance_*`)."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from common.append_only import AppendOnlyModel
from leaderboard.verification import DEPLOYABLE_THRESHOLD
from organizations.models import Organization

# SPEC §5, ownership transfer (§8.3): what each side holds once a method is transferred.
DEVELOPER_KEEPS = [
    "Attribution as the method's author",
    "The right to publish about the method",
    "The right to use the method for other language pairs",
]
GOVERNANCE_GETS = [
    "The right to use the method for the community's language",
    "The right to modify it",
    "The right to distribute it",
    "The right to monetize it",
    "The right to sublicense it",
    "The method code",
]
DEFAULT_TRANSFER_CLAUSE = (
    "Ownership transfer. If the submitted method reaches a composite score of at least "
    f"{DEPLOYABLE_THRESHOLD:.2f} on the gold_standard segment of our corpus and our community approves it at the "
    "review gate, its ownership for our language transfers to this governance organization, which records the "
    "transfer.\n\n"
    "The developer keeps: " + "; ".join(item[0].lower() + item[1:] for item in DEVELOPER_KEEPS) + ".\n"
    "The governance organization gets: " + "; ".join(item[0].lower() + item[1:] for item in GOVERNANCE_GETS) + "."
)


class ParticipationTerms(AppendOnlyModel):
    """One published version of an organization's participation terms. A published version is never
    edited: changing the terms means publishing the next version, so every acceptance keeps pointing at
    the exact text that was accepted. The ownership-transfer clause is a field of its own (required) so
    that no version can be published without it and pages can show it apart."""

    # Indexed as the first column of terms_unique_version.
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT,
                                     related_name="participation_terms", db_index=False)
    version = models.CharField(max_length=40, help_text="A label such as 1, 2025-1 or 1.1.")
    text = models.TextField(help_text="The terms a submitter accepts.")
    transfer_clause = models.TextField(help_text="The ownership-transfer clause (SPEC §5).")
    published_at = models.DateTimeField(default=timezone.now)
    published_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        db_table = "governance_participationterms"
        ordering = ["organization", "-published_at", "-pk"]
        verbose_name = "participation terms"
        verbose_name_plural = "participation terms"
        constraints = [
            models.UniqueConstraint(fields=["organization", "version"], name="terms_unique_version"),
            models.CheckConstraint(condition=~Q(version="") & ~Q(text="") & ~Q(transfer_clause=""),
                                   name="terms_version_text_and_clause_required"),
        ]

    def __str__(self) -> str:
        return f"{self.organization} participation terms, version {self.version}"


class TermsAcceptance(AppendOnlyModel):
    """A user accepted one exact version of an organization's terms, at this moment."""

    # Indexed as the first column of terms_accepted_once.
    terms = models.ForeignKey(ParticipationTerms, on_delete=models.PROTECT, related_name="acceptances", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="terms_acceptances")
    accepted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "governance_termsacceptance"
        ordering = ["-accepted_at"]
        constraints = [models.UniqueConstraint(fields=["terms", "user"], name="terms_accepted_once")]

    def __str__(self) -> str:
        return f"{self.user} accepted {self.terms}"


class SubmissionState(models.TextChoices):
    """The workflow of docs/submissions.md; TRANSITIONS (below) says which moves exist."""

    SUBMITTED = "submitted", gettext_lazy("Submitted")
    MANIFEST_AUDITED = "manifest_audited", gettext_lazy("Manifest audited")
    AWAITING_SANDBOX = "awaiting_sandbox", gettext_lazy("Awaiting sandbox run")
    EVALUATED = "evaluated", gettext_lazy("Evaluated")
    IN_REVIEW = "in_review", gettext_lazy("In community review")
    APPROVED = "approved", gettext_lazy("Approved")
    REJECTED = "rejected", gettext_lazy("Rejected")
    OWNERSHIP_TRANSFERRED = "ownership_transferred", gettext_lazy("Ownership transferred")


# Who may move a submission where. The move to manifest_audited is governance staff's once a reviewer signed off
# every dependency the manifest declares (`submit_method` makes it at once for a manifest that declares none);
# every other move is governance staff's too. Rejection is possible at every step before approval: before
# community review with a written reason (governance declines to evaluate), from review on only when the decision
# in force rejects (or revokes the approval). Rejected and ownership_transferred are terminal: a corrected method
# is a new submission.
TRANSITIONS: dict[str, tuple[str, ...]] = {
    SubmissionState.SUBMITTED: (SubmissionState.MANIFEST_AUDITED, SubmissionState.REJECTED),
    SubmissionState.MANIFEST_AUDITED: (SubmissionState.AWAITING_SANDBOX, SubmissionState.REJECTED),
    SubmissionState.AWAITING_SANDBOX: (SubmissionState.EVALUATED, SubmissionState.REJECTED),
    SubmissionState.EVALUATED: (SubmissionState.IN_REVIEW, SubmissionState.REJECTED),
    SubmissionState.IN_REVIEW: (SubmissionState.APPROVED, SubmissionState.REJECTED),
    SubmissionState.APPROVED: (SubmissionState.OWNERSHIP_TRANSFERRED, SubmissionState.REJECTED),
    SubmissionState.REJECTED: (),
    SubmissionState.OWNERSHIP_TRANSFERRED: (),
}


# States in which the gold run card produced by the sandbox is attached.
STATES_WITH_RUN_CARD = [SubmissionState.EVALUATED, SubmissionState.IN_REVIEW, SubmissionState.APPROVED,
                        SubmissionState.OWNERSHIP_TRANSFERRED]


def submission_package_path(submission: "MethodSubmission", filename: str) -> str:
    """A random name under MEDIA_ROOT/submissions/: the original name is kept in `package_name`, and
    packages are never served under MEDIA_URL."""
    suffix = ".tar.gz" if filename.lower().endswith((".tar.gz", ".tgz")) else ".zip"
    return f"submissions/{submission.organization_id}/{uuid.uuid4().hex}{suffix}"


class MethodSubmission(models.Model):
    """A method submitted to one organization for gold-standard evaluation: the package as stored, what
    its inspection and manifest audit found, and where it is in the workflow. Only `state` and
    `run_card` change after creation, through `submissions.services`; the state history is
    `SubmissionEvent`. Class X never gets here (refused), and the declared class equals the derived one
    (a mismatch is refused), so both are constraints."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # Indexed as the first column of submission_org_state.
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="method_submissions",
                                     db_index=False)
    submitter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="method_submissions")
    terms_acceptance = models.ForeignKey(TermsAcceptance, on_delete=models.PROTECT, related_name="submissions")
    method_id = models.CharField(max_length=200, help_text="From the method card.")
    method_name = models.CharField(max_length=200, help_text="From the method card.")
    declared_class = models.CharField(max_length=2, help_text="The manifest's dependency_class.")
    derived_class = models.CharField(max_length=2, help_text="Derived from the manifest's dependencies.")
    deciding_dependency = models.CharField(max_length=200, blank=True,
                                           help_text="The dependency that decides the derived class.")
    open_leaderboard_only = models.BooleanField(
        default=False, help_text="Class A2 (non-substitutable external API): open leaderboard only, flagged."
    )
    package = models.FileField(upload_to=submission_package_path, max_length=255)
    package_name = models.CharField(max_length=255, help_text="The uploaded file's original name.")
    package_sha256 = models.CharField(max_length=64)
    package_size = models.PositiveBigIntegerField()
    files = models.JSONField(help_text="The package's files: path, size and kind of each.")
    method_card = models.JSONField()
    manifest = models.JSONField(help_text="method.json as submitted.")
    cost_report = models.JSONField()
    development_data = models.JSONField(
        null=True, blank=True, help_text="The submitter's declaration of the public development entries the method "
                                         "used (leaderboard.declarations); null on submissions made before it was "
                                         "asked.")
    state = models.CharField(max_length=24, choices=SubmissionState.choices, default=SubmissionState.SUBMITTED)
    run_card = models.ForeignKey("leaderboard.RunCard", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="method_submissions",
                                 help_text="The gold_standard run card governance's sandbox produced.")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "governance_methodsubmission"
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(state__in=SubmissionState.values), name="submission_state_valid"),
            models.CheckConstraint(condition=Q(derived_class__in=["S", "O", "A1", "A2"]),
                                   name="submission_class_not_x"),
            models.CheckConstraint(condition=Q(declared_class=F("derived_class")),
                                   name="submission_declared_class_is_derived"),
            models.CheckConstraint(
                condition=Q(derived_class="A2", open_leaderboard_only=True)
                | (~Q(derived_class="A2") & Q(open_leaderboard_only=False)),
                name="submission_a2_open_leaderboard_only",
            ),
            models.CheckConstraint(condition=Q(run_card__isnull=False) | ~Q(state__in=STATES_WITH_RUN_CARD),
                                   name="submission_run_card_once_evaluated"),
            models.UniqueConstraint(fields=["run_card"], condition=Q(run_card__isnull=False),
                                    name="submission_run_card_unique"),
        ]
        indexes = [models.Index(fields=["organization", "state"], name="submission_org_state")]

    def __str__(self) -> str:
        return f"{self.method_name} → {self.organization} ({self.get_state_display()})"


class SubmissionEvent(AppendOnlyModel):
    """One state change of a submission, for the timeline its submitter and governance staff see (the
    audit log holds the same change, chained; this table is the per-submission view of it)."""

    submission = models.ForeignKey(MethodSubmission, on_delete=models.PROTECT, related_name="events")
    from_state = models.CharField(max_length=24, blank=True)
    to_state = models.CharField(max_length=24, choices=SubmissionState.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "governance_submissionevent"
        ordering = ["submission", "created_at", "pk"]
        verbose_name = "submission event"
        constraints = [
            models.CheckConstraint(
                condition=Q(to_state__in=SubmissionState.values), name="submissionevent_state_valid"
            ),
        ]


class OwnershipTransfer(AppendOnlyModel):
    """The recorded transfer of a method to a governance organization (SPEC §5), against the exact terms
    version the developer accepted. Public: it is shown on the method's page."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    submission = models.OneToOneField(MethodSubmission, on_delete=models.PROTECT, related_name="transfer")
    method_id = models.CharField(max_length=200, db_index=True)
    method_name = models.CharField(max_length=200)
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="ownership_transfers")
    terms = models.ForeignKey(ParticipationTerms, on_delete=models.PROTECT, related_name="transfers")
    run_card = models.ForeignKey("leaderboard.RunCard", on_delete=models.PROTECT, related_name="+",
                                 help_text="The gold_standard run card that made the method eligible.")
    developer_keeps = models.JSONField(default=list)
    governance_gets = models.JSONField(default=list)
    notes = models.TextField(blank=True)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "governance_ownershiptransfer"
        ordering = ["-recorded_at"]

    def __str__(self) -> str:
        return f"{self.method_name} transferred to {self.organization}"


class HarnessIntake(models.Model):
    """A run card the upstream harness publishes in pieces (docs/run-cards.md, "Publishing from the upstream
    harness"): first its row — flattened columns and the card, without per-entry rows — then those rows in batches.
    Kept here until the rows are complete; then the card is accepted exactly as a card posted whole would be, and
    `run_card` points at it."""

    class State(models.TextChoices):
        AWAITING_ENTRIES = "awaiting", gettext_lazy("Awaiting its per-entry rows")
        ACCEPTED = "accepted", gettext_lazy("Accepted")
        REFUSED = "refused", gettext_lazy("Refused")

    row_id = models.UUIDField(unique=True, help_text="The harness's id of the card (its row id), also the card's id "
                              "here once accepted.")
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    received_at = models.DateTimeField(default=timezone.now)
    row = models.JSONField(help_text="The row's columns as posted, without `run_card`.")
    card_text = models.TextField(help_text="The row's `run_card` member, exactly as posted.")
    expected_entries = models.PositiveIntegerField(help_text="dataset.entry_count (else scores.total) of the card.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.AWAITING_ENTRIES)
    problems = models.JSONField(default=list, help_text="Why the card was refused once its rows were complete.")
    run_card = models.OneToOneField("leaderboard.RunCard", null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="harness_intake")

    class Meta:
        db_table = "submissions_harness_intake"
        constraints = [
            models.CheckConstraint(condition=Q(state__in=["awaiting", "accepted", "refused"]),
                                   name="harness_intake_state_known"),
        ]


class HarnessIntakeEntry(models.Model):
    """One per-entry row of a harness card, as posted; one per (card, entry id): a batch sent again is ignored."""

    # Indexed as the first column of harness_intake_entry_once.
    intake = models.ForeignKey(HarnessIntake, on_delete=models.CASCADE, related_name="entries", db_index=False)
    entry_id = models.CharField(max_length=200)
    row = models.JSONField(help_text="The row as posted, without `run_card_id`.")

    class Meta:
        db_table = "submissions_harness_intake_entry"
        ordering = ["intake", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["intake", "entry_id"], name="harness_intake_entry_once"),
        ]


class DependencySignOff(AppendOnlyModel):
    """A reviewer's sign-off on one dependency the submission's manifest declares: its licence and its source were
    checked. It holds for the manifest it was given on (`manifest_sha256`); once the manifest changes it is stale and
    counts for nothing (`submissions.selectors.manifest_digest`). The move to "manifest audited" needs a current
    sign-off of every declared dependency."""

    # Indexed as the first column of signoff_once_per_manifest.
    submission = models.ForeignKey(MethodSubmission, on_delete=models.PROTECT, related_name="sign_offs",
                                   db_index=False)
    dependency_id = models.CharField(max_length=200, help_text="The dependency's id in method.json.")
    manifest_sha256 = models.CharField(max_length=64, help_text="The manifest the sign-off was given on.")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    license_checked = models.BooleanField(help_text="The reviewer checked the dependency's licence.")
    source_checked = models.BooleanField(help_text="The reviewer checked where the dependency comes from.")
    comment = models.TextField(blank=True)
    signed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["submission", "dependency_id", "-signed_at"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "dependency_id", "manifest_sha256"],
                                    name="signoff_once_per_manifest"),
            models.CheckConstraint(condition=Q(license_checked=True, source_checked=True),
                                   name="signoff_licence_and_source_checked"),
            models.CheckConstraint(condition=~Q(dependency_id="") & ~Q(manifest_sha256=""),
                                   name="signoff_names_dependency_and_manifest"),
        ]

    def __str__(self) -> str:
        return f"{self.dependency_id} signed off by {self.reviewer_id}"


def permission_document_path(permission: "RightsHolderPermission", filename: str) -> str:
    """A random name under MEDIA_ROOT/submissions/<organization>/permissions/; never served under MEDIA_URL."""
    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else "bin"
    return f"submissions/{permission.submission.organization_id}/permissions/{uuid.uuid4().hex}.{suffix}"


class RightsHolderPermission(AppendOnlyModel):
    """The rights holder's permission for one non-substitutable external dependency (class A2) of a submission
    (benchmark specification §8.6): until every A2 dependency has one, the method neither enters the sandbox nor is
    transferred. Documented by an uploaded document, a reference to one, or both."""

    # Indexed as the first column of rights_permission_once.
    submission = models.ForeignKey(MethodSubmission, on_delete=models.PROTECT, related_name="rights_permissions",
                                   db_index=False)
    dependency_id = models.CharField(max_length=200, help_text="The A2 dependency's id in method.json.")
    rights_holder = models.CharField(max_length=300, help_text="Who holds the rights and gave the permission.")
    document = models.FileField(upload_to=permission_document_path, max_length=255, blank=True)
    document_name = models.CharField(max_length=255, blank=True, help_text="The uploaded file's original name.")
    document_reference = models.CharField(max_length=500, blank=True, help_text="A URL or an archive reference.")
    notes = models.TextField(blank=True)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["submission", "dependency_id"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "dependency_id"], name="rights_permission_once"),
            models.CheckConstraint(condition=~Q(document="") | ~Q(document_reference=""),
                                   name="rights_permission_documented"),
            models.CheckConstraint(condition=~Q(rights_holder="") & ~Q(dependency_id=""),
                                   name="rights_permission_names_holder"),
        ]

    def __str__(self) -> str:
        return f"{self.rights_holder} permits {self.dependency_id}"
