"""The Deployable validation gate: turn a campaign's aggregate into a recommendation.

The recommendation is advice to governance staff, who record the actual decision (approve / reject)
with a written rationale; it never decides alone. docs/validation-gate.md explains it in plain words.

Seven checks, one per rule, each with a sentence that carries its numbers:

- ``rated_items``: at least ``min_rated_items`` items have a rating (never fewer than 30).
- ``coverage``: every sampled item has the campaign's required number of ratings (when the policy
  requires complete coverage).
- ``speakers``: at least ``min_distinct_speakers`` distinct speakers rated, and no single speaker decides: no
  speaker whose influence on the share stands out from the rest of the panel's (review/evidence.py) moves the
  outcome between pass and not pass when their ratings are replaced by a typical speaker's (the same items and the
  same per-item rule, the item's other ratings deciding; coverage, agreement and this rule left aside).
- ``agreement``: Gwet's AC1 on the usable / not-usable decision is measurable and at least ``min_ac1``.
  Krippendorff's ordinal alpha is shown on the report but does not gate: when nearly every rating is
  the same its expected disagreement is tiny and it reads unanimous speakers as disagreeing.
- ``usable_share``: the lower end of the usable share's 95% interval meets ``min_usable_lower_bound``; not
  met only when even the upper end is below it, otherwise "not demonstrated" (None). The interval is the
  speaker-aware one of review/evidence.py (items within tiers and speakers as the two sources of uncertainty):
  Wilson's alone ignores who rated and passes too often when speakers' leniency differs.
- ``tier_floor``: judged per group of difficulty tiers (a tier with fewer than
  ``aggregation.FLOOR_GROUP_MIN_ITEMS`` rated items joins its neighbour) on its own speaker-aware interval against
  ``min_tier_usable_share``: met when every group's lower bound reaches the floor; not met when some group's upper
  bound is below it; otherwise None — a group whose interval straddles the floor is not demonstrated.
- ``reject_share``: the share of rated items whose median rating is ``reject`` is at most
  ``max_reject_share``.

A check's ``passed`` is True (met), False (not met) or None (cannot be decided yet: no rated item,
or an interval straddles its threshold).

The outcome:

1. **fail** when the failure is certain: the *upper* end of the usable share's interval is below
   ``min_usable_lower_bound``. Even the most favourable reading of the evidence misses the threshold,
   so this holds whatever else is missing (partial coverage, few items, low agreement) — unless the
   ratings come from too few speakers or one speaker's ratings decide it (then: insufficient evidence).
2. otherwise **insufficient_evidence** when any of: no rated item or fewer than ``min_rated_items``;
   coverage incomplete while required; too few distinct speakers or one speaker's ratings deciding
   the outcome; AC1 not measurable or below ``min_ac1`` (the speakers
   disagree too much to conclude anything); the usable share's interval straddles the threshold, or
   a group of tiers' straddles the floor (neither pass nor fail is demonstrated: more items are needed).
3. otherwise **fail** when a rated tier's upper bound is below the tier floor or the reject share
   exceeds its maximum.
4. otherwise **pass**: every check is met.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from leaderboard.verification import DEPLOYABLE_THRESHOLD
from review.aggregation import CampaignAggregate, GroupSummary

OUTCOME_PASS = "pass"
OUTCOME_FAIL = "fail"
OUTCOME_INSUFFICIENT = "insufficient_evidence"
CHRF_TRIGGER_RANGE = gettext_lazy("Enter a chrF++ between 0 and 100, or leave it empty.")

OUTCOME_LABELS = {
    OUTCOME_PASS: gettext_lazy("Pass"),
    OUTCOME_FAIL: gettext_lazy("Fail"),
    OUTCOME_INSUFFICIENT: gettext_lazy("Insufficient evidence"),
}
OUTCOME_CHOICES = tuple(OUTCOME_LABELS.items())

MIN_RATED_ITEMS_FLOOR = 30
"""No policy may conclude from fewer rated items: below this the Wilson interval is too wide to mean much."""

POLICY_RANGES = {
    "min_usable_lower_bound": (0.50, 0.95),
    "min_tier_usable_share": (0.25, 0.95),
    "max_reject_share": (0.0, 0.50),
    "min_ac1": (0.40, 1.0),
}
"""The thresholds a policy may set, so that each keeps its meaning: a pass says at least half the outputs are usable
(and no more than 0.95 is asked, which a campaign's lower bound could hardly ever reach); no tier passes with three
in four of its outputs unusable; at most half the items may be rejects; the speakers agree better than fairly
(Landis and Koch's "moderate" starts at 0.41)."""

POLICY_RANGE_MESSAGES = {
    "min_usable_lower_bound": gettext_lazy(
        "Enter a threshold between %(low)s and %(high)s: below half, a pass would not say that most outputs are "
        "usable, and a campaign's lower bound can hardly ever reach more."),
    "min_tier_usable_share": gettext_lazy(
        "Enter a tier floor between %(low)s and %(high)s: below it, a tier with three outputs in four unusable "
        "would meet the floor."),
    "max_reject_share": gettext_lazy(
        "Enter a highest reject share between %(low)s and %(high)s: a method whose outputs are mostly rejects "
        "cannot pass."),
    "min_ac1": gettext_lazy(
        "Enter a lowest AC1 between %(low)s and %(high)s: below it, speakers who agree little more than chance "
        "would count as agreeing."),
}

CALIBRATED_RATINGS_PER_ITEM = (3, 5)
"""The ratings per item a campaign may ask for: the designs the calibration suite (`make gate-check`) shows the
gate calibrated for. With an even number an item needs more than a majority of its ratings (both of 2, 3 of 4) and
the usable share then depends on which speakers happened to meet, in a way a campaign cannot measure: at a true
share at the threshold the gate passed up to 11% (2) and 7% (4) of simulated campaigns."""


def ratings_per_item_problem(ratings_per_item: int) -> str | None:
    """Why a campaign may not ask for this many ratings per item (None when it may), for the form to say."""
    if ratings_per_item in CALIBRATED_RATINGS_PER_ITEM:
        return None
    if ratings_per_item < 2:
        return _("One rating per item leaves no agreement between speakers to measure: the gate could never "
                 "recommend a pass. Ask for 3 or 5.")
    if ratings_per_item % 2 == 0:
        return _("With %(count)s ratings per item, an item is usable only with more than a majority of them, and the "
                 "usable share then depends on which speakers happened to meet in a way one campaign cannot measure: "
                 "in simulations the gate passed too many methods whose true share was at the threshold. Ask for 3 "
                 "or 5.") % {"count": ratings_per_item}
    return _("The gate is checked for 3 or 5 ratings per item; more are not. Ask for 5, and invite more speakers "
             "rather than more ratings of each item.")


CHECK_NAMES = ("rated_items", "coverage", "speakers", "agreement", "usable_share", "tier_floor", "reject_share")


@dataclass(frozen=True)
class GatePolicy:
    """Thresholds of the gate; each organization may set its own, these are the defaults."""

    require_complete_coverage: bool = True
    min_usable_lower_bound: float = DEPLOYABLE_THRESHOLD
    min_tier_usable_share: float = 0.50
    max_reject_share: float = 0.10
    min_alpha: float = 0.40
    """Kept so stored policies load; alpha is shown on the report but no longer gates (AC1 does)."""
    min_rated_items: int = 30
    min_ac1: float = 0.60
    min_distinct_speakers: int = 3

    def __post_init__(self) -> None:
        problems = policy_problems({name: getattr(self, name) for name in (*POLICY_RANGES, "min_rated_items",
                                                                           "min_distinct_speakers")})
        if problems:
            name, message = problems[0]
            raise ValueError(f"{name}: {message}")
        if not -1.0 <= self.min_alpha <= 1.0:
            raise ValueError("min_alpha must be between -1 and 1")


def policy_problems(values: Mapping[str, float | int | None]) -> list[tuple[str, str]]:
    """Each threshold of ``values`` outside what a policy may set, as (field, message naming the limits and why),
    in field order: the form, the service and ``GatePolicy`` refuse the same values with the same words."""
    problems = []
    for name, (low, high) in POLICY_RANGES.items():
        value = values.get(name)
        if value is not None and not low <= value <= high:
            problems.append((name, str(POLICY_RANGE_MESSAGES[name]) % {"low": _number(low), "high": _number(high)}))
    rated = values.get("min_rated_items")
    if rated is not None and rated < MIN_RATED_ITEMS_FLOOR:
        problems.append(("min_rated_items", _("A policy needs at least %(floor)s rated items.")
                         % {"floor": MIN_RATED_ITEMS_FLOOR}))
    speakers = values.get("min_distinct_speakers")
    if speakers is not None and speakers < 2:
        problems.append(("min_distinct_speakers", _("A policy needs ratings from at least 2 distinct speakers.")))
    return problems


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
    decisive_speaker: int | None = None

    @property
    def outcome_label(self) -> str:
        return str(OUTCOME_LABELS[self.outcome])


def evaluate_gate(aggregate: CampaignAggregate, policy: GatePolicy,
                  speaker_names: Mapping[int, str] | None = None) -> GateResult:
    """Apply the documented rule (module docstring) to a campaign aggregate; ``speaker_names`` (speaker id to
    e-mail) names a speaker whose ratings alone decide the recommendation."""
    campaign = aggregate.campaign
    findings = _core_findings(aggregate, policy)
    findings["coverage"] = _check_coverage(campaign, aggregate.ratings_per_item, policy)
    decisive = _decisive_speaker(aggregate, policy)
    findings["speakers"] = _check_speakers(aggregate, policy, decisive, speaker_names or {})
    checks = tuple(findings[name][0] for name in CHECK_NAMES)
    outcome, missing_evidence, failures = _rule(findings, campaign, policy)

    if outcome == OUTCOME_FAIL and not failures:
        summary = _(
            "Recommendation: fail — even the upper end of the usable-share interval (%(high)s) is below the "
            "%(threshold)s threshold, so more ratings would not change this."
        ) % {"high": _number(campaign.interval_high, policy.min_usable_lower_bound),
             "threshold": _number(policy.min_usable_lower_bound)}
    elif outcome == OUTCOME_INSUFFICIENT:
        summary = _("Recommendation: insufficient evidence — %(reasons)s.") % {
            "reasons": _join(findings[name][1] for name in missing_evidence)}
        if failures:
            summary += " " + _("Also not met on the current evidence: %(reasons)s.") % {
                "reasons": _join(findings[name][1] for name in failures)}
    elif outcome == OUTCOME_FAIL:
        summary = _("Recommendation: fail — %(reasons)s.") % {"reasons": _join(findings[name][1] for name in failures)}
    else:
        summary = _(
            "Recommendation: pass — all %(count)s checks are met; governance staff make and record the decision."
        ) % {"count": len(checks)}
    return GateResult(outcome=outcome, reasons=checks, summary=summary, policy=policy,
                      decisive_speaker=None if decisive is None else decisive[0])


def _core_findings(aggregate: CampaignAggregate, policy: GatePolicy) -> dict[str, tuple[GateCheck, str]]:
    """The rules on what the ratings say, without the rules on how they were collected (coverage, speakers)."""
    campaign = aggregate.campaign
    return {
        "rated_items": _check_rated_items(campaign, policy),
        "agreement": _check_agreement(aggregate, policy),
        "usable_share": _check_usable_share(campaign, policy),
        "tier_floor": _check_tier_floor(aggregate.floor_groups, policy),
        "reject_share": _check_reject_share(campaign, policy),
    }


def _rule(findings: Mapping[str, tuple[GateCheck, str]], campaign: GroupSummary,
          policy: GatePolicy) -> tuple[str, list[str], list[str]]:
    """The outcome, the rules that lack evidence, and the rules that fail; for a certain fail the last is
    empty (the summary then gives the interval instead)."""
    passed = {name: finding[0].passed for name, finding in findings.items()}
    missing = [name for name in ("rated_items", "coverage", "speakers", "agreement") if passed.get(name) is False]
    missing += [name for name in ("usable_share", "tier_floor") if passed[name] is None and campaign.rated_items > 0]
    failures = [name for name in ("usable_share", "tier_floor", "reject_share") if passed[name] is False]
    certain_fail = campaign.rated_items > 0 and campaign.interval_high < policy.min_usable_lower_bound
    if certain_fail and passed.get("speakers") is not False:
        return OUTCOME_FAIL, [], []
    if missing:
        return OUTCOME_INSUFFICIENT, missing, failures
    return (OUTCOME_FAIL if failures else OUTCOME_PASS), [], failures


def _verdict(aggregate: CampaignAggregate, policy: GatePolicy) -> str:
    """The outcome on what the ratings say about the method: agreement is left aside as well, since taking a
    speaker out of the panel changes it by construction (two ratings become one)."""
    findings = _core_findings(aggregate, policy)
    del findings["agreement"]
    return _rule(findings, aggregate.campaign, policy)[0]


def _decisive_speaker(aggregate: CampaignAggregate, policy: GatePolicy) -> tuple[int, str] | None:
    """Leave one speaker out, like with like: the first speaker who stands out from the panel and whose ratings,
    replaced by a typical speaker's, move the outcome between pass and not pass, with the outcome that holds with
    them. A speaker within the panel's spread is already accounted for by the interval, which resamples speakers."""
    with_all = _verdict(aggregate, policy)
    for drop in aggregate.speaker_drops:
        if not drop.stands_out:
            continue
        without = _verdict(replace(aggregate, campaign=drop.campaign, floor_groups=drop.floor_groups, ac1=drop.ac1,
                                   raw_agreement=drop.raw_agreement), policy)
        if (without == OUTCOME_PASS) != (with_all == OUTCOME_PASS):
            return drop.speaker_id, with_all
    return None


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
    rated, needed = campaign.rated_items, policy.min_rated_items
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
        message = ngettext("%(covered)s of %(items)s sampled items (%(percent)s) has %(required)s; this policy does "
                           "not require complete coverage.",
                           "%(covered)s of %(items)s sampled items (%(percent)s) have %(required)s; this policy does "
                           "not require complete coverage.", covered) % numbers
        return GateCheck("coverage", True, message), ""
    message = ngettext("Only %(covered)s of %(items)s sampled items (%(percent)s) has %(required)s; the policy "
                       "requires complete coverage, so the remaining items need ratings.",
                       "Only %(covered)s of %(items)s sampled items (%(percent)s) have %(required)s; the policy "
                       "requires complete coverage, so the remaining items need ratings.", covered) % numbers
    return GateCheck("coverage", False, message), _("coverage is incomplete (%(covered)s of %(items)s items)") % numbers


def _check_agreement(aggregate: CampaignAggregate, policy: GatePolicy) -> tuple[GateCheck, str]:
    """AC1 on the usable / not-usable decision gates; alpha is only shown (it collapses when nearly every
    rating is the same, which would read unanimous speakers as disagreeing)."""
    ac1, minimum = aggregate.ac1, _number(policy.min_ac1)
    if ac1 is None or aggregate.raw_agreement is None:
        message = _("Agreement between speakers cannot be measured yet: no item has ratings from two speakers.")
        return GateCheck("agreement", False, message), _("agreement between speakers cannot be measured")
    numbers = {"ac1": _number(ac1, policy.min_ac1), "minimum": minimum,
               "raw": _number(aggregate.raw_agreement)}
    if ac1 < policy.min_ac1:
        message = _(
            "Agreement between speakers on the usable / not-usable decision (Gwet's AC1) is %(ac1)s (raw "
            "agreement %(raw)s), below the %(minimum)s minimum: the speakers disagree too much to conclude "
            "anything from their ratings. Review the flagged speakers and the rating guidance before "
            "collecting more ratings."
        ) % numbers
        reason = _("speakers disagree too much (AC1 %(ac1)s, minimum %(minimum)s)") % numbers
        return GateCheck("agreement", False, message), reason
    message = _("Agreement between speakers on the usable / not-usable decision (Gwet's AC1) is %(ac1)s (raw "
                "agreement %(raw)s), meeting the %(minimum)s minimum.") % numbers
    return GateCheck("agreement", True, message), ""


def _check_speakers(aggregate: CampaignAggregate, policy: GatePolicy, decisive: tuple[int, str] | None,
                    speaker_names: Mapping[int, str]) -> tuple[GateCheck, str]:
    count, minimum = aggregate.distinct_speakers, policy.min_distinct_speakers
    numbers = {"count": count, "minimum": minimum}
    if count < minimum:
        message = ngettext(
            "Only %(count)s speaker has rated; the policy needs ratings from at least %(minimum)s distinct "
            "speakers — invite more speakers.",
            "Only %(count)s distinct speakers have rated; the policy needs ratings from at least %(minimum)s — "
            "invite more speakers.",
            count,
        ) % numbers
        reason = ngettext("only %(count)s speaker has rated (%(minimum)s needed)",
                          "only %(count)s distinct speakers have rated (%(minimum)s needed)", count) % numbers
        return GateCheck("speakers", False, message), reason
    if decisive is not None:
        speaker_id, with_all = decisive
        speaker = {"speaker": speaker_names.get(speaker_id) or _("speaker %(id)s") % {"id": speaker_id}}
        if with_all == OUTCOME_PASS:
            message = _("The ratings of %(speaker)s stand out from the other speakers', and with them replaced by a "
                        "typical speaker's the campaign would no longer pass: one speaker's ratings decide the "
                        "recommendation. Look at their ratings, and invite more speakers to rate the same "
                        "items.") % speaker
        else:
            message = _("The ratings of %(speaker)s stand out from the other speakers', and with them replaced by a "
                        "typical speaker's the campaign would pass: one speaker's ratings decide the "
                        "recommendation. Look at their ratings, and invite more speakers to rate the same "
                        "items.") % speaker
        reason = _("the ratings of %(speaker)s alone decide the recommendation") % speaker
        return GateCheck("speakers", False, message), reason
    message = ngettext(
        "%(count)s distinct speaker has rated, meeting the minimum of %(minimum)s, and no single speaker's "
        "ratings decide the recommendation.",
        "%(count)s distinct speakers have rated, meeting the minimum of %(minimum)s, and no single speaker's "
        "ratings decide the recommendation.",
        count,
    ) % numbers
    return GateCheck("speakers", True, message), ""


def _check_usable_share(campaign: GroupSummary, policy: GatePolicy) -> tuple[GateCheck, str]:
    if campaign.rated_items == 0:
        return GateCheck("usable_share", None, _("No item has been rated, so the usable share is unknown.")), ""
    threshold, low, high = policy.min_usable_lower_bound, campaign.interval_low, campaign.interval_high
    point = campaign.estimate
    numbers = {
        "low": _number(low, threshold), "high": _number(high, threshold),
        "share": _number(point, threshold), "limit": _number(threshold),
        "usable": campaign.usable_items, "rated": campaign.rated_items,
    }
    if campaign.weighted_share is None:
        numbers["stated"] = _("Usable share %(share)s (%(usable)s of %(rated)s rated items; 95%% interval "
                              "%(low)s–%(high)s)") % numbers
    else:
        numbers["stated"] = _("Usable share %(share)s, each difficulty tier weighted by its share of the card's "
                              "outputs (%(usable)s of %(rated)s rated items unweighted; 95%% interval "
                              "%(low)s–%(high)s)") % numbers
    if high < threshold:
        message = _("%(stated)s — even its upper bound %(high)s is below the %(limit)s threshold, so more ratings "
                    "would not change the outcome.") % numbers
        reason = _("even the upper bound %(high)s is below %(limit)s") % numbers
        return GateCheck("usable_share", False, message), reason
    if low >= threshold:
        message = _("%(stated)s — its lower bound %(low)s meets the %(limit)s threshold.") % numbers
        return GateCheck("usable_share", True, message), ""
    if point < threshold:
        message = _("%(stated)s is below the %(limit)s threshold, but its upper bound %(high)s is not, so a fail is "
                    "not demonstrated either: more rated items are needed.") % numbers
        reason = _("the usable share %(share)s is below the %(limit)s threshold but its upper bound %(high)s is "
                   "not (a fail is not demonstrated)") % numbers
        return GateCheck("usable_share", None, message), reason
    message = _("%(stated)s is at or above the %(limit)s threshold, but its lower bound %(low)s is not: more rated "
                "items are needed to be confident.") % numbers
    return GateCheck("usable_share", None, message), _("the usable share's lower bound %(low)s is still below "
                                                       "%(limit)s") % numbers


def _check_tier_floor(groups: tuple[GroupSummary, ...], policy: GatePolicy) -> tuple[GateCheck, str]:
    """Each group of tiers on its own speaker-aware interval, like the whole campaign: below the floor only when
    even the upper bound is; demonstrated only when the lower bound reaches it."""
    rated = [group for group in groups if group.rated_items > 0]
    floor, limit = _number(policy.min_tier_usable_share), policy.min_tier_usable_share
    if not rated:
        return GateCheck("tier_floor", None, _("No difficulty tier has a rated item yet.")), ""
    below = [group for group in rated if group.interval_high < limit]
    unshown = [group for group in rated if group not in below and group.interval_low < limit]

    def listed(tiers: list[GroupSummary]) -> str:
        return _join(ngettext("%(tier)s (%(usable)s of %(rated)s items usable, 95%% interval %(low)s–%(high)s)",
                              "%(tier)s (%(usable)s of %(rated)s items usable, 95%% interval %(low)s–%(high)s)",
                              tier.usable_items) % {
            "tier": tier.label, "usable": tier.usable_items, "rated": tier.rated_items,
            "low": _number(tier.interval_low, limit), "high": _number(tier.interval_high, limit)} for tier in tiers)

    def names(tiers: list[GroupSummary]) -> str:
        return _join(str(tier.label) for tier in tiers)

    sentences = []
    if below:
        sentences.append(ngettext(
            "%(tiers)s falls below the %(floor)s floor for every difficulty tier: even the upper bound of its "
            "interval is below it.",
            "%(tiers)s fall below the %(floor)s floor for every difficulty tier: even the upper bounds of their "
            "intervals are below it.", len(below)) % {"tiers": listed(below), "floor": floor})
    if unshown:
        sentences.append(ngettext(
            "%(tiers)s does not yet demonstrate the %(floor)s floor: the lower bound of its interval is below it.",
            "%(tiers)s do not yet demonstrate the %(floor)s floor: the lower bounds of their intervals are below "
            "it.", len(unshown)) % {"tiers": listed(unshown), "floor": floor})
    if below:
        reason = ngettext("%(tiers)s falls below the %(floor)s tier floor",
                          "%(tiers)s fall below the %(floor)s tier floor", len(below)) % {
            "tiers": names(below), "floor": floor}
        return GateCheck("tier_floor", False, " ".join(sentences)), reason
    if unshown:
        return GateCheck("tier_floor", None, " ".join(sentences)), ngettext(
            "%(tiers)s does not yet demonstrate the %(floor)s tier floor",
            "%(tiers)s do not yet demonstrate the %(floor)s tier floor", len(unshown)) % {
            "tiers": names(unshown), "floor": floor}
    lowest = min(rated, key=lambda tier: tier.interval_low)
    message = _("Every rated difficulty tier demonstrates the %(floor)s floor (lowest lower bound: %(tier)s at "
                "%(low)s).") % {"floor": floor, "tier": lowest.label, "low": _number(lowest.interval_low, limit)}
    return GateCheck("tier_floor", True, message), ""


def _check_reject_share(campaign: GroupSummary, policy: GatePolicy) -> tuple[GateCheck, str]:
    if campaign.rated_items == 0:
        return GateCheck("reject_share", None, _("No item has been rated, so the reject share is unknown.")), ""
    numbers = {"share": _number(campaign.reject_share, policy.max_reject_share),
               "limit": _number(policy.max_reject_share), "rejected": campaign.reject_items,
               "rated": campaign.rated_items}
    numbers["stated"] = ngettext("Reject share %(share)s (%(rejected)s of %(rated)s rated items has a median rating "
                                 "of reject)",
                                 "Reject share %(share)s (%(rejected)s of %(rated)s rated items have a median rating "
                                 "of reject)", campaign.reject_items) % numbers
    if campaign.reject_share > policy.max_reject_share:
        message = _("%(stated)s exceeds the %(limit)s maximum.") % numbers
        return GateCheck("reject_share", False, message), _("the reject share %(share)s exceeds the %(limit)s "
                                                            "maximum") % numbers
    return GateCheck("reject_share", True, _("%(stated)s is within the %(limit)s maximum.") % numbers), ""
