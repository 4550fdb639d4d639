"""The governance dashboard: what waits for an organization's governance staff — consent per dataset,
method submissions to move on, review campaigns to decide, the latest audit events. Each section is one
or two queries whatever the amount of data (stale campaign figures add a bounded refresh, `request_fresh_figures`);
nothing here reads an entry's text."""

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q
from django.utils.translation import gettext, gettext_lazy

from corpus.models import CONSENT_USE_SHORT_LABELS, ConsentUse, Dataset
from governance.models import Decision as GovernanceDecision
from governance.selectors import waiting_for_signature
from leaderboard.models import RunCard
from organizations.audit import seal_secret_views
from organizations.audit_text import details_line
from organizations.models import AuditEvent, Organization
from organizations.selectors import audit_log
from review import services as review_services
from review.gate import OUTCOME_LABELS
from review.models import Campaign, Decision
from review.selectors import governed_campaigns, with_last_rating

from .models import MethodSubmission, SubmissionState
from .selectors import governed_submissions

RECENT_EVENTS = 10
WAITING_SHOWN = 10

# What governance staff do next with a submission in each state that is not final (docs/submissions.md).
NEXT_STEPS = {
    SubmissionState.SUBMITTED: gettext_lazy("Sign off each dependency, then audit the manifest"),
    SubmissionState.MANIFEST_AUDITED: gettext_lazy("Send it to the sandbox, or reject it"),
    SubmissionState.AWAITING_SANDBOX: gettext_lazy("Attach the run card your sandbox produced"),
    SubmissionState.EVALUATED: gettext_lazy("Start community review, or reject it"),
    SubmissionState.IN_REVIEW: gettext_lazy("Follow the review campaign's decision"),
    SubmissionState.APPROVED: gettext_lazy("Record the ownership transfer"),
}


@dataclass(frozen=True)
class DatasetConsent:
    """One dataset's consent at a glance: which uses active records cover, and how many were revoked."""

    dataset: Dataset
    active_records: int
    revoked_records: int
    covered: list[str]
    not_covered: list[str]

    @property
    def state(self) -> str:
        """One of: active (an active record exists), revoked (every record revoked), none (nothing recorded)."""
        if self.active_records:
            return "active"
        return "revoked" if self.revoked_records else "none"


def consent_status(organization: Organization) -> list[DatasetConsent]:
    """Every dataset of the organization with its consent counts, in one query."""
    active = Q(consents__revoked_at__isnull=True)
    datasets = Dataset.objects.filter(organization=organization).annotate(
        active_records=Count("consents", filter=active, distinct=True),
        revoked_records=Count("consents", filter=Q(consents__revoked_at__isnull=False), distinct=True),
        **{f"covers_{use.value}": Count("consents", filter=active & Q(**{f"consents__{use.value}": True}),
                                        distinct=True) for use in ConsentUse},
    ).order_by("identifier")
    return [DatasetConsent(
        dataset=dataset, active_records=dataset.active_records, revoked_records=dataset.revoked_records,
        covered=[str(CONSENT_USE_SHORT_LABELS[use]) for use in ConsentUse
                 if getattr(dataset, f"covers_{use.value}")],
        not_covered=[str(CONSENT_USE_SHORT_LABELS[use]) for use in ConsentUse
                     if not getattr(dataset, f"covers_{use.value}")],
    ) for dataset in datasets]


@dataclass(frozen=True)
class WaitingSubmission:
    submission: MethodSubmission
    next_step: str


def waiting_submissions(user, organization: Organization) -> tuple[list[WaitingSubmission], int]:
    """The oldest submissions still waiting for staff (every state but the final ones), and how many wait."""
    waiting = governed_submissions(user, organization).filter(state__in=list(NEXT_STEPS)).order_by("created_at", "pk")
    shown = [WaitingSubmission(submission, str(NEXT_STEPS[SubmissionState(submission.state)]))
             for submission in waiting[:WAITING_SHOWN]]
    total = len(shown) if len(shown) < WAITING_SHOWN else waiting.count()
    return shown, total


@dataclass(frozen=True)
class UndecidedCampaign:
    """A campaign with no decision recorded yet, with its last stored figures (`Campaign.summary`)."""

    campaign: Campaign

    @property
    def item_count(self) -> int:
        return (self.campaign.summary or {}).get("items") or 0

    @property
    def coverage(self) -> float:
        return (self.campaign.summary or {}).get("coverage") or 0.0

    @property
    def covered_items(self) -> int:
        """Items with the campaign's required number of ratings."""
        return round(self.coverage * self.item_count)

    @property
    def usable_share(self) -> float | None:
        return (self.campaign.summary or {}).get("usable_share")

    @property
    def fully_covered(self) -> bool:
        return self.item_count > 0 and self.coverage >= 1

    @property
    def gate_label(self) -> str:
        return str(OUTCOME_LABELS.get((self.campaign.summary or {}).get("gate"), ""))

    @property
    def situation(self) -> str:
        if self.fully_covered:
            return gettext("Every item has its ratings — ready for a decision")
        if self.campaign.status == Campaign.Status.CLOSED:
            return gettext("Closed — waiting for a decision")
        return {
            Campaign.Status.OPEN: gettext("Collecting ratings"),
            Campaign.Status.PAUSED: gettext("Paused"),
            Campaign.Status.PREPARING: gettext("Drawing the sample"),
        }.get(self.campaign.status, self.campaign.get_status_display())

    @property
    def priority(self) -> int:
        """Ready first, then closed ones, then those still collecting ratings."""
        if self.fully_covered:
            return 0
        return 1 if self.campaign.status == Campaign.Status.CLOSED else 2


def campaigns_needing_decision(user, organization: Organization) -> list[UndecidedCampaign]:
    """The organization's campaigns without a decision in force (none recorded: `decision_in_force` would
    answer None), those ready for one first; one query, however many campaigns."""
    decided = Decision.objects.filter(campaign=OuterRef("pk"))
    campaigns = (with_last_rating(governed_campaigns(user).filter(organization=organization).filter(~Exists(decided)))
                 .defer("strata").order_by("-opened_at"))
    return sorted((UndecidedCampaign(campaign) for campaign in campaigns), key=lambda row: row.priority)


def request_fresh_figures(rows: list[UndecidedCampaign]) -> list[UndecidedCampaign]:
    """The rows after asking for their campaigns' stale figures (review.services.request_fresh_figures), in order
    again: fresh figures may make a campaign ready."""
    review_services.request_fresh_figures([row.campaign for row in rows])
    return sorted(rows, key=lambda row: row.priority)


@dataclass(frozen=True)
class RecentEvent:
    event: AuditEvent

    @property
    def details_text(self) -> str:
        """The details on one line, in the reader's language, for the dashboard to shorten; the full log shows all."""
        return details_line(self.event.details)


def recent_events(organization: Organization) -> list[RecentEvent]:
    """The log's latest events, the secret views still pending chained first (`seal_secret_views`)."""
    seal_secret_views(organization)
    return [RecentEvent(event) for event in audit_log(organization)[:RECENT_EVENTS]]


FLAGGED_SHOWN = 10


def flagged_cards(organization: Organization) -> list[RunCard]:
    """Ready run cards on the organization's datasets that the variant-class lint flags (suspiciously many exact
    matches on entries with acceptable variants), newest first: for governance staff to look into, never acted on
    by the software."""
    return list(RunCard.objects.filter(dataset_version__dataset__organization=organization, status=RunCard.Status.READY,
                                       variant_lint__flagged=True)
                .select_related("dataset_version__dataset", "method")
                .only("public_id", "model_slug", "variant_lint", "submitted_at", "method__name",
                      "dataset_version__version", "dataset_version__dataset__identifier")
                .order_by("-submitted_at")[:FLAGGED_SHOWN])


@dataclass(frozen=True)
class Dashboard:
    organization: Organization
    datasets: list[DatasetConsent]
    submissions: list[WaitingSubmission]
    submissions_waiting: int
    campaigns: list[UndecidedCampaign]
    events: list[RecentEvent]
    flagged: list[RunCard]
    waiting_decisions: list[GovernanceDecision]

    @property
    def datasets_without_consent(self) -> int:
        return sum(1 for row in self.datasets if row.state != "active")

    @property
    def campaigns_ready(self) -> int:
        return sum(1 for row in self.campaigns if row.fully_covered)


def dashboard(user, organization: Organization) -> Dashboard:
    """Everything the dashboard shows, for the organization's governance staff (callers check the role
    and two-factor authentication; the submission and campaign selectors answer nothing otherwise). Stale
    campaign figures are asked for on the way (`request_fresh_figures`)."""
    submissions, waiting = waiting_submissions(user, organization)
    return Dashboard(organization=organization, datasets=consent_status(organization), submissions=submissions,
                     submissions_waiting=waiting,
                     campaigns=request_fresh_figures(campaigns_needing_decision(user, organization)),
                     events=recent_events(organization), flagged=flagged_cards(organization),
                     waiting_decisions=waiting_for_signature(user, organization))
