"""The leaderboard's filters as a visitor writes them (page or API), validated: standard, pair, dataset and version,
segment, domain, sort, ranking and scope."""

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace

from django.utils.translation import gettext

from corpus.language_pairs import pair_key

# The default first: standard/1 is what the harness scores every new run by; legacy-composite cards rank apart.
STANDARDS = {"standard/1": "chrf_plus_plus", "legacy-composite": "composite"}
DEFAULT_STANDARD = "standard/1"
SORTS = ("primary", "cost_adjusted")
# Benchmark specification §6.4, §2.3, §9.5: the official ranking is of gold_standard/held_out cards, which only the
# steward's governance staff submit (they run the methods on the secret entries); the open ranking is of
# development/diagnostic cards, which anyone submits.
RANKINGS = ("official", "open")
# A ranking is of one dataset version (of one language pair); across versions or pairs only when asked for.
SCOPES = ("version", "pair", "all")


@dataclass
class LeaderboardQuery:
    """Validated filters; `errors` names each bad parameter and what it accepts."""

    standard: str = DEFAULT_STANDARD
    language_pair: str = ""
    dataset: str = ""
    version: str = ""
    segment: str = ""
    domain: str = ""
    sort: str = "primary"
    ranking: str = ""
    scope: str = "version"
    # Whether the standard was asked for: the page shows every standard's ranking that has rows otherwise.
    standard_given: bool = False
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_params(cls, params) -> "LeaderboardQuery":
        from corpus.models import Domain, Segment

        def text(name: str) -> str:
            return (params.get(name) or "").strip()[:100]

        query = cls(language_pair=text("language_pair"), dataset=text("dataset"), version=text("version"),
                    segment=text("segment"), domain=text("domain"), ranking=text("ranking"),
                    scope=text("scope") or "version", standard_given=bool(text("standard")))
        query.standard = (params.get("standard") or DEFAULT_STANDARD).strip()
        query.sort = (params.get("sort") or "primary").strip()
        if query.ranking and query.ranking not in RANKINGS:
            query.errors["ranking"] = gettext("unknown ranking; expected one of: %(values)s") % {
                "values": ", ".join(RANKINGS)}
        if query.scope not in SCOPES:
            query.errors["scope"] = gettext("unknown scope; expected one of: %(values)s") % {
                "values": ", ".join(SCOPES)}
        elif query.scope == "pair" and not query.language_pair:
            query.errors["scope"] = gettext("a ranking across the versions of a pair needs the language_pair")
        if query.standard not in STANDARDS:
            query.errors["standard"] = gettext("unknown standard; expected one of: %(values)s") % {
                "values": ", ".join(STANDARDS)}
        if query.sort not in SORTS:
            query.errors["sort"] = gettext("unknown sort; expected one of: %(values)s") % {"values": ", ".join(SORTS)}
        if query.segment and query.segment not in [*Segment.values, "mixed"]:
            query.errors["segment"] = gettext("unknown segment; expected one of: %(values)s") % {
                "values": ", ".join([*Segment.values, "mixed"])}
        if query.domain and query.domain not in Domain.values:
            query.errors["domain"] = gettext("unknown domain; expected one of: %(values)s") % {
                "values": ", ".join(Domain.values)}
        if query.language_pair and pair_key(query.language_pair) is None:
            query.errors["language_pair"] = gettext(
                "not a language pair; expected source and target languages such as: %(values)s") % {
                "values": "eng>crk, EN→CRK, en-CA -> crk"}
        return query

    @property
    def pair(self) -> str | None:
        """The language pair's key (corpus.language_pairs.pair_key), however it was written."""
        return pair_key(self.language_pair) if self.language_pair else None

    def but(self, **changes) -> "LeaderboardQuery":
        return replace(self, **changes)


def filters_key(query: LeaderboardQuery) -> str:
    return hashlib.sha256(json.dumps({k: v for k, v in asdict(query).items() if k != "errors"},
                                     sort_keys=True).encode()).hexdigest()[:32]
