"""Calibration of the quality-tier bands against human review (benchmark specification §5: the bands "may differ by
language" and are recalibrated from community review): for each language pair of an organization, each decided
campaign's automated score beside its human usable share with its interval, and the bands in force, so that
governance staff move the bands on evidence. Reads only; the bands are set by leaderboard.services.set_tier_bands."""

from dataclasses import dataclass, field

from corpus.language_pairs import version_pair_key
from leaderboard.models import TierBands
from leaderboard.services import TIER_BAND_FIELDS, organization_pairs
from leaderboard.verification import DEFAULT_TIER_BANDS, TIER_NAMES
from organizations.models import Organization

from .models import Campaign, Decision, GatePolicy
from .selectors.decisions import STANDARD_1, shown_chrf, shown_composite, stored_gate_policy
from .selectors.figures import campaign_aggregate

WIDTH, HEIGHT = 600, 300
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 28, 40


@dataclass(frozen=True)
class CalibrationPoint:
    """One decided campaign: its card's automated score and what the community's speakers found usable."""

    campaign: Campaign
    standard: str
    score: float
    usable: float
    low: float
    high: float
    outcome: str
    rated_items: int


@dataclass
class PairCalibration:
    pair: str
    label: str
    bands: dict[str, float]
    bands_set: bool
    composite_points: list[CalibrationPoint] = field(default_factory=list)
    chrf_points: list[CalibrationPoint] = field(default_factory=list)


def calibration(organization: Organization) -> list[PairCalibration]:
    """Per language pair of the organization's datasets, its bands and the decided campaigns on cards of that pair
    (the decision in force of each; cards of legacy-composite and standard/1 apart, on their own scales)."""
    stored = {bands.language_pair: bands.bounds() for bands in TierBands.objects.filter(organization=organization)}
    pairs = {key: PairCalibration(key, label, stored.get(key, dict(DEFAULT_TIER_BANDS)), key in stored)
             for key, label in organization_pairs(organization).items()}
    campaigns = (Campaign.objects.filter(organization=organization, decisions__isnull=False).distinct()
                 .select_related("run_card__dataset_version__dataset").order_by("opened_at", "pk"))
    outcomes = {}
    for campaign_id, outcome in Decision.objects.filter(campaign__organization=organization).order_by(
            "decided_at", "pk").values_list("campaign_id", "outcome"):
        outcomes[campaign_id] = outcome  # the latest is in force
    for campaign in campaigns:
        card = campaign.run_card
        version = card.dataset_version
        found = pairs.get(version_pair_key(version.language_pair, version.source_language,
                                           version.target_language) or "")
        overall = campaign_aggregate(campaign).campaign
        score = shown_chrf(card) if card.scoring_standard == STANDARD_1 else shown_composite(card)
        if found is None or score is None or overall.estimate is None:
            continue
        point = CalibrationPoint(campaign, card.scoring_standard, score, overall.estimate, overall.interval_low,
                                 overall.interval_high, outcomes[campaign.pk], overall.rated_items)
        (found.chrf_points if card.scoring_standard == STANDARD_1 else found.composite_points).append(point)
    return list(pairs.values())


def scatter(points: list[CalibrationPoint], *, top: float, verticals: list[tuple[float, str]],
            usable_threshold: float) -> dict:
    """Geometry of one chart: x the automated score (0 to `top`), y the usable share (0 to 1) with its interval as a
    vertical line, the bands (or trigger) as vertical lines, the gate's usable threshold as a horizontal one."""
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_at(score: float) -> float:
        return round(LEFT + plot_width * min(max(score / top, 0.0), 1.0), 2)

    def y_at(share: float) -> float:
        return round(TOP + plot_height * (1 - min(max(share, 0.0), 1.0)), 2)

    return {
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP, "bottom": HEIGHT - BOTTOM,
        "points": [{"x": x_at(point.score), "y": y_at(point.usable), "low": y_at(point.low),
                    "high": y_at(point.high), "point": point} for point in points],
        "verticals": [{"x": x_at(value), "label": label, "value": value} for value, label in verticals],
        "threshold_y": y_at(usable_threshold), "threshold": usable_threshold,
        "x_ticks": [{"x": x_at(top * step / 5), "value": top * step / 5} for step in range(6)],
        "y_ticks": [{"y": y_at(step / 5), "value": step / 5} for step in range(6)],
    }


def calibration_page(organization: Organization) -> list[dict]:
    """Every pair's calibration with its two charts ready to draw (composite with its bands, chrF++ with the
    organization's standard/1 review trigger)."""
    policy = stored_gate_policy(organization) or GatePolicy(organization=organization)
    threshold, trigger = policy.min_usable_lower_bound, policy.standard1_min_chrf
    pages = []
    for found in calibration(organization):
        pages.append({
            "calibration": found, "fields": TIER_BAND_FIELDS,
            "composite_chart": scatter(found.composite_points, top=1.0, usable_threshold=threshold,
                                       verticals=[(found.bands[name], TIER_NAMES[name]) for name in TIER_BAND_FIELDS]),
            "chrf_chart": scatter(found.chrf_points, top=100.0, usable_threshold=threshold,
                                  verticals=[(trigger, "trigger")] if trigger is not None else []),
        })
    return pages
