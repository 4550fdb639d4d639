"""One leaderboard row as the page and the API show it (benchmark specification §7): its scores, quality tier with
the bands of its pair, community-review badge and claims."""

from typing import Any

from corpus.language_pairs import version_pair_key
from corpus.models import DatasetVersion

from ..models import RunCard, TierBands
from ..verification import DEFAULT_TIER_BANDS, quality_tier

NOT_APPROVED = ("reject", "revoke")


def community_review(card: RunCard) -> dict[str, Any] | None:
    """The community's decision in force on the card: `approved` or `not_approved` (a rejection, or an approval
    revoked) with its date, and how many of the ratings it was taken on their speakers withdrew since (the evidence
    changed after the decision); None while it was never decided."""
    if not card.community_review:
        return None
    return {"outcome": "not_approved" if card.community_review in NOT_APPROVED else "approved",
            "decided_at": card.community_reviewed_at,
            "ratings_withdrawn_since": card.community_review_withdrawn}


def recomputed_score(card: RunCard) -> dict[str, Any] | None:
    """The ranking score's claim and the value results[] give, when they disagree and the row shows the recomputed
    one; None otherwise."""
    if not card.primary_recomputed:
        return None
    if card.scoring_standard == "legacy-composite":
        return {"metric": "composite", "claimed": card.composite, "recomputed": card.leaderboard_composite}
    return {"metric": "chrf_plus_plus", "claimed": card.chrf_plus_plus, "recomputed": card.leaderboard_chrf_plus_plus}


BandsByPair = dict[tuple[int, str], dict[str, float]]


def tier_bands() -> BandsByPair:
    """(steward organization id, pair key) → the quality-tier bands its governance staff set for that pair; pairs not
    in it use the default bands (benchmark specification §5)."""
    return {(organization_id, pair): {"emerging": emerging, "functional": functional, "deployable": deployable,
                                      "fluent": fluent}
            for organization_id, pair, emerging, functional, deployable, fluent in TierBands.objects.values_list(
                "organization_id", "language_pair", "emerging", "functional", "deployable", "fluent")}


def bands_of(version: DatasetVersion, bands: BandsByPair | None = None) -> dict[str, float]:
    """The quality-tier bands that apply to cards on `version`: its steward's for its language pair, else the
    default ones. `bands`: tier_bands(), when many versions are looked up at once."""
    pair = version_pair_key(version.language_pair, version.source_language, version.target_language) or ""
    key = (version.dataset.organization_id, pair)
    if bands is None:
        found = TierBands.objects.filter(organization_id=key[0], language_pair=pair).first()
        return found.bounds() if found is not None else DEFAULT_TIER_BANDS
    return bands.get(key, DEFAULT_TIER_BANDS)


def review_badge(card: RunCard, tier: str | None, validated: bool) -> str | None:
    """The one community-review badge a row carries: `validated` (the method passed community review), `approved` or
    `not_approved` (the decision in force on this card), `provisional` (a Deployable or Fluent tier nobody decided on
    yet: "provisional — awaiting community review"), or None."""
    if validated:
        return "validated"
    if card.community_review:
        return "not_approved" if card.community_review in NOT_APPROVED else "approved"
    return "provisional" if tier in ("Deployable", "Fluent") else None


def row_view(card: RunCard, rank: int | None, cluster: int | None = None, *,
             bands: BandsByPair | None = None, labels: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The columns of SPEC §7 for one leaderboard row, with standard/1's interval, signature and rank cluster.
    With a domain filter the scores are that domain's, recomputed: the whole card's interval and claims do not
    apply to them. The quality tier is read with the bands of the card's pair (`bands`: tier_bands())."""
    whole_card = not getattr(card, "ranked_domain", "")
    composite = getattr(card, "shown_composite", card.leaderboard_composite
                        if card.leaderboard_composite is not None else card.composite)
    tier = quality_tier(composite, bands_of(card.dataset_version, bands))
    # Provisional until the method (any of its cards) is Community Validated.
    validated = card.verification_tier == "Community Validated" or getattr(card, "method_validated", False)
    badge = review_badge(card, tier, validated)
    method = card.method
    return {
        "rank": rank,
        "id": str(card.public_id),
        "method": method.name if method else f"{card.model_slug} · {card.condition}",
        "method_class": method.method_class if method else None,
        "dependency_class": method.dependency_class if method and method.dependency_class else None,
        "external_dependency": bool(method and method.dependency_class == "A2"),
        "model": card.model_id or card.model_slug,
        "configuration": None if method else {
            "model": card.model_slug, "condition": card.condition, "temperature": card.temperature,
            "tools_enabled": card.tools_enabled, "system_prompt_sha256": card.system_prompt_sha256[:12],
        },
        "composite": composite,
        "chrf_plus_plus": getattr(card, "shown_chrf_plus_plus", card.leaderboard_chrf_plus_plus
                                  if card.leaderboard_chrf_plus_plus is not None else card.chrf_plus_plus),
        "chrf_ci": {"lower": card.chrf_ci_lower, "upper": card.chrf_ci_upper, "source": card.chrf_ci_source}
        if whole_card and card.chrf_ci_lower is not None and card.chrf_ci_upper is not None else None,
        "sacrebleu_signature": card.chrf_signature or None,
        "recomputed_score": recomputed_score(card) if whole_card else None,
        "rank_cluster": cluster,
        "fst_acceptance_rate": getattr(card, "shown_fst_acceptance_rate", card.fst_acceptance_rate),
        "exact_match_rate": getattr(card, "shown_exact_match_rate", card.recomputed_exact_match_rate
                                    if card.recomputed_exact_match_rate is not None else card.exact_match_rate),
        "semantic_score": getattr(card, "shown_semantic_score", card.semantic_score),
        "cost_per_entry_usd": card.cost_per_entry_usd,
        "avg_latency_seconds": card.avg_latency_seconds,
        "cost_adjusted": getattr(card, "shown_cost_adjusted", card.cost_adjusted),
        "quality_tier": tier,
        # One badge: "provisional — awaiting community review" ends once governance decided, either way.
        "review_badge": badge,
        "quality_tier_provisional": badge == "provisional",
        "community_review": community_review(card),
        "verification_tier": card.verification_tier,
        "scoring_standard": card.scoring_standard,
        "dataset": card.dataset_version.dataset.identifier,
        "dataset_version": card.dataset_version.version,
        "language_pair": card.dataset_version.language_pair,
        "ranking": "official" if card.is_secret else "open",
        "segment": card.segment,
        "entries_scored": getattr(card, "domain_count", card.result_count),
        "cards_in_group": getattr(card, "group_size", 1),
        "discrepancy_count": len(card.discrepancies),
        "date": card.timestamp,
        "withdrawn": getattr(card, "evaluation_withdrawn", False),
        # Published without its per-entry rows: its scores are its own claims, nothing recomputed them.
        "unverified": card.status == RunCard.Status.UNVERIFIED,
        # Scored against the stored corpus, but some of its rows' texts are not the stored ones: never verified.
        "corpus_mismatches": card.corpus_mismatches,
        # The card's declaration of the development entries its method used (None: it declares nothing).
        "development_data": card.development_data,
        "verified_against_corpus": card.matches_corpus,
        # The Local Contexts labels and notices of its data (corpus.label_selectors.labels_by_version).
        "labels": labels or [],
    }
