"""`{% ranking_rows rows query %}`: the body of a ranking's table (`leaderboard/_ranking.html`), written here rather
than in the template language. A ranking shows 20 to 50 rows of sixteen cells, and the template language spent about
0.35 ms on each (a sixth of a leaderboard computed afresh at 10,000 cards, docs/performance.md); this writes a row in
a sixth of that. The markup is the template's, cell for cell, and every string is the template's message: what a
`{% translate %}` wrote is `literal(gettext(…))`, what a `{% blocktranslate %}` wrote is `filled(gettext(…), …)`, and
each is translated once per ranking, not once per row."""

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django import template
from django.template.defaultfilters import floatformat, join
from django.template.loader import render_to_string
from django.utils.formats import date_format, get_format, localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime
from django.utils.translation import gettext, ngettext

from common.addresses import address
from corpus.templatetags.local_contexts import label_badges

from ..selectors.query import LeaderboardQuery
from .leaderboard_tags import has_rank_clusters, sorted_column, tier_label

register = template.Library()


def shown(value: Any) -> str:
    """A value as `{{ value }}` writes it: in the reader's format, escaped."""
    return conditional_escape(str(localize(template_localtime(value))))


def literal(text: str) -> SafeString:
    """What `{% translate "…" %}` writes of its translation `text`: as it is (a template's literal, and so its
    translation, is safe), with a percent sign that the message writes twice (as the template's did) written once."""
    return mark_safe(text.replace("%%", "%"))


def filled(text: str, **values: Any) -> SafeString:
    """What `{% blocktranslate %}` writes of its translation `text`: each value written as `shown` writes it."""
    return mark_safe(text % {name: value if isinstance(value, SafeString) else shown(value)
                             for name, value in values.items()})


def fixed(value: Any, places: int, separator: str) -> str:
    """`value|floatformat:places` for the scores rows hold, in a tenth of its time: rounded half up from the value's
    shortest decimal form, with the reader's decimal `separator`; "" for None. Anything but a float or an int of
    ordinary size goes to floatformat itself (tests/test_leaderboard_rows.py holds them to the same output)."""
    if value is None:
        return ""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value) or abs(value) >= 1e15:
        return floatformat(value, places)
    rounded = Decimal(str(value)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    text = f"{rounded:f}"
    return (text.lstrip("-") if not rounded else text).replace(".", separator)


class RowWriter:
    """Writes the rows of one ranking: what every row says alike is translated once, here."""

    def __init__(self, query: LeaderboardQuery) -> None:
        self.clustered, self.ordered_by, self.domain = has_rank_clusters(query), sorted_column(query), query.domain
        self.separator = get_format("DECIMAL_SEPARATOR")
        self.label = {key: literal(text) for key, text in {
            "rank": gettext("Rank"), "rank_cluster": gettext("Rank cluster"), "method": gettext("Method"),
            "composite": gettext("Composite"), "fst": gettext("FST acceptance"), "exact": gettext("Exact match"),
            "semantic": gettext("Semantic"), "cost": gettext("Cost / entry"), "latency": gettext("Mean latency"),
            "cost_adjusted": gettext("Cost-adjusted"), "class": gettext("Class"), "model": gettext("Model"),
            "tier": gettext("Quality tier"), "verification": gettext("Verification"),
            "dependencies": gettext("Dependencies"), "date": gettext("Date")}.items()}
        self.text = {key: literal(text) for key, text in {
            "withdrawn_title": gettext(
                "Its community revoked consent to evaluation: only its governance staff see this row"),
            "withdrawn": gettext("withdrawn"),
            "unverified_title": gettext(
                "Published without its per-entry rows: its scores are the card's own claims, which nothing here "
                "could recompute"),
            "unverified": gettext("unverified: no per-entry rows"),
            "mismatches_title": gettext(
                "Some of its results carry a source or expected text that is not the stored corpus's: it is never "
                "shown as verified, and every score shown is computed against the stored entries"),
            "recomputed_title": gettext(
                "The card's own score disagrees with what its results give: the row shows and is ranked by the "
                "recomputed one"),
            "disagreements_title": gettext("Values of this card disagree with what its own results give; see its page"),
            "prompt": gettext("prompt"), "no_prompt": gettext("no system prompt"), "no_tools": gettext("no tools"),
            "development_title": gettext(
                "The method declares that it used public development entries of this dataset"),
            "no_development": gettext("declares it used no development entry"),
            "labels": gettext("Local Contexts labels of its data:"),
            "ci_card": gettext("95%% bootstrap interval, as the card gives it"),
            "ci_recomputed": gettext(
                "95%% bootstrap interval, recomputed here from the card's results (1,000 resamples, seed 12345)"),
            "provisional": gettext("provisional — awaiting community review"),
            "external": gettext("external dependency")}.items()}
        self.form = {"claimed": gettext("claimed %(claimed)s, recomputed %(recomputed)s"),
                     "tools": gettext("tools: %(tools)s"), "uses": gettext("used development entries: %(uses)s"),
                     "interval": gettext("[%(lower)s–%(upper)s]"), "dependency": gettext("Dependency class %(name)s"),
                     "cost": gettext("$%(cost)s"), "seconds": gettext("%(seconds)s s")}

    def number(self, value: Any, places: int) -> str:
        """`value|floatformat:places|default:"—"`."""
        return conditional_escape(fixed(value, places, self.separator) or "—")

    def badges(self, row: dict[str, Any]) -> str:
        """What follows the method's name: withdrawn, unverified, not verified, runs, recomputed, disagreements."""
        text, parts = self.text, []
        if row["withdrawn"]:
            parts.append(f' <span class="badge revoked" title="{text["withdrawn_title"]}">{text["withdrawn"]}</span>')
        if row["unverified"]:
            parts.append(f' <span class="badge warn unverified" title="{text["unverified_title"]}">'
                         f'{text["unverified"]}</span>')
        if mismatches := row["corpus_mismatches"]:
            parts.append(f' <span class="badge warn not-verified" title="{text["mismatches_title"]}">' + filled(
                ngettext("not verified: %(counter)s result differs from the stored corpus",
                         "not verified: %(counter)s results differ from the stored corpus", mismatches),
                counter=mismatches) + "</span>")
        if (runs := row["cards_in_group"]) > 1:
            parts.append(' <span class="muted runs">' + filled(
                ngettext("(%(counter)s run)", "(%(counter)s runs)", runs), counter=runs) + "</span>")
        if recomputed := row["recomputed_score"]:
            places = 3 if recomputed["metric"] == "composite" else 2
            parts.append(f' <span class="badge warn recomputed" title="{text["recomputed_title"]}">' + filled(
                self.form["claimed"], claimed=self.number(recomputed["claimed"], places),
                recomputed=fixed(recomputed["recomputed"], places, self.separator)) + "</span>")
        if disagreements := row["discrepancy_count"]:
            parts.append(f' <span class="badge warn" title="{text["disagreements_title"]}">' + filled(
                ngettext("%(counter)s disagreement", "%(counter)s disagreements", disagreements),
                counter=disagreements) + "</span>")
        return "".join(parts)

    def configuration(self, setup: dict[str, Any] | None) -> str:
        """A method-less card's setup: its prompt's hash, temperature and tools."""
        if not setup:
            return ""
        prompt = (format_html('{} <span class="mono">{}</span>', self.text["prompt"], setup["system_prompt_sha256"])
                  if setup["system_prompt_sha256"] else self.text["no_prompt"])
        tools = (filled(self.form["tools"], tools=join(setup["tools_enabled"], ", ")) if setup["tools_enabled"]
                 else self.text["no_tools"])
        return f'<span class="help config">{prompt} · T={shown(setup["temperature"])} · {tools}</span>'

    def development_data(self, declared: dict[str, Any] | None) -> str:
        """The method's declaration of the development entries it used."""
        if declared and declared.get("used"):
            return (f'<span class="badge dev-data" title="{self.text["development_title"]}">'
                    + filled(self.form["uses"], uses=join(declared.get("uses", ""), ", ")) + "</span>")
        return f'<span class="help">{self.text["no_development"]}</span>' if declared else ""

    def method(self, row: dict[str, Any]) -> str:
        labels = (f'<span class="help row-labels">{self.text["labels"]}'
                  + render_to_string("corpus/_label_badges.html", label_badges(row["labels"])) + "</span>"
                  if row["labels"] else "")
        scored = ('<span class="help">' + filled(ngettext("%(counter)s entry scored", "%(counter)s entries scored",
                                                          row["entries_scored"]), counter=row["entries_scored"])
                  + "</span>" if self.domain else "")
        # Reversed once per process (common.addresses): reverse() took a sixth of a row's time.
        link = format_html('<a href="{}">{}</a>', address("leaderboard:card", row["id"]), row["method"])
        return (f'<td data-label="{self.label["method"]}" class="method">{link}{self.badges(row)}\n'
                f'      {self.configuration(row["configuration"])}\n'
                f'      {self.development_data(row["development_data"])}\n      {labels}\n      {scored}</td>')

    def chrf(self, row: dict[str, Any]) -> str:
        interval = ""
        if ci := row["chrf_ci"]:
            title = self.text["ci_card" if ci["source"] == "card" else "ci_recomputed"]
            interval = f'<br><span class="help ci" title="{title}">' + filled(
                self.form["interval"], lower=fixed(ci["lower"], 1, self.separator),
                upper=fixed(ci["upper"], 1, self.separator)) + "</span>"
        return (f'<td data-label="chrF++" class="num chrf{self.sorted("chrf_plus_plus")}">'
                f'{self.number(row["chrf_plus_plus"], 1)}{interval}</td>')

    def tier(self, row: dict[str, Any]) -> str:
        provisional = (f' <span class="badge provisional">{self.text["provisional"]}</span>'
                       if row["quality_tier_provisional"] else "")
        review = (render_to_string("leaderboard/_community_review.html", {"row": row})
                  if row["community_review"] else "")
        return (f'<td data-label="{self.label["tier"]}" class="tier group-start">'
                f'{conditional_escape(tier_label(row["quality_tier"]) or "—")}{provisional}{review}</td>')

    def dependencies(self, row: dict[str, Any]) -> str:
        declared = (format_html('<span class="badge" title="{}">{}</span>', filled(
            self.form["dependency"], name=row["dependency_class"]), row["dependency_class"])
            if row["dependency_class"] else "—")
        external = f' <span class="badge secret">{self.text["external"]}</span>' if row["external_dependency"] else ""
        return f'<td data-label="{self.label["dependencies"]}" class="dependencies">{declared}{external}</td>'

    def sorted(self, column: str) -> str:
        return " sorted" if self.ordered_by == column else ""

    def row(self, row: dict[str, Any]) -> str:
        """One `<tr>`, as the template's loop wrote it (whitespace included)."""
        label = self.label
        verification = conditional_escape(tier_label(row["verification_tier"]))
        if row["verification_tier"] != "Self-benchmarked":
            verification = f'<span class="badge verified">{verification}</span>'
        cost = (filled(self.form["cost"], cost=fixed(row["cost_per_entry_usd"], 4, self.separator))
                if row["cost_per_entry_usd"] is not None else "—")
        latency = (filled(self.form["seconds"], seconds=fixed(row["avg_latency_seconds"], 2, self.separator))
                   if row["avg_latency_seconds"] is not None else "—")
        date = date_format(template_localtime(row["date"]), "Y-m-d") if row["date"] else ""
        cells = [
            f'<td data-label="{label["rank"]}" class="rank">{shown(row["rank"])}</td>',
            f'<td data-label="{label["rank_cluster"]}" class="num cluster">{shown(row["rank_cluster"] or "—")}</td>'
            if self.clustered else "",
            self.method(row),
            f'<td data-label="{label["composite"]}" class="num composite group-start{self.sorted("composite")}">'
            f'{self.number(row["composite"], 3)}</td>',
            self.chrf(row),
            f'<td data-label="{label["fst"]}" class="num fst">{self.number(row["fst_acceptance_rate"], 3)}</td>',
            f'<td data-label="{label["exact"]}" class="num exact">{self.number(row["exact_match_rate"], 3)}</td>',
            f'<td data-label="{label["semantic"]}" class="num semantic">{self.number(row["semantic_score"], 3)}</td>',
            f'<td data-label="{label["cost"]}" class="num cost group-start">{cost}</td>',
            f'<td data-label="{label["latency"]}" class="num latency">{latency}</td>',
            f'<td data-label="{label["cost_adjusted"]}" class="num cost-adjusted{self.sorted("cost_adjusted")}">'
            f'{self.number(row["cost_adjusted"], 3)}</td>',
            f'<td data-label="{label["class"]}" class="class group-start">'
            f'{conditional_escape(row["method_class"] or "—")}</td>',
            f'<td data-label="{label["model"]}" class="model">{conditional_escape(row["model"])}</td>',
            self.tier(row),
            f'<td data-label="{label["verification"]}" class="verification">{verification}</td>',
            self.dependencies(row),
            f'<td data-label="{label["date"]}" class="date group-start">{conditional_escape(date)}</td>',
        ]
        return "\n  <tr>\n" + "\n".join(f"    {cell}" for cell in cells) + "\n  </tr>\n  "


@register.simple_tag
def ranking_rows(rows: list[dict[str, Any]], query: LeaderboardQuery) -> SafeString:
    """The `<tr>` of each row (`selectors.rows.row_view`) of the ranking `query` names. Everything a row holds is
    escaped where it is written (`format_html`, `conditional_escape`, `shown`); the rest is the messages'."""
    writer = RowWriter(query)
    return mark_safe("".join(writer.row(row) for row in rows))
