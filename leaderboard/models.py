"""Run cards as received, their per-entry results, per-domain scores, and method descriptions."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from corpus.models import DatasetVersion, Entry
from governance.models import Decision

from .verification import DEFAULT_TIER_BANDS


class Method(models.Model):
    """A method card (what a method is) and, when given, its dependency manifest with the derived class."""

    method_id = models.CharField(max_length=200, unique=True)
    name = models.CharField(max_length=200)
    method_class = models.CharField(max_length=20)
    dependency_class = models.CharField(max_length=2, blank=True, help_text="Derived from the manifest when given.")
    card = models.JSONField(help_text="The method card as submitted.")
    manifest = models.JSONField(null=True, blank=True, help_text="The dependency manifest (method.json) as submitted.")
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(method_class__in=["raw-llm", "coached-llm", "pipeline", "custom-plugin", "api", "human"]),
                name="method_class_valid",
            ),
            models.CheckConstraint(
                condition=Q(dependency_class__in=["", "S", "O", "A1", "A2", "X"]), name="method_dependency_class_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class RunCard(models.Model):
    """One evaluation run, stored whole (`raw`, the exact text received) with the columns pages need."""

    class HashStatus(models.TextChoices):
        VERIFIED = "verified", gettext_lazy("Hash verified")
        UNSEALED = "unsealed", gettext_lazy("Unsealed (no hash)")

    class Status(models.TextChoices):
        PROCESSING = "processing", gettext_lazy("Verifying")
        READY = "ready", gettext_lazy("Ready")
        FAILED = "failed", gettext_lazy("Verification failed")
        # Published without its per-entry rows (the harness's scores-only publication): listed with its claimed
        # scores, marked; becomes ready if its rows follow.
        UNVERIFIED = "unverified", gettext_lazy("Unverified: no per-entry rows")

    run_id = models.CharField(max_length=200, unique=True,
                              help_text="The card's own run_id as given (a UUID, or run_YYYYMMDD_HHMMSS_…).")
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    raw = models.TextField(help_text="The run card exactly as received (UTF-8 text).")
    dataset_version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="run_cards")
    method = models.ForeignKey(Method, null=True, blank=True, on_delete=models.SET_NULL, related_name="run_cards")
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="run_cards")
    submitted_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PROCESSING)
    hash_status = models.CharField(max_length=10, choices=HashStatus.choices)
    is_secret = models.BooleanField(
        help_text="Scores gold_standard or held_out entries: per-entry results stay secret."
    )
    segment = models.CharField(max_length=20, help_text="Corpus segment of the scored entries, or 'mixed'.")
    # Harness configuration.
    harness_version = models.CharField(max_length=50)
    timestamp = models.DateTimeField()
    model_slug = models.CharField(max_length=200)
    model_id = models.CharField(max_length=200, blank=True)
    condition = models.CharField(max_length=200)
    temperature = models.FloatField()
    system_prompt_sha256 = models.CharField(max_length=64)
    tools_enabled = models.JSONField(null=True, blank=True)
    batch_size = models.IntegerField(null=True, blank=True)
    fingerprint = models.CharField(max_length=64, help_text="Recomputed here from the card's components.")
    method_config = models.TextField(blank=True, help_text="The card's method_config block, verbatim.")
    # Scores as submitted (what the leaderboard shows) and what verification found.
    scoring_standard = models.CharField(max_length=40, default="legacy-composite")
    composite = models.FloatField(null=True, blank=True)
    chrf_plus_plus = models.FloatField(null=True, blank=True)
    exact_match_rate = models.FloatField(null=True, blank=True)
    fst_acceptance_rate = models.FloatField(null=True, blank=True)
    semantic_score = models.FloatField(null=True, blank=True)
    cost_per_entry_usd = models.FloatField(null=True, blank=True)
    avg_latency_seconds = models.FloatField(null=True, blank=True)
    cost_adjusted = models.FloatField(null=True, blank=True)
    result_count = models.PositiveIntegerField()
    discrepancies = models.JSONField(default=list)
    verification_error = models.TextField(blank=True)
    verified_by_card = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="A maintainer's reproduction with the same fingerprint (GDS Verified).",
    )
    community_validated_at = models.DateTimeField(null=True, blank=True, help_text="Set by the review gate only.")
    community_review = models.CharField(
        max_length=10, blank=True, choices=[("approve", "approve"), ("reject", "reject"), ("revoke", "revoke")],
        help_text="The community's decision in force on this card, over all its campaigns; set by the review app "
                  "only. Blank: never decided.")
    community_reviewed_at = models.DateTimeField(null=True, blank=True,
                                                 help_text="When the decision in force was taken.")
    community_review_withdrawn = models.PositiveIntegerField(
        default=0, help_text="Ratings the decision in force was taken on that their speakers withdrew since.")
    # What the leaderboard groups, shows and ranks by, set by verification (leaderboard/ranking.py; docs/run-cards.md,
    # "Leaderboard" and "Bootstrap intervals and rank clusters"). Blank or null on a card verified before they existed:
    # the leaderboard then reads `fingerprint` and the claimed scores.
    setup_fingerprint = models.CharField(
        max_length=64, blank=True, default="",
        help_text="The leaderboard's grouping key: the card's own fingerprint once verified (v2 hash included), "
                  "else `fingerprint`; always `fingerprint` for a card pinning a dataset hash kept from the public.")
    recomputed_chrf_plus_plus = models.FloatField(null=True, blank=True,
                                                  help_text="Corpus chrF++ of results[], recomputed on arrival.")
    leaderboard_chrf_plus_plus = models.FloatField(
        null=True, blank=True, help_text="chrF++ shown and ranked: the claimed one, or the recomputed one when the "
                                         "claim is more than ±0.05 away.")
    leaderboard_composite = models.FloatField(
        null=True, blank=True, help_text="Legacy cards: the composite shown and ranked (claimed, or recomputed with "
                                         "results[]'s chrF++ and exact-match rate when those disagree).")
    primary_recomputed = models.BooleanField(
        default=False, help_text="The ranking score (chrF++, or a legacy card's composite) is the recomputed one: "
                                 "the claimed one disagrees with results[].")
    chrf_ci_lower = models.FloatField(null=True, blank=True)
    chrf_ci_upper = models.FloatField(null=True, blank=True)
    chrf_ci_source = models.CharField(
        max_length=10, blank=True, choices=[("card", "card"), ("recomputed", "recomputed")],
        help_text="Where chrF++'s 95% interval comes from: the card, or our seeded paired bootstrap.")
    chrf_signature = models.CharField(max_length=200, blank=True, help_text="chrF++'s sacreBLEU signature.")
    chrf_statistics = models.BinaryField(
        null=True, blank=True,
        help_text="Per-entry chrF++ statistics (entry ids and n-gram counts, compressed) for rank clusters. Never "
                  "shown: those of secret entries derive from their references.")
    # What verification found against the stored corpus (leaderboard/verification.py, against_corpus).
    corpus_mismatches = models.PositiveIntegerField(
        default=0, help_text="Results whose source or expected text differs from the stored entry: a card with any is "
                             "never shown as verified (its scores are computed against the stored entries).")
    recomputed_exact_match_rate = models.FloatField(
        null=True, blank=True, help_text="Exact-match rate against the stored references (NFC), shown and ranked.")
    recomputed_bleu = models.FloatField(null=True, blank=True,
                                        help_text="Corpus BLEU against the stored references, when the card reports "
                                                  "BLEU.")
    recomputed_ter = models.FloatField(null=True, blank=True,
                                       help_text="Corpus TER against the stored references, when the card reports TER.")
    variant_lint = models.JSONField(
        null=True, blank=True, help_text="The variant-class lint (verification.variant_class_lint); null when it does "
                                         "not apply.")
    development_data = models.JSONField(
        null=True, blank=True, help_text="The card's declaration of the development entries its method used "
                                         "(docs/run-cards.md, \"Declarations\"); null when it declares nothing.")

    class Meta:
        ordering = ["-submitted_at"]
        indexes = [
            models.Index(fields=["status", "scoring_standard"], name="runcard_status_standard"),
            # Every column the leaderboard's rankings and version counts read of a listed card, so that they read
            # this index alone (an index-only scan) instead of every card's whole row (selectors.rankings).
            models.Index(fields=["dataset_version", "scoring_standard", "is_secret", "status", "method", "segment",
                                 "setup_fingerprint", "fingerprint", "composite", "leaderboard_composite",
                                 "chrf_plus_plus", "leaderboard_chrf_plus_plus", "cost_adjusted", "submitted_at",
                                 "corpus_mismatches", "id"],
                         condition=Q(status__in=["ready", "unverified"]), name="runcard_listed"),
            # Lets the leaderboard's "is this method Community Validated" test stay an index probe.
            models.Index(fields=["method"], condition=Q(community_validated_at__isnull=False),
                         name="runcard_validated_method"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(composite__isnull=True) | Q(composite__gte=0, composite__lte=1),
                name="runcard_composite_0_1",
            ),
            models.CheckConstraint(
                condition=Q(chrf_plus_plus__isnull=True) | Q(chrf_plus_plus__gte=0, chrf_plus_plus__lte=100),
                name="runcard_chrf_0_100",
            ),
            models.CheckConstraint(
                condition=Q(community_review="", community_reviewed_at__isnull=True)
                | Q(community_review__in=["approve", "reject", "revoke"], community_reviewed_at__isnull=False),
                name="runcard_community_review_dated",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model_slug} on {self.dataset_version} ({self.run_id})"

    @property
    def matches_corpus(self) -> bool:
        """Verified against the stored corpus: every per-entry row came and none contradicts the stored entries."""
        return self.status == self.Status.READY and self.corpus_mismatches == 0

    @property
    def verification_tier(self) -> str:
        """§9.4. An unsealed card, or one whose texts contradict the stored corpus, never shows above
        Self-benchmarked."""
        if self.hash_status != self.HashStatus.VERIFIED or self.corpus_mismatches:
            return "Self-benchmarked"
        if self.community_validated_at is not None:
            return "Community Validated"
        if self.verified_by_card_id is not None:
            return "GDS Verified"
        return "Self-benchmarked"


class RunCardResult(models.Model):
    """One `results[]` row, linked to the corpus entry it scores."""

    # Indexed as the first column of runcardresult_one_per_entry.
    run_card = models.ForeignKey(RunCard, on_delete=models.CASCADE, related_name="results", db_index=False)
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField()
    predicted = models.TextField(blank=True)
    exact_match = models.BooleanField(null=True)
    chrf_score = models.FloatField(null=True)
    latency_s = models.FloatField(null=True)
    error = models.TextField(blank=True)
    data = models.JSONField(help_text="The result object as submitted.")

    class Meta:
        ordering = ["run_card", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run_card", "entry"], name="runcardresult_one_per_entry"),
        ]


class DomainScore(models.Model):
    """Scores of one card over the entries of one domain, computed on arrival for domain-filtered ranking."""

    # Indexed as the first column of domainscore_unique.
    run_card = models.ForeignKey(RunCard, on_delete=models.CASCADE, related_name="domain_scores", db_index=False)
    domain = models.CharField(max_length=20)
    result_count = models.PositiveIntegerField()
    composite = models.FloatField(null=True)
    chrf_plus_plus = models.FloatField(null=True)
    exact_match_rate = models.FloatField(null=True)
    fst_acceptance_rate = models.FloatField(null=True)
    semantic_score = models.FloatField(null=True)
    cost_adjusted = models.FloatField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run_card", "domain"], name="domainscore_unique")]
        indexes = [models.Index(fields=["domain"], name="domainscore_domain")]


class Disqualification(models.Model):
    """A run card or a method taken out of every ranking, with the written reason (benchmark specification §9.2). The
    card stays reachable at its page, marked; lifting it is recorded beside it, never by deleting it."""

    run_card = models.ForeignKey(RunCard, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="disqualifications")
    method = models.ForeignKey(Method, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="disqualifications")
    reason = models.TextField()
    disqualified_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    disqualified_at = models.DateTimeField(default=timezone.now)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="+")
    lift_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-disqualified_at"]
        constraints = [
            models.CheckConstraint(condition=Q(run_card__isnull=False, method__isnull=True)
                                   | Q(run_card__isnull=True, method__isnull=False),
                                   name="disqualification_one_target"),
            models.CheckConstraint(condition=~Q(reason=""), name="disqualification_reason_given"),
            models.CheckConstraint(condition=Q(lifted_at__isnull=True, lifted_by__isnull=True, lift_reason="")
                                   | (Q(lifted_at__isnull=False, lifted_by__isnull=False) & ~Q(lift_reason="")),
                                   name="disqualification_lifted_with_reason"),
            models.UniqueConstraint(fields=["run_card"], condition=Q(lifted_at__isnull=True, run_card__isnull=False),
                                    name="disqualification_one_active_per_card"),
            models.UniqueConstraint(fields=["method"], condition=Q(lifted_at__isnull=True, method__isnull=False),
                                    name="disqualification_one_active_per_method"),
        ]

    @property
    def target(self) -> str:
        return "method" if self.method_id else "run_card"


class TierBands(models.Model):
    """An organization's quality-tier bands for one language pair (benchmark specification §5: the bands may differ
    by language and are recalibrated from human review). Used by the leaderboard's quality tier and the review
    trigger for cards on the organization's datasets of that pair."""

    # Indexed as the first column of tierbands_one_per_pair.
    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="+",
                                     db_index=False)
    language_pair = models.CharField(max_length=100, help_text="The pair's key (corpus.language_pairs.pair_key).")
    emerging = models.FloatField(default=DEFAULT_TIER_BANDS["emerging"])
    functional = models.FloatField(default=DEFAULT_TIER_BANDS["functional"])
    deployable = models.FloatField(default=DEFAULT_TIER_BANDS["deployable"])
    fluent = models.FloatField(default=DEFAULT_TIER_BANDS["fluent"])
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["organization", "language_pair"], name="tierbands_one_per_pair"),
            models.CheckConstraint(condition=Q(emerging__gt=0, emerging__lt=F("functional"),
                                               functional__lt=F("deployable"), deployable__lt=F("fluent"),
                                               fluent__lt=1),
                                   name="tierbands_strictly_increasing_within_0_1"),
        ]

    def bounds(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in DEFAULT_TIER_BANDS}


class LeaderboardState(models.Model):
    """One row whose `stamp` changes, by database trigger (leaderboard/state.py), in the same transaction as any
    write that can change what the public leaderboard lists: a run card becoming, staying or ceasing to be ready,
    its domain scores, its method, its dataset or version, and every consent record. Cached leaderboard pages are
    keyed by it, so a revoked consent is never served from the cache, however the write was made."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    stamp = models.CharField(max_length=64)


class ConflictDeclaration(models.Model):
    """Someone's own declaration of a conflict of interest with a run card or a method (they work for its developer,
    they helped build it, …): while it stands they are never in a review pool of the card (of any card of the
    method) and never record the decision on it. Withdrawing it sets `withdrawn_at`; the row stays."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    run_card = models.ForeignKey(RunCard, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="conflict_declarations")
    method = models.ForeignKey(Method, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="conflict_declarations")
    reason = models.TextField()
    declared_at = models.DateTimeField(default=timezone.now)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-declared_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(run_card__isnull=False, method__isnull=True)
                                   | Q(run_card__isnull=True, method__isnull=False),
                                   name="conflictdeclaration_one_target"),
            models.CheckConstraint(condition=~Q(reason=""), name="conflictdeclaration_reason_given"),
            models.UniqueConstraint(fields=["user", "run_card"],
                                    condition=Q(withdrawn_at__isnull=True, run_card__isnull=False),
                                    name="conflictdeclaration_one_per_card"),
            models.UniqueConstraint(fields=["user", "method"],
                                    condition=Q(withdrawn_at__isnull=True, method__isnull=False),
                                    name="conflictdeclaration_one_per_method"),
        ]


class A1RunApproval(models.Model):
    """Governance's approval of one run of a class A1 method on the secret segments of one dataset version: that run
    discloses those secret sources to a model provider through the LLM gateway (benchmark specification §8.6), so
    each run is approved on its own, by a decision of the steward's governance staff (`submissions.a1_run`), under an
    active consent of the community to A1 gateway disclosure. One approval lets exactly one run card be accepted: the
    first card of the method on those segments takes it (`run_card`, `used_at`). `legacy` approvals were written by
    the migration that introduced approvals, for the A1 cards on secret segments accepted before, and name no
    decision."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    dataset_version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="a1_run_approvals")
    segments = models.JSONField(help_text="The secret segments the run may disclose (gold_standard, held_out).")
    method_id = models.CharField(max_length=200, help_text="The method whose run is approved.")
    submission = models.UUIDField(null=True, blank=True,
                                  help_text="The method submission the run is of, when approved from one.")
    decision = models.OneToOneField(Decision, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    legacy = models.BooleanField(default=False, help_text="Written by the migration for a card accepted before "
                                                          "per-run approvals.")
    note = models.TextField(blank=True)
    approved_at = models.DateTimeField(default=timezone.now)
    run_card = models.OneToOneField(RunCard, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="a1_run_approval")
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-approved_at", "-pk"]
        indexes = [models.Index(fields=["method_id", "dataset_version"], condition=Q(run_card__isnull=True),
                                name="a1_approval_unused")]
        constraints = [
            models.CheckConstraint(condition=Q(legacy=True) | Q(decision__isnull=False),
                                   name="a1_approval_decided_or_legacy"),
            models.CheckConstraint(condition=Q(run_card__isnull=True, used_at__isnull=True)
                                   | Q(run_card__isnull=False, used_at__isnull=False),
                                   name="a1_approval_used_with_its_card"),
            models.CheckConstraint(condition=~Q(method_id=""), name="a1_approval_names_method"),
        ]

    def __str__(self) -> str:
        return f"A1 run of {self.method_id} on {self.dataset_version_id} ({', '.join(self.segments)})"
