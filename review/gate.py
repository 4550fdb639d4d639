"""The Deployable validation gate: turn a campaign's aggregate into a recommendation.

The recommendation is advice to governance staff, who record the actual decision (approve / reject)
with a written rationale; it never decides alone. docs/validation-gate.md explains it in plain words.

Six checks, one per rule, each with a sentence that carries its numbers:

- ``rated_items``: at least ``min_rated_items`` items (and at least one) have a rating.
- ``coverage``: every sampled item has the campaign's required number of ratings (when the policy
  requires complete coverage).
- ``agreement``: Krippendorff's ordinal alpha is measurable and at least ``min_alpha``.
- ``usable_share``: the lower end of the 95% Wilson interval of the usable share meets
  ``min_usable_lower_bound``.
- ``tier_floor``: every difficulty tier with a rated item has a usable share of at least
  ``min_tier_usable_share``.
- ``reject_share``: the share of rated items whose median rating is ``reject`` is at most
  ``max_reject_share``.

A check's ``passed`` is True (met), False (not met) or None (cannot be decided yet: no rated item,
or the usable-share interval straddles the threshold).

The outcome:

1. **fail** when the failure is certain: the *upper* end of the Wilson interval is below
   ``min_usable_lower_bound``. Even the most favourable reading of the evidence misses the threshold,
   so this holds whatever else is missing (partial coverage, few items, low agreement).
2. otherwise **insufficient_evidence** when any of: no rated item or fewer than ``min_rated_items``;
   coverage incomplete while required; alpha not measurable or below ``min_alpha`` (the speakers
   disagree too much to conclude anything); the usable-share point estimate meets the threshold but
   its lower bound does not (more items are needed).
3. otherwise **fail** when the usable-share point estimate is below the threshold, any rated tier is
   below the tier floor, or the reject share exceeds its maximum.
4. otherwise **pass**: every check is met.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from review.aggregation import CampaignAggregate, GroupSummary

OUTCOME_PASS = "pass"
OUTCOME_FAIL = "fail"
OUTCOME_INSUFFICIENT = "insufficient_evidence"
OUTCOME_LABELS = {
    OUTCOME_PASS: "Pass",
    OUTCOME_FAIL: "Fail",
    OUTCOME_INSUFFICIENT: "Insufficient evidence",
}
OUTCOME_CHOICES = tuple(OUTCOME_LABELS.items())

CHECK_NAMES = ("rated_items", "coverage", "agreement", "usable_share", "tier_floor", "reject_share")


@dataclass(frozen=True)
class GatePolicy:
    """Thresholds of the gate; each organization may set its own, these are the defaults."""

    require_complete_coverage: bool = True
    min_usable_lower_bound: float = 0.70
    min_tier_usable_share: float = 0.50
    max_reject_share: float = 0.10
    min_alpha: float = 0.40
    min_rated_items: int = 30

    def __post_init__(self) -> None:
        for name in ("min_usable_lower_bound", "min_tier_usable_share", "max_reject_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be a share between 0 and 1")
        if not -1.0 <= self.min_alpha <= 1.0:
            raise ValueError("min_alpha must be between -1 and 1")
        if self.min_rated_items < 0:
            raise ValueError("min_rated_items cannot be negative")


@dataclass(frozen=True)
class GateCheck:
    """One rule of the gate: met (True), not met (False) or not decidable yet (None)."""

    name: str
    passed: bool | None
    message: str


@dataclass(frozen=True)
class GateResult:
    """The recommendation, one check per rule in ``CHECK_NAMES`` order, and a one-sentence summary."""

    outcome: str
    reasons: tuple[GateCheck, ...]
    summary: str
    policy: GatePolicy

    @property
    def outcome_label(self) -> str:
        return OUTCOME_LABELS[self.outcome]


def evaluate_gate(aggregate: CampaignAggregate, policy: GatePolicy) -> GateResult:
    """Apply the documented rule (module docstring) to a campaign aggregate."""
    campaign = aggregate.campaign
    findings = {
        "rated_items": _check_rated_items(campaign, policy),
        "coverage": _check_coverage(campaign, aggregate.ratings_per_item, policy),
        "agreement": _check_agreement(aggregate, policy),
        "usable_share": _check_usable_share(campaign, policy),
        "tier_floor": _check_tier_floor(aggregate.tiers, policy),
        "reject_share": _check_reject_share(campaign, policy),
    }
    checks = tuple(findings[name][0] for name in CHECK_NAMES)
    passed = {check.name: check.passed for check in checks}

    certain_fail = campaign.rated_items > 0 and campaign.wilson_high < policy.min_usable_lower_bound
    missing_evidence = [name for name in ("rated_items", "coverage", "agreement") if passed[name] is False]
    if passed["usable_share"] is None and campaign.rated_items > 0:
        missing_evidence.append("usable_share")
    failures = [name for name in ("usable_share", "tier_floor", "reject_share") if passed[name] is False]

    if certain_fail:
        outcome = OUTCOME_FAIL
        summary = (
            f"Recommendation: fail — even the upper end of the usable-share interval "
            f"({_number(campaign.wilson_high, policy.min_usable_lower_bound)}) is below the "
            f"{_number(policy.min_usable_lower_bound)} threshold, so more ratings would not change this."
        )
    elif missing_evidence:
        outcome = OUTCOME_INSUFFICIENT
        summary = (
            f"Recommendation: insufficient evidence — {_join(findings[name][1] for name in missing_evidence)}."
        )
        if failures:
            summary += f" Also not met on the current evidence: {_join(findings[name][1] for name in failures)}."
    elif failures:
        outcome = OUTCOME_FAIL
        summary = f"Recommendation: fail — {_join(findings[name][1] for name in failures)}."
    else:
        outcome = OUTCOME_PASS
        summary = (
            f"Recommendation: pass — all {len(checks)} checks are met; governance staff make and record "
            "the decision."
        )
    return GateResult(outcome=outcome, reasons=checks, summary=summary, policy=policy)


def _number(value: float, threshold: float | None = None) -> str:
    """Two decimals, or more when two decimals would make a value look equal to its threshold."""
    for decimals in (2, 3, 4):
        text = f"{value:.{decimals}f}"
        if threshold is None or value == threshold or text != f"{threshold:.{decimals}f}":
            return text
    return text


def _join(phrases: Iterable[str]) -> str:
    phrases = list(phrases)
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _check_rated_items(campaign: GroupSummary, policy: GatePolicy) -> tuple[GateCheck, str]:
    rated, needed = campaign.rated_items, max(1, policy.min_rated_items)
    if rated == 0:
        return GateCheck("rated_items", False, "No item has been rated yet."), "no item has been rated yet"
    if rated < needed:
        message = (
            f"Only {rated} items have been rated; the policy needs at least {needed} before it can recommend "
            "anything — rate more items or sample a larger campaign."
        )
        return GateCheck("rated_items", False, message), f"only {rated} items are rated ({needed} needed)"
    message = f"{rated} items have been rated, meeting the minimum of {needed}."
    return GateCheck("rated_items", True, message), ""


def _check_coverage(campaign: GroupSummary, ratings_per_item: int, policy: GatePolicy) -> tuple[GateCheck, str]:
    covered, items = campaign.covered_items, campaign.items
    if items == 0:
        message = "The campaign has no sampled items."
        return GateCheck("coverage", not policy.require_complete_coverage, message), "the campaign has no items"
    required = f"the required {ratings_per_item} rating{'s' if ratings_per_item != 1 else ''}"
    if covered == items:
        return GateCheck("coverage", True, f"All {items} sampled items have {required}: coverage is complete."), ""
    state = f"{covered} of {items} sampled items ({covered / items:.0%}) have {required}"
    if not policy.require_complete_coverage:
        return GateCheck("coverage", True, f"{state}; this policy does not require complete coverage."), ""
    message = f"Only {state}; the policy requires complete coverage, so the remaining items need ratings."
    return GateCheck("coverage", False, message), f"coverage is incomplete ({covered} of {items} items)"


def _check_agreement(aggregate: CampaignAggregate, policy: GatePolicy) -> tuple[GateCheck, str]:
    alpha, minimum = aggregate.alpha, _number(policy.min_alpha)
    if alpha is None:
        if aggregate.alpha_pairable_ratings == 0:
            message = (
                "Agreement between speakers cannot be measured yet: no item has ratings from two speakers."
            )
        else:
            message = (
                "Agreement between speakers cannot be measured: every rating has the same value, so the "
                "ratings cannot show whether speakers judge consistently. Check the hidden control items "
                "and speaker reliability, and consider a more varied sample."
            )
        return GateCheck("agreement", False, message), "agreement between speakers cannot be measured"
    shown = _number(alpha, policy.min_alpha)
    if alpha < policy.min_alpha:
        message = (
            f"Agreement between speakers (Krippendorff's alpha, ordinal) is {shown}, below the {minimum} "
            "minimum: the speakers disagree too much to conclude anything from their ratings. Review the "
            "flagged speakers and the rating guidance before collecting more ratings."
        )
        return GateCheck("agreement", False, message), f"speakers disagree too much (alpha {shown}, minimum {minimum})"
    message = f"Agreement between speakers (Krippendorff's alpha, ordinal) is {shown}, meeting the {minimum} minimum."
    return GateCheck("agreement", True, message), ""


def _check_usable_share(campaign: GroupSummary, policy: GatePolicy) -> tuple[GateCheck, str]:
    if campaign.rated_items == 0:
        return GateCheck("usable_share", None, "No item has been rated, so the usable share is unknown."), ""
    threshold = policy.min_usable_lower_bound
    point = campaign.usable_share
    low, high = _number(campaign.wilson_low, threshold), _number(campaign.wilson_high, threshold)
    share = _number(point, threshold)
    limit = _number(threshold)
    stated = (
        f"Usable share {share} ({campaign.usable_items} of {campaign.rated_items} rated items; "
        f"95% interval {low}–{high})"
    )
    if campaign.wilson_high < threshold:
        message = (
            f"{stated} — even its upper bound {high} is below the {limit} threshold, so more ratings would not "
            "change the outcome."
        )
        return GateCheck("usable_share", False, message), f"even the upper bound {high} is below {limit}"
    if campaign.wilson_low >= threshold:
        return GateCheck("usable_share", True, f"{stated} — its lower bound {low} meets the {limit} threshold."), ""
    if point < threshold:
        message = f"{stated} is below the {limit} threshold."
        return GateCheck("usable_share", False, message), f"the usable share {share} is below the {limit} threshold"
    message = (
        f"{stated} is at or above the {limit} threshold, but its lower bound {low} is not: more rated items "
        "are needed to be confident."
    )
    return GateCheck("usable_share", None, message), f"the usable share's lower bound {low} is still below {limit}"


def _check_tier_floor(tiers: tuple[GroupSummary, ...], policy: GatePolicy) -> tuple[GateCheck, str]:
    rated = [tier for tier in tiers if tier.rated_items > 0]
    floor = _number(policy.min_tier_usable_share)
    if not rated:
        return GateCheck("tier_floor", None, "No difficulty tier has a rated item yet."), ""
    below = [tier for tier in rated if tier.usable_share < policy.min_tier_usable_share]
    if below:
        listed = _join(
            f"{tier.label} ({_number(tier.usable_share, policy.min_tier_usable_share)}, "
            f"{tier.usable_items} of {tier.rated_items} items usable)"
            for tier in below
        )
        verb = "falls" if len(below) == 1 else "fall"
        message = f"{listed} {verb} below the {floor} floor for every difficulty tier."
        names = _join(tier.label for tier in below)
        return GateCheck("tier_floor", False, message), f"{names} {verb} below the {floor} tier floor"
    lowest = min(rated, key=lambda tier: tier.usable_share)
    message = (
        f"Every rated difficulty tier reaches the {floor} floor (lowest: {lowest.label} at "
        f"{_number(lowest.usable_share, policy.min_tier_usable_share)})."
    )
    return GateCheck("tier_floor", True, message), ""


def _check_reject_share(campaign: GroupSummary, policy: GatePolicy) -> tuple[GateCheck, str]:
    if campaign.rated_items == 0:
        return GateCheck("reject_share", None, "No item has been rated, so the reject share is unknown."), ""
    share = _number(campaign.reject_share, policy.max_reject_share)
    limit = _number(policy.max_reject_share)
    stated = (
        f"Reject share {share} ({campaign.reject_items} of {campaign.rated_items} rated items have a median "
        "rating of reject)"
    )
    if campaign.reject_share > policy.max_reject_share:
        message = f"{stated} exceeds the {limit} maximum."
        return GateCheck("reject_share", False, message), f"the reject share {share} exceeds the {limit} maximum"
    return GateCheck("reject_share", True, f"{stated} is within the {limit} maximum."), ""
