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

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from review.aggregation import CampaignAggregate, GroupSummary

OUTCOME_PASS = "pass"
OUTCOME_FAIL = "fail"
OUTCOME_INSUFFICIENT = "insufficient_evidence"
OUTCOME_LABELS = {
    OUTCOME_PASS: gettext_lazy("Pass"),
    OUTCOME_FAIL: gettext_lazy("Fail"),
    OUTCOME_INSUFFICIENT: gettext_lazy("Insufficient evidence"),
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
        return str(OUTCOME_LABELS[self.outcome])


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
        summary = _(
            "Recommendation: fail — even the upper end of the usable-share interval (%(high)s) is below the "
            "%(threshold)s threshold, so more ratings would not change this."
        ) % {"high": _number(campaign.wilson_high, policy.min_usable_lower_bound),
             "threshold": _number(policy.min_usable_lower_bound)}
    elif missing_evidence:
        outcome = OUTCOME_INSUFFICIENT
        summary = _("Recommendation: insufficient evidence — %(reasons)s.") % {
            "reasons": _join(findings[name][1] for name in missing_evidence)}
        if failures:
            summary += " " + _("Also not met on the current evidence: %(reasons)s.") % {
                "reasons": _join(findings[name][1] for name in failures)}
    elif failures:
        outcome = OUTCOME_FAIL
        summary = _("Recommendation: fail — %(reasons)s.") % {"reasons": _join(findings[name][1] for name in failures)}
    else:
        outcome = OUTCOME_PASS
        summary = _(
            "Recommendation: pass — all %(count)s checks are met; governance staff make and record the decision."
        ) % {"count": len(checks)}
    return GateResult(outcome=outcome, reasons=checks, summary=summary, policy=policy)


def _number(value: float, threshold: float | None = None) -> str:
    """Two decimals, or more when two decimals would make a value look equal to its threshold; written the
    reader's way (0,70 in French)."""
    for decimals in (2, 3, 4):
        text = f"{value:.{decimals}f}"
        if threshold is None or value == threshold or text != f"{threshold:.{decimals}f}":
            break
    return number_format(float(text), decimals)


def _join(phrases: Iterable[str]) -> str:
    phrases = list(phrases)
    if len(phrases) == 1:
        return phrases[0]
    return _("%(first)s and %(last)s") % {"first": ", ".join(phrases[:-1]), "last": phrases[-1]}


def _check_rated_items(campaign: GroupSummary, policy: GatePolicy) -> tuple[GateCheck, str]:
    rated, needed = campaign.rated_items, max(1, policy.min_rated_items)
    numbers = {"rated": rated, "needed": needed}
    if rated == 0:
        return GateCheck("rated_items", False, _("No item has been rated yet.")), _("no item has been rated yet")
    if rated < needed:
        message = ngettext(
            "Only %(rated)s item has been rated; the policy needs at least %(needed)s before it can recommend "
            "anything — rate more items or sample a larger campaign.",
            "Only %(rated)s items have been rated; the policy needs at least %(needed)s before it can recommend "
            "anything — rate more items or sample a larger campaign.",
            rated,
        ) % numbers
        reason = ngettext("only %(rated)s item is rated (%(needed)s needed)",
                          "only %(rated)s items are rated (%(needed)s needed)", rated) % numbers
        return GateCheck("rated_items", False, message), reason
    message = ngettext("%(rated)s item has been rated, meeting the minimum of %(needed)s.",
                       "%(rated)s items have been rated, meeting the minimum of %(needed)s.", rated) % numbers
    return GateCheck("rated_items", True, message), ""


def _check_coverage(campaign: GroupSummary, ratings_per_item: int, policy: GatePolicy) -> tuple[GateCheck, str]:
    covered, items = campaign.covered_items, campaign.items
    if items == 0:
        message = _("The campaign has no sampled items.")
        return GateCheck("coverage", not policy.require_complete_coverage, message), _("the campaign has no items")
    required = ngettext("the required %(count)s rating", "the required %(count)s ratings",
                        ratings_per_item) % {"count": ratings_per_item}
    numbers = {"covered": covered, "items": items, "percent": f"{covered / items:.0%}", "required": required}
    if covered == items:
        message = _("All %(items)s sampled items have %(required)s: coverage is complete.") % numbers
        return GateCheck("coverage", True, message), ""
    if not policy.require_complete_coverage:
        message = _("%(covered)s of %(items)s sampled items (%(percent)s) have %(required)s; this policy does not "
                    "require complete coverage.") % numbers
        return GateCheck("coverage", True, message), ""
    message = _("Only %(covered)s of %(items)s sampled items (%(percent)s) have %(required)s; the policy requires "
                "complete coverage, so the remaining items need ratings.") % numbers
    return GateCheck("coverage", False, message), _("coverage is incomplete (%(covered)s of %(items)s items)") % numbers


def _check_agreement(aggregate: CampaignAggregate, policy: GatePolicy) -> tuple[GateCheck, str]:
    alpha, minimum = aggregate.alpha, _number(policy.min_alpha)
    if alpha is None:
        if aggregate.alpha_pairable_ratings == 0:
            message = _("Agreement between speakers cannot be measured yet: no item has ratings from two speakers.")
        else:
            message = _(
                "Agreement between speakers cannot be measured: every rating has the same value, so the "
                "ratings cannot show whether speakers judge consistently. Check the hidden control items "
                "and speaker reliability, and consider a more varied sample."
            )
        return GateCheck("agreement", False, message), _("agreement between speakers cannot be measured")
    numbers = {"alpha": _number(alpha, policy.min_alpha), "minimum": minimum}
    if alpha < policy.min_alpha:
        message = _(
            "Agreement between speakers (Krippendorff's alpha, ordinal) is %(alpha)s, below the %(minimum)s "
            "minimum: the speakers disagree too much to conclude anything from their ratings. Review the "
            "flagged speakers and the rating guidance before collecting more ratings."
        ) % numbers
        reason = _("speakers disagree too much (alpha %(alpha)s, minimum %(minimum)s)") % numbers
        return GateCheck("agreement", False, message), reason
    message = _("Agreement between speakers (Krippendorff's alpha, ordinal) is %(alpha)s, meeting the %(minimum)s "
                "minimum.") % numbers
    return GateCheck("agreement", True, message), ""


def _check_usable_share(campaign: GroupSummary, policy: GatePolicy) -> tuple[GateCheck, str]:
    if campaign.rated_items == 0:
        return GateCheck("usable_share", None, _("No item has been rated, so the usable share is unknown.")), ""
    threshold = policy.min_usable_lower_bound
    point = campaign.usable_share
    numbers = {
        "low": _number(campaign.wilson_low, threshold), "high": _number(campaign.wilson_high, threshold),
        "share": _number(point, threshold), "limit": _number(threshold),
        "usable": campaign.usable_items, "rated": campaign.rated_items,
    }
    numbers["stated"] = _("Usable share %(share)s (%(usable)s of %(rated)s rated items; 95%% interval "
                          "%(low)s–%(high)s)") % numbers
    if campaign.wilson_high < threshold:
        message = _("%(stated)s — even its upper bound %(high)s is below the %(limit)s threshold, so more ratings "
                    "would not change the outcome.") % numbers
        reason = _("even the upper bound %(high)s is below %(limit)s") % numbers
        return GateCheck("usable_share", False, message), reason
    if campaign.wilson_low >= threshold:
        message = _("%(stated)s — its lower bound %(low)s meets the %(limit)s threshold.") % numbers
        return GateCheck("usable_share", True, message), ""
    if point < threshold:
        message = _("%(stated)s is below the %(limit)s threshold.") % numbers
        reason = _("the usable share %(share)s is below the %(limit)s threshold") % numbers
        return GateCheck("usable_share", False, message), reason
    message = _("%(stated)s is at or above the %(limit)s threshold, but its lower bound %(low)s is not: more rated "
                "items are needed to be confident.") % numbers
    return GateCheck("usable_share", None, message), _("the usable share's lower bound %(low)s is still below "
                                                       "%(limit)s") % numbers


def _check_tier_floor(tiers: tuple[GroupSummary, ...], policy: GatePolicy) -> tuple[GateCheck, str]:
    rated = [tier for tier in tiers if tier.rated_items > 0]
    floor = _number(policy.min_tier_usable_share)
    if not rated:
        return GateCheck("tier_floor", None, _("No difficulty tier has a rated item yet.")), ""
    below = [tier for tier in rated if tier.usable_share < policy.min_tier_usable_share]
    if below:
        listed = _join(
            _("%(tier)s (%(share)s, %(usable)s of %(rated)s items usable)") % {
                "tier": tier.label, "share": _number(tier.usable_share, policy.min_tier_usable_share),
                "usable": tier.usable_items, "rated": tier.rated_items}
            for tier in below
        )
        message = ngettext("%(tiers)s falls below the %(floor)s floor for every difficulty tier.",
                           "%(tiers)s fall below the %(floor)s floor for every difficulty tier.",
                           len(below)) % {"tiers": listed, "floor": floor}
        reason = ngettext("%(tiers)s falls below the %(floor)s tier floor",
                          "%(tiers)s fall below the %(floor)s tier floor", len(below)) % {
            "tiers": _join(str(tier.label) for tier in below), "floor": floor}
        return GateCheck("tier_floor", False, message), reason
    lowest = min(rated, key=lambda tier: tier.usable_share)
    message = _("Every rated difficulty tier reaches the %(floor)s floor (lowest: %(tier)s at %(share)s).") % {
        "floor": floor, "tier": lowest.label, "share": _number(lowest.usable_share, policy.min_tier_usable_share)}
    return GateCheck("tier_floor", True, message), ""


def _check_reject_share(campaign: GroupSummary, policy: GatePolicy) -> tuple[GateCheck, str]:
    if campaign.rated_items == 0:
        return GateCheck("reject_share", None, _("No item has been rated, so the reject share is unknown.")), ""
    numbers = {"share": _number(campaign.reject_share, policy.max_reject_share),
               "limit": _number(policy.max_reject_share), "rejected": campaign.reject_items,
               "rated": campaign.rated_items}
    numbers["stated"] = _("Reject share %(share)s (%(rejected)s of %(rated)s rated items have a median rating of "
                          "reject)") % numbers
    if campaign.reject_share > policy.max_reject_share:
        message = _("%(stated)s exceeds the %(limit)s maximum.") % numbers
        return GateCheck("reject_share", False, message), _("the reject share %(share)s exceeds the %(limit)s "
                                                            "maximum") % numbers
    return GateCheck("reject_share", True, _("%(stated)s is within the %(limit)s maximum.") % numbers), ""
