"""The harness's reads (docs/run-cards.md, "Publishing from the upstream harness"): the install read of
`run_cards` — the cards the leaderboard lists to the reader, one upstream row each — and the language tables the
harness reads when it starts (`trading_card_index`, `trading_card_detail`), served from the site's own language
records. Queries arrive parsed (submissions/harness/query.py); what the database can filter and order, it does,
a page at a time."""

import json
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.conf.locale import LANG_INFO
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db.models import BooleanField, Case, CharField, F, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce

from common.json_reader import JsonObjectReader, NotStreamed
from corpus.language_pairs import ISO_639_1_TO_3, language_code, pair_key, version_pair_key
from corpus.selectors import public_download_hash, version_hash, visible_datasets, visible_versions
from languages.models import InterfaceLanguage
from leaderboard.card_json import CARD_DECODER, unambiguous
from leaderboard.models import RunCard
from leaderboard.selectors import disqualified, listed_cards, setup_key, unverified_last, versions_of_pair
from organizations.models import Organization

from . import query
from .query import BOOLEAN, INTEGER, JSON, NUMBER, PAIR, TEXT, TEXT_ARRAY, TIMESTAMP, UUID

# Scores upstream's rows carry that this site serves from the stored card, as the card gives them.
CARD_SCORES = ("equivalent_match_rate", "comet_score", "qe_score", "morphological_accuracy", "morph_coverage", "ter",
               "length_ratio", "tokens_per_second", "entries_per_minute", "median_latency_seconds",
               "p95_latency_seconds", "code_switching_rate", "hallucination_rate", "terminology_adherence",
               "style_consistency_rate")
TRUST_VALUES = ("verified", "unverified", "disqualified")
RUN_CARDS = query.Table("run_cards", {
    "id": UUID, "submitter": TEXT, "submitted_at": TIMESTAMP, "trust": TEXT, "verification_tier": TEXT,
    "unverified": BOOLEAN, "model_slug": TEXT, "condition": TEXT, "dataset_id": TEXT, "dataset_version": TEXT,
    "language_pair": PAIR, "harness_version": TEXT, "chrf_plus_plus": NUMBER, "chrf_ci_lower": NUMBER,
    "chrf_ci_upper": NUMBER, "corpus_bleu": NUMBER, "exact_match_rate": NUMBER, "exact_match_ci_lower": NUMBER,
    "exact_match_ci_upper": NUMBER, "fst_acceptance_rate": NUMBER, "semantic_score": NUMBER, "composite_score": NUMBER,
    "quality_tier": TEXT, "scoring_standard": TEXT, "fingerprint_hash": TEXT, "method_class": TEXT,
    "api_provider": TEXT, "run_timestamp": TIMESTAMP, "batch_size": INTEGER, "temperature": NUMBER,
    "max_tokens": INTEGER, "total_cost_usd": NUMBER, "cost_per_entry_usd": NUMBER, "elapsed_seconds": NUMBER,
    "avg_latency_seconds": NUMBER, "corpus_size": INTEGER, "corpus_license": TEXT, "corpus_attribution": TEXT,
    **dict.fromkeys(CARD_SCORES, NUMBER), "run_card": JSON,
}, choices={"trust": TRUST_VALUES}, pair_key=pair_key)
INDEX_COLUMNS = {"code": TEXT, "name": TEXT, "aliases": TEXT_ARRAY, "iso639_1": TEXT, "native_name": TEXT,
                 "dir": TEXT}
TRADING_CARD_INDEX = query.Table("trading_card_index", INDEX_COLUMNS)
TRADING_CARD_DETAIL = query.Table("trading_card_detail", {"code": TEXT, "detail": JSON})

# The database expression of each column it can filter and order by (annotations of harness_cards); the others are
# read from the card and applied here, to at most UNINDEXED_READ_LIMIT cards.
DATABASE_COLUMNS = {
    "id": "public_id", "submitted_at": "submitted_at", "trust": "trust_value", "unverified": "without_rows",
    "model_slug": "model_slug", "condition": "condition", "dataset_id": "dataset_version__dataset__identifier",
    "dataset_version": "dataset_version__version", "harness_version": "harness_version",
    "chrf_plus_plus": "shown_chrf", "chrf_ci_lower": "chrf_ci_lower", "chrf_ci_upper": "chrf_ci_upper",
    "composite_score": "shown_composite", "exact_match_rate": "shown_exact", "scoring_standard": "scoring_standard",
    "fingerprint_hash": "shown_fingerprint", "run_timestamp": "timestamp", "temperature": "temperature",
    "batch_size": "batch_size", "cost_per_entry_usd": "cost_per_entry_usd", "avg_latency_seconds":
    "avg_latency_seconds", "corpus_size": "result_count", "fst_acceptance_rate": "fst_acceptance_rate",
    "semantic_score": "semantic_score",
}
# Columns a row is built from without reading the stored card's text.
WITHOUT_TEXT = (*DATABASE_COLUMNS, "submitter", "verification_tier", "language_pair", "method_class")
UNINDEXED_READ_LIMIT = 2000
CARD_TEXT_SECONDS = 24 * 3600


# ---------------------------------------------------------------------------------------------------------
# run_cards
# ---------------------------------------------------------------------------------------------------------

def trust_value() -> Case:
    """upstream's `trust`: "disqualified" for a card out of every ranking (its own or its method's disqualification);
    "verified" for a card this site scored against its stored corpus — every per-entry row came, none contradicts the
    stored entries, its seal verifies and its claimed primary score is what its rows give (or a maintainer reproduced
    it, or its community validated it); "unverified" for every other card: published without its rows, or whose texts
    or claimed score its rows do not bear out."""
    scored_here = Q(status=RunCard.Status.READY, corpus_mismatches=0, hash_status=RunCard.HashStatus.VERIFIED)
    confirmed = (Q(primary_recomputed=False) | Q(community_validated_at__isnull=False)
                 | Q(verified_by_card__isnull=False))
    return Case(When(disqualified(), then=Value("disqualified")), When(scored_here & confirmed, then=Value("verified")),
                default=Value("unverified"), output_field=CharField())


def harness_cards(user, parsed: query.Query) -> QuerySet[RunCard]:
    """The cards the install read lists to `user` (those the leaderboard lists, of every standard), with the columns
    the database serves, narrowed by every filter the database can apply. A read by id presented with an account's
    own token leaves out that account's own cards still without their per-entry rows: the harness's check "is this
    run already published?" then lets `mt-eval publish --publish-entries` send them (docs/run-cards.md)."""
    cards = listed_cards(user).select_related("method", "dataset_version__dataset", "harness_intake",
                                              "submitted_by").defer("raw", "discrepancies", "chrf_statistics").annotate(
        shown_chrf=Coalesce("leaderboard_chrf_plus_plus", "chrf_plus_plus"),
        shown_composite=Coalesce("leaderboard_composite", "composite"),
        shown_exact=Coalesce("recomputed_exact_match_rate", "exact_match_rate"),
        shown_fingerprint=setup_key(), is_disqualified=disqualified(), trust_value=trust_value(),
        without_rows=Case(When(status=RunCard.Status.UNVERIFIED, then=Value(True)), default=Value(False),
                          output_field=BooleanField()))
    if user.is_authenticated and parsed.equal_to("id") is not None:
        cards = cards.exclude(status=RunCard.Status.UNVERIFIED, submitted_by=user)
    for condition in parsed.filters:
        if condition.column == "language_pair" and condition.operator in ("eq", "in"):
            keys = condition.value if condition.operator == "in" else (condition.value,)
            versions = [pk for key in keys for pk in versions_of_pair(key)]
            cards = cards.exclude(dataset_version__in=versions) if condition.negated else cards.filter(
                dataset_version__in=versions)
        elif applied_in_database(condition):
            cards = cards.filter(database_condition(DATABASE_COLUMNS[condition.column], condition))
    return cards


def database_condition(name: str, condition: query.Filter) -> Q:
    """`condition` on the database expression `name`, with SQL's logic: a comparison never holds for a null, negated
    or not (PostgREST's `neq` and `not.eq` leave nulls out)."""
    if condition.operator == "is":
        if condition.value in ("true", "false"):
            held = Q(**{name: condition.value == "true"})
        else:
            held = Q(**{f"{name}__isnull": condition.value != "not_null"})
        return ~held if condition.negated else held
    lookup = {"eq": "exact", "neq": "exact", "gt": "gt", "gte": "gte", "lt": "lt", "lte": "lte", "in": "in"}[
        condition.operator]
    value = list(condition.value) if condition.operator == "in" else condition.value
    compared = Q(**{f"{name}__{lookup}": value})
    if condition.negated != (condition.operator == "neq"):
        compared = ~compared
    return Q(**{f"{name}__isnull": False}) & compared


def applied_in_database(condition: query.Filter) -> bool:
    """Whether the database applies the filter (SQL LIKE's patterns are matched here)."""
    if condition.column == "language_pair":
        return condition.operator in ("eq", "in")
    return condition.column in DATABASE_COLUMNS and condition.operator not in ("like", "ilike")


def in_database(parsed: query.Query) -> bool:
    """Whether the database applies every filter and order of the query."""
    return all(map(applied_in_database, parsed.filters)) and all(
        column in DATABASE_COLUMNS for column, _, _ in parsed.order)


def harness_rows(user, parsed: query.Query) -> list[tuple[dict[str, Any], str | None]]:
    """(row, card text or None) of each listed card, filtered, ordered and cut as asked; the card's text only when
    `run_card` is selected, to be written into the answer verbatim. As on the leaderboard, a disqualified card comes
    after every other, and a claim nothing could recompute after every verified score, whatever the order."""
    cards = harness_cards(user, parsed)
    needs_text = any(column not in WITHOUT_TEXT for column in parsed.columns)
    if in_database(parsed):
        ordering = [getattr(F(DATABASE_COLUMNS[column]), "desc" if descending else "asc")(
            **{"nulls_last" if nulls_last else "nulls_first": True}) for column, descending, nulls_last in parsed.order]
        page = list(cards.annotate(unverified=unverified_last())
                    .order_by("is_disqualified", "unverified", *ordering, "-submitted_at", "pk")
                    [parsed.offset:parsed.offset + parsed.limit])
        texts = served_card_texts(page) if needs_text else {}
        rows = [(harness_row(card, texts.get(card.pk)), texts.get(card.pk)) for card in page]
    else:
        read = list(cards.order_by("-submitted_at", "pk")[:UNINDEXED_READ_LIMIT])
        texts = served_card_texts(read)
        built = {id(row): (row, texts[card.pk]) for card in read
                 for row in [{**harness_row(card, texts[card.pk]), "run_card": texts[card.pk]}]}
        kept = query.apply([row for row, _ in built.values()], parsed, cut=False)
        kept.sort(key=lambda row: (row["trust"] == "disqualified", row["unverified"]))
        rows = [built[id(row)] for row in kept[parsed.offset:parsed.offset + parsed.limit]]
    return [({name: row.get(name) for name in parsed.columns if name != "run_card"},
             text if "run_card" in parsed.columns else None) for row, text in rows]


# Members of a card pinning a hash kept from the public that the install read may serve: none of them is, or is
# computed over, the dataset's real hash (its seal and fingerprint object are).
SERVED_WHEN_HASH_HIDDEN = ("run_id", "harness_version", "timestamp", "model_slug", "model_id", "condition",
                           "temperature", "batch_size", "tools_enabled", "method_config", "method_card", "method",
                           "scores", "totals", "api_provider", "max_tokens")


def served_card_texts(cards: Sequence[RunCard]) -> dict[int, str]:
    """Stored card pk → the card as the install read serves it (served_card_text). Cached per stored card (which
    never changes); the texts not cached are read in one query, a few cards at a time."""
    keys = {card.pk: f"harness-card:{card.pk}" for card in cards}
    cached = cache.get_many(list(keys.values()))
    texts = {pk: cached[key] for pk, key in keys.items() if key in cached}
    missing = {card.pk: card for card in cards if card.pk not in texts}
    if missing:
        for pk, raw in RunCard.objects.filter(pk__in=list(missing)).values_list("pk", "raw").iterator(chunk_size=20):
            texts[pk] = served_card_text(missing[pk], raw)
        cache.set_many({keys[pk]: texts[pk] for pk in missing}, CARD_TEXT_SECONDS)
    return texts


def served_card_text(card: RunCard, raw: str) -> str:
    """The stored card as the install read serves it: without its per-entry rows (upstream's rows never carry
    them, and a secret card's must not be served), every other member verbatim — `method_config` byte for byte.
    A card pinning a hash kept from the public (docs/corpus.md, "Hashes") is served without its seal, fingerprint
    object and every member not known to be free of that hash; its `dataset.sha256` and `fingerprint` are the
    public ones. A card stored before repeated member names were refused is served as json.loads reads it (the last
    of each name), which is what its secret-text scan read (leaderboard.card_json.unambiguous)."""
    reader = JsonObjectReader(raw.encode("utf-8"), CARD_DECODER)
    members: dict[str, str] = {}
    try:
        for name in reader.names():
            if name == "results":
                reader.skip()
            else:
                members[name] = unambiguous(reader.value_text())
    except NotStreamed:
        stored = json.loads(raw)
        members = {name: json.dumps(value, ensure_ascii=False) for name, value in stored.items() if name != "results"}
    dataset = json.loads(members.get("dataset", "{}"))
    public = version_hash(AnonymousUser(), card.dataset_version).value
    if isinstance(dataset, dict) and dataset.get("sha256") not in (public, public_download_hash(card.dataset_version)):
        members = {name: value for name, value in members.items() if name in SERVED_WHEN_HASH_HIDDEN}
        members["dataset"] = json.dumps({**{k: v for k, v in dataset.items() if k in (
            "id", "version", "language_pair", "entry_count")}, "sha256": public}, ensure_ascii=False)
        members["fingerprint"] = json.dumps(card.fingerprint)
    return "{" + ", ".join(f"{json.dumps(name, ensure_ascii=False)}: {value}" for name, value in members.items()) + "}"


def submitter_label(card: RunCard) -> str:
    """Who published a card through the harness, as the public may know them: the account's public name (chosen
    under My account, else its pseudonym — accounts.models.User.public_label), never the `submitter` text of the row,
    which the harness filled from its session (an e-mail address, before this site answered a public name). A card
    of the anonymous lane, of a deleted account, or sent through the API is "anonymous"."""
    if not card.submitted_by.is_active or getattr(card, "harness_intake", None) is None:
        return "anonymous"
    return card.submitted_by.public_label


def object_of(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def served_pair(card: RunCard) -> str:
    """The version's language pair as the harness writes pairs (`eng>crk`, ISO 639-3), whichever columns are read."""
    version = card.dataset_version
    return version_pair_key(version.language_pair, version.source_language, version.target_language) or \
        version.language_pair


def harness_row(card: RunCard, card_text: str | None) -> dict[str, Any]:
    """One card as an upstream run_cards row (publish.build_run_card_row's columns); the columns read from the card
    itself are null without its text."""
    content = object_of(json.loads(card_text) if card_text is not None else {})
    scores, totals = object_of(content.get("scores")), object_of(content.get("totals"))
    intervals = object_of(scores.get("confidence_intervals"))

    def interval(name: str, bound: str):
        value = intervals.get(name)
        return value.get(bound) if isinstance(value, dict) else None

    method = card.method
    return {
        "id": str(card.public_id),
        "submitter": submitter_label(card),
        "submitted_at": card.submitted_at.isoformat(),
        "trust": card.trust_value,  # type: ignore[attr-defined]
        "verification_tier": card.verification_tier,
        "unverified": card.status == RunCard.Status.UNVERIFIED,
        "model_slug": card.model_slug,
        "condition": card.condition,
        "dataset_id": card.dataset_version.dataset.identifier,
        "dataset_version": card.dataset_version.version,
        "language_pair": served_pair(card),
        "harness_version": card.harness_version,
        # The scores the leaderboard shows: recomputed where the card's claim is not what its rows give.
        "chrf_plus_plus": card.shown_chrf,  # type: ignore[attr-defined]
        "chrf_ci_lower": card.chrf_ci_lower,
        "chrf_ci_upper": card.chrf_ci_upper,
        "corpus_bleu": content.get("corpus_bleu", scores.get("corpus_bleu")),
        # Against the stored references (NFC), as the leaderboard shows it; a card without rows has its claim only.
        "exact_match_rate": card.shown_exact,  # type: ignore[attr-defined]
        "exact_match_ci_lower": interval("exact_match_rate", "ci_lower"),
        "exact_match_ci_upper": interval("exact_match_rate", "ci_upper"),
        "fst_acceptance_rate": card.fst_acceptance_rate,
        "semantic_score": card.semantic_score,
        "composite_score": card.shown_composite,  # type: ignore[attr-defined]
        "quality_tier": scores.get("quality_tier"),
        "scoring_standard": card.scoring_standard,
        # The card's own fingerprint (a v2 object's hash) once it verifies, else the public v1 one; always the public
        # one for a card pinning a hash kept from the public (docs/run-cards.md, "Fingerprint").
        "fingerprint_hash": card.shown_fingerprint,  # type: ignore[attr-defined]
        "method_class": method.method_class if method else None,
        "api_provider": content.get("api_provider"),
        "run_timestamp": card.timestamp.isoformat(),
        "batch_size": card.batch_size,
        "temperature": card.temperature,
        "max_tokens": content.get("max_tokens"),
        "total_cost_usd": totals.get("total_cost_usd"),
        "cost_per_entry_usd": card.cost_per_entry_usd,
        "elapsed_seconds": content.get("elapsed_seconds"),
        "avg_latency_seconds": card.avg_latency_seconds,
        "corpus_size": card.result_count,
        "corpus_license": content.get("corpus_license"),
        "corpus_attribution": content.get("corpus_attribution"),
        **{name: scores.get(name) for name in CARD_SCORES},
    }


def unknown_datasets(user, rows: list) -> list[str]:
    """The ids of harness `datasets` rows that name no dataset this reader may see (datasets are imported by
    curators here, never created by a publication)."""
    named = [str(row.get("id") or "") for row in rows if isinstance(row, dict)]
    if len(named) != len(rows):
        return ["(a row that is not an object)"]
    known = set(visible_datasets(user).filter(identifier__in=named).values_list("identifier", flat=True))
    return [name for name in named if name not in known]


# ---------------------------------------------------------------------------------------------------------
# trading_card_index, trading_card_detail: the languages the site knows
# ---------------------------------------------------------------------------------------------------------

ISO_639_3_TO_1 = {three: one for one, three in ISO_639_1_TO_3.items()}


def language_rows() -> list[dict[str, Any]]:
    """One `trading_card_index` row per language the site's public records name: the interface's languages (shipped
    and added by communities), the languages organizations steward, and those of public datasets' versions. `code` is
    the ISO 639-3 code where one can be told (corpus.language_pairs.language_code), `aliases` every other spelling
    found (`en`, `en-CA`), `name` the English name where Django knows it, else the community's own name for it, else
    the code; `native_name` the community's name. What the harness resolves codes and names with, nothing more."""
    tags: set[str] = {code for code, _ in settings.LANGUAGES}
    own_names: dict[str, tuple[str, str]] = {}
    for tag, name, writing in InterfaceLanguage.objects.values_list("code", "name", "direction"):
        tags.add(tag)
        own_names.setdefault(language_code(tag), (name, writing))
    for languages in Organization.objects.values_list("languages", flat=True):
        tags.update(tag for tag in (languages or []) if isinstance(tag, str) and tag.strip())
    for source, target in visible_versions(AnonymousUser()).values_list("source_language", "target_language"):
        tags.update(tag for tag in (source, target) if tag)
    spellings: dict[str, set[str]] = {}
    for tag in tags:
        spellings.setdefault(language_code(tag), set()).add(tag)
    rows = []
    for code, found in spellings.items():
        short = ISO_639_3_TO_1.get(code)
        known = LANG_INFO.get(short or "") or LANG_INFO.get(code) or {}
        own = own_names.get(code)
        direction = own[1] if own else ("rtl" if known.get("bidi") else "ltr") if known else None
        rows.append({
            "code": code,
            "name": known.get("name") or (own[0] if own else code),
            "aliases": sorted(({short} if short else set()) | found - {code}),
            "iso639_1": short,
            "native_name": own[0] if own else known.get("name_local"),
            "dir": direction,
        })
    return rows


def language_detail_rows() -> list[dict[str, Any]]:
    """`trading_card_detail` rows: each language's card as far as the site knows it (its index row's identity)."""
    return [{"code": row["code"], "detail": {"code": row["code"], "name": row["name"], "aliases": row["aliases"],
                                             "iso639_1": row["iso639_1"], "nativeName": row["native_name"]}}
            for row in language_rows()]
