"""Names of the leaderboard's tiers in the interface language. Rows keep the English names (they are data, cached
and served by the API as they are); pages translate them when they show them."""

from django import template
from django.utils.translation import gettext, ngettext, pgettext_lazy

from ..selectors.query import STANDARDS, LeaderboardQuery
from ..selectors.rankings import clustered
from ..verification import DEFAULT_TIER_BANDS, DEPLOYABLE_THRESHOLD

register = template.Library()

TIER_LABELS = {
    "Baseline": pgettext_lazy("quality tier", "Baseline"),
    "Emerging": pgettext_lazy("quality tier", "Emerging"),
    "Functional": pgettext_lazy("quality tier", "Functional"),
    "Deployable": pgettext_lazy("quality tier", "Deployable"),
    "Fluent": pgettext_lazy("quality tier", "Fluent"),
    "Self-benchmarked": pgettext_lazy("verification tier", "Self-benchmarked"),
    "GDS Verified": pgettext_lazy("verification tier", "GDS Verified"),
    "Community Validated": pgettext_lazy("verification tier", "Community Validated"),
}


@register.simple_tag
def deployable_threshold() -> float:
    """The composite where Deployable starts by default, for pages that state the rule (`floatformat:2` writes it
    the reader's way)."""
    return DEPLOYABLE_THRESHOLD


@register.simple_tag
def default_tier_bands() -> dict[str, float]:
    return DEFAULT_TIER_BANDS


@register.filter
def tier_label(name: str | None) -> str:
    """A quality or verification tier's name as the page shows it; an unknown name as it is."""
    return str(TIER_LABELS.get(name, name)) if name else ""


@register.filter
def has_rank_clusters(query: LeaderboardQuery) -> bool:
    """Whether a ranking's rows carry rank clusters (`selectors.rankings.clustered`)."""
    return clustered(query)


@register.filter
def sorted_column(query: LeaderboardQuery) -> str:
    """The column a ranking is ordered by: the standard's primary metric, or the cost-adjusted score."""
    return "cost_adjusted" if query.sort == "cost_adjusted" else STANDARDS[query.standard]


@register.filter
def chrf_signatures(rows) -> list[str]:
    """The distinct chrF++ sacreBLEU signatures of the rows shown, in order of first appearance: usually one, so it
    is written once under the ranking rather than on every row."""
    seen: dict[str, None] = {}
    for row in rows or ():
        if row.get("sacrebleu_signature"):
            seen.setdefault(row["sacrebleu_signature"], None)
    return list(seen)


@register.filter
def discrepancy_note(found: dict) -> str:
    """What a disagreement with the stored corpus means, in the interface language (verification.against_corpus
    names the entry, never its text); "" for the others, whose path and values say it."""
    path, entry = found.get("path", ""), found.get("entry")
    if entry is not None and path.endswith(".source"):
        return gettext("differs from the stored source of entry %(entry)s") % {"entry": entry}
    if entry is not None and path.endswith(".expected"):
        return gettext("differs from the stored reference of entry %(entry)s") % {"entry": entry}
    if path in ("results", "entries") and isinstance(found.get("recomputed"), int):
        count = found["recomputed"]
        return ngettext("%(count)s result in all differs from the stored corpus; the first ones are listed",
                        "%(count)s results in all differ from the stored corpus; the first ones are listed",
                        count) % {"count": count}
    return ""


@register.inclusion_tag("leaderboard/_disqualification.html", takes_context=True)
def disqualification_panel(context, card=None, method=None, part="notice") -> dict:
    """A card's or a method's disqualification, shown to everyone (the card stays reachable, marked), with the form
    to lift it for those who may (`part` "notice", at the top of the page), or the form to disqualify (`part`
    "form", further down): maintainers, and for a card the steward's governance staff."""
    from organizations.permissions import permitted

    from ..selectors import active_disqualification

    user = context["request"].user
    if card is not None:
        can = permitted(user, "run_card.disqualify_here", card)
    else:
        can = permitted(user, "method.disqualify", method)
    return {"active": active_disqualification(run_card=card, method=method), "card": card, "method": method,
            "can": can, "request": context["request"], "part": part}


@register.inclusion_tag("leaderboard/_conflict.html", takes_context=True)
def conflict_panel(context, card=None, method=None) -> dict:
    """For a signed-in visitor: their own declaration of a conflict of interest with the card or the method (to
    withdraw it), or the form to declare one."""
    from ..selectors import own_conflict

    user = context["request"].user
    if not user.is_authenticated:
        return {"show": False}
    return {"show": True, "card": card, "method": method, "request": context["request"],
            "declared": own_conflict(user, run_card=card, method=method)}
