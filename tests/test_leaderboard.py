"""The leaderboard: ranking, domain filtering, tiers, badges, verbatim method_config, bounded queries."""

import json

import pytest

from corpus.services import import_corpus, set_dataset_public
from leaderboard.models import RunCard
from leaderboard.services import record_reproduction, submit_run_card

from .cards import body, make_card
from .conftest import corpus_bytes, entries_of, entry, grant_all_consents, published_version, shared_fixture

pytestmark = pytest.mark.django_db


@shared_fixture
def version(steward):
    entries = [entry(n, "development", difficulty=1 + n % 3, domain="medical" if n <= 4 else "legal",
                     provenance="elicited") for n in range(1, 9)]
    return published_version(steward, entries)


def medical_only_good(entry_row):
    """Right on medical entries, wrong elsewhere."""
    return entry_row.reference if entry_row.domain == "medical" else "wrong wrong"


def legal_only_good(entry_row):
    return entry_row.reference if entry_row.domain == "legal" else "wrong"


def submit(version, user, **options) -> RunCard:
    return submit_run_card(body=body(make_card(version, entries_of(version), **options)), actor=user)


# make_card writes legacy-composite cards unless told otherwise; standard/1 is the default ranking.
LEGACY = {"standard": "legacy-composite"}
BOARD = "/leaderboard/?standard=legacy-composite"


def api_rows(client, **params):
    response = client.get("/api/v1/leaderboard/", {**LEGACY, **params})
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_ranked_by_composite_with_every_column(client, version, speaker):
    submit(version, speaker, composite=0.55, model_slug="small")
    submit(version, speaker, composite=0.80, model_slug="large")
    rows = api_rows(client)
    assert [(row["rank"], row["model"]) for row in rows] == [(1, "large-2026"), (2, "small-2026")]
    first = rows[0]
    for column in ("method", "composite", "chrf_plus_plus", "fst_acceptance_rate", "exact_match_rate",
                   "semantic_score", "cost_per_entry_usd", "avg_latency_seconds", "cost_adjusted", "method_class",
                   "quality_tier", "verification_tier", "dependency_class", "date"):
        assert column in first
    assert first["quality_tier"] == "Deployable" and first["quality_tier_provisional"] is True
    assert first["configuration"]["condition"] == "baseline", "without a method card the setup is shown"
    page = client.get(BOARD)
    assert b"automated proxy" in page.content and b"provisional" in page.content


def test_domain_filter_ranks_by_that_domains_entries(client, version, speaker):
    submit(version, speaker, composite=0.72, model_slug="medic", predict=medical_only_good)
    submit(version, speaker, composite=0.71, model_slug="lawyer", predict=legal_only_good)
    overall = [row["model"] for row in api_rows(client)]
    legal = api_rows(client, domain="legal")
    medical = api_rows(client, domain="medical")
    assert overall == ["medic-2026", "lawyer-2026"]
    assert [row["model"] for row in legal] == ["lawyer-2026", "medic-2026"]
    assert [row["model"] for row in medical] == ["medic-2026", "lawyer-2026"]
    assert legal[0]["entries_scored"] == 4 and legal[0]["exact_match_rate"] == 1.0
    assert legal[0]["chrf_plus_plus"] == pytest.approx(100.0)


def test_one_row_per_method_and_fingerprint_with_the_others_reachable(client, version, speaker):
    worse = submit(version, speaker, composite=0.60)
    better = submit(version, speaker, composite=0.65)
    rows = api_rows(client)
    assert len(rows) == 1 and rows[0]["id"] == str(better.public_id) and rows[0]["cards_in_group"] == 2
    page = client.get(f"/leaderboard/cards/{better.public_id}/")
    assert str(worse.public_id).encode() in page.content


def test_standards_are_never_mixed(client, version, speaker):
    submit(version, speaker, composite=0.9, model_slug="legacy")
    submit(version, speaker, model_slug="modern", scoring_standard="standard/1")
    assert [row["model"] for row in api_rows(client)] == ["legacy-2026"]
    modern = api_rows(client, standard="standard/1")
    assert [row["model"] for row in modern] == ["modern-2026"] and modern[0]["quality_tier"] is None
    default = client.get("/api/v1/leaderboard/").json()["results"]
    assert [row["model"] for row in default] == ["modern-2026"], "standard/1 is the default ranking"


def test_cost_adjusted_ranking(client, version, speaker):
    import math

    submit(version, speaker, composite=0.80, model_slug="pricey", cost_per_entry=0.5)
    submit(version, speaker, composite=0.70, model_slug="cheap", cost_per_entry=0.0)
    assert [row["model"] for row in api_rows(client, sort="cost_adjusted")] == ["cheap-2026", "pricey-2026"]
    pricey = next(row for row in api_rows(client) if row["model"] == "pricey-2026")
    assert pricey["cost_adjusted"] == pytest.approx(0.80 / math.log2(1 + 500), abs=1e-4)


def test_dependency_badges_and_class_x_never_listed(client, version, speaker):
    def method(method_id, access, license_id="MIT", redistributable=True, dep_class="S", substitutable=None):
        dependency = {"id": f"{method_id}-dep", "kind": "model", "license": license_id, "access": access,
                      "source": "https://example.org/x", "redistributable": redistributable,
                      "transferable": redistributable}
        if substitutable is not None:
            dependency["substitutable"] = substitutable
        card = {"method_id": method_id, "name": method_id.title(), "class": "pipeline", "dependency_class": dep_class}
        return {"method_card": card, "manifest": {"dependency_class": dep_class, "dependencies": [dependency]}}

    submit(version, speaker, model_slug="a2", **method("external", "external-api", "proprietary", False, "A2", False))
    submit(version, speaker, model_slug="x", **method("closed", "bundled", "none", False, "X"))
    rows = api_rows(client)
    assert [row["method"] for row in rows] == ["External"]
    assert rows[0]["dependency_class"] == "A2" and rows[0]["external_dependency"] is True
    assert b"external dependency" in client.get(BOARD).content


def test_gds_verification_by_a_maintainer_reproduction(client, version, speaker, maintainer):
    original = submit(version, speaker, composite=0.80)
    far = submit(version, maintainer, composite=0.70)
    close = submit(version, maintainer, composite=0.81)
    client.force_login(maintainer)
    url = f"/api/v1/run-cards/{original.public_id}/gds-verification/"
    refused = client.post(url, {"reproduction": str(far.public_id)}, content_type="application/json")
    assert refused.status_code == 400 and "not within ±2%" in json.dumps(refused.json(), ensure_ascii=False)
    accepted = client.post(url, {"reproduction": str(close.public_id)}, content_type="application/json")
    assert accepted.status_code == 200 and accepted.json()["verification_tier"] == "GDS Verified"
    client.force_login(speaker)
    assert client.post(url, {"reproduction": str(close.public_id)}, content_type="application/json").status_code == 403
    page = client.get(f"/leaderboard/cards/{original.public_id}/")
    assert b"GDS Verified" in page.content and str(close.run_id).encode() in page.content


def test_unsealed_cards_cannot_be_gds_verified(version, speaker, maintainer):
    from leaderboard.services import RunCardRejected

    original = submit(version, speaker, composite=0.80, sealed=False)
    reproduction = submit(version, maintainer, composite=0.80)
    with pytest.raises(RunCardRejected, match="verified run_card_hash"):
        record_reproduction(original=original, reproduction=reproduction, actor=maintainer)


def test_method_config_is_served_byte_for_byte(client, version, speaker):
    card = make_card(version, entries_of(version))
    raw = body(card)
    stored = submit_run_card(body=raw, actor=speaker)
    response = client.get(f"/api/v1/leaderboard/{stored.public_id}/method-config/")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    text = raw.decode("utf-8")
    start = text.index('"method_config": ') + len('"method_config": ')
    assert response.content == text[start:text.index("\n  }", start) + 4].encode("utf-8")
    assert json.loads(response.content) == card["method_config"]


def test_rows_of_datasets_withdrawn_from_public_view_disappear(client, version, speaker, governance_user):
    submit(version, speaker)
    assert len(api_rows(client)) == 1
    set_dataset_public(dataset=version.dataset, is_public=False, actor=None)
    assert api_rows(client) == []
    assert RunCard.objects.count() == 1, "kept, not deleted"
    client.force_login(governance_user)
    assert len(api_rows(client)) == 1


def test_the_public_leaderboard_is_cached_and_follows_every_change(client, version, speaker, governance_user,
                                                                    django_assert_max_num_queries):
    """Anonymous visitors (and users without a widening role) share one cached answer per filter, keyed by the
    state stamp that the database changes with every write the listing depends on — a revoked consent, a bulk
    update or plain SQL included — so the next request never shows what changed."""
    from django.db import connection
    from django.utils import timezone

    from corpus.models import ConsentRecord
    from corpus.services import revoke_consent

    card = submit(version, speaker, composite=0.8, model_slug="cached")
    assert [row["model"] for row in api_rows(client)] == ["cached-2026"]
    assert b"cached-2026" in client.get(BOARD).content
    with django_assert_max_num_queries(1):  # the state stamp
        assert [row["model"] for row in api_rows(client)] == ["cached-2026"]
    with django_assert_max_num_queries(1):
        assert b"cached-2026" in client.get(BOARD).content
    client.force_login(speaker)  # a speaker holds no role that widens the listing: the same cached rows
    with django_assert_max_num_queries(4):  # session, user, memberships, stamp
        assert [row["model"] for row in api_rows(client)] == ["cached-2026"]

    RunCard.objects.filter(pk=card.pk).update(community_validated_at=timezone.now())  # no save(), no signal
    assert api_rows(client)[0]["verification_tier"] == "Community Validated"
    with connection.cursor() as cursor:
        cursor.execute("UPDATE leaderboard_runcard SET model_id = 'renamed' WHERE id = %s", [card.pk])
    assert api_rows(client)[0]["model"] == "renamed"
    assert b"renamed" in client.get(BOARD).content

    record = ConsentRecord.objects.get(dataset=version.dataset)
    revoke_consent(actor=governance_user, record=record, reason="The council withdrew evaluation.")
    assert api_rows(client) == []
    assert b"renamed" not in client.get(BOARD).content
    client.force_login(governance_user)  # governance staff see their withdrawn row, never from the shared cache
    assert [row["withdrawn"] for row in api_rows(client)] == [True]


def test_the_api_pages_the_cached_leaderboard(client, version, speaker):
    entries = entries_of(version)
    for index in range(3):
        submit_run_card(body=body(make_card(version, entries, composite=0.5 + index / 10, model_slug=f"p{index}")),
                        actor=speaker)
    first = client.get("/api/v1/leaderboard/", {"page": 1, **LEGACY}).json()
    assert (first["count"], first["next"], first["previous"], len(first["results"])) == (3, None, None, 3)
    assert client.get("/api/v1/leaderboard/", {"page": 9, **LEGACY}).status_code == 404
    assert client.get("/api/v1/leaderboard/", {"page": "x", **LEGACY}).status_code == 404


@pytest.mark.parametrize("params, field", [({"domain": "astrology"}, "domain"), ({"standard": "x"}, "standard"),
                                           ({"sort": "random"}, "sort"), ({"segment": "secret"}, "segment")])
def test_bad_filters_are_named(client, db, params, field):
    response = client.get("/api/v1/leaderboard/", params)
    assert response.status_code == 400 and field in response.json()
    assert client.get("/leaderboard/", params).status_code == 400


@pytest.mark.parametrize("cards", [5, 60])  # 60: more than a page of 50 rows
def test_query_count_does_not_grow_with_cards(client, version, speaker, django_assert_max_num_queries, cards):
    entries = entries_of(version)
    for index in range(cards):
        submit_run_card(
            body=body(make_card(version, entries, composite=0.5 + index / 1000, model_slug=f"m{index}")),
            actor=speaker,
        )
    for url, params in (("/api/v1/leaderboard/", LEGACY), ("/api/v1/leaderboard/", {"domain": "legal", **LEGACY}),
                        ("/leaderboard/", LEGACY), ("/leaderboard/", {}),
                        ("/leaderboard/", {"domain": "medical", "sort": "cost_adjusted", **LEGACY})):
        with django_assert_max_num_queries(12):
            assert client.get(url, params).status_code == 200


def test_domain_filter_on_standard_1_shows_no_composite(client, version, speaker):
    submit(version, speaker, model_slug="modern", scoring_standard="standard/1")
    row = api_rows(client, standard="standard/1", domain="medical")[0]
    assert row["composite"] is None and row["quality_tier"] is None and row["chrf_plus_plus"] is not None


def test_cost_adjusted_follows_the_domain_composite(client, version, speaker):
    card = submit(version, speaker, composite=0.72, model_slug="medic", predict=medical_only_good, cost_per_entry=0.01)
    legal = api_rows(client, domain="legal")[0]
    domain = card.domain_scores.get(domain="legal")
    import math

    assert legal["cost_adjusted"] == pytest.approx(domain.composite / math.log2(1 + 10), abs=1e-4)
    assert legal["cost_adjusted"] != api_rows(client)[0]["cost_adjusted"]


def test_provisional_ends_when_the_method_is_community_validated(client, version, speaker):
    from django.utils import timezone

    method_card = {"method_id": "crk-coached", "name": "Coached", "class": "coached-llm", "dependency_class": "S"}
    manifest = {"dependency_class": "S", "dependencies": []}
    first = submit(version, speaker, composite=0.80, method_card=method_card, manifest=manifest, condition="a")
    submit(version, speaker, composite=0.81, method_card=method_card, manifest=manifest, condition="b")
    assert all(row["quality_tier_provisional"] for row in api_rows(client))
    RunCard.objects.filter(pk=first.pk).update(community_validated_at=timezone.now())
    assert not any(row["quality_tier_provisional"] for row in api_rows(client))


def test_secret_domain_scores_need_enough_entries(steward, governance_user):
    entries = [entry(n, "gold_standard", domain="medical" if n < 6 else "legal") for n in range(1, 8)]
    stored = import_corpus(data=corpus_bytes(entries, id="gold-set"), organization=steward, actor=None).version
    grant_all_consents(stored.dataset)
    card = submit(stored, governance_user)
    assert list(card.domain_scores.values_list("domain", "result_count")) == [("medical", 5)]


def test_rows_say_when_a_card_disagrees_with_its_results(client, version, speaker):
    from .cards import seal

    card = make_card(version, entries_of(version))
    card["scores"]["exact_matches"] = 3
    stored = submit_run_card(body=body(seal(card)), actor=speaker)
    assert api_rows(client)[0]["discrepancy_count"] == len(stored.discrepancies) >= 1
    assert b"disagreement" in client.get(BOARD).content
    page = client.get(f"/leaderboard/cards/{stored.public_id}/")
    assert b"Medical" in page.content, "domains are shown by name"


def test_the_api_serves_its_rendered_answer_from_the_cache_until_the_listing_changes(client, version, speaker,
                                                                                     monkeypatch):
    """The ranking is not even looked at for a second anonymous request of the same address: the rendered JSON
    comes from the cache under the state stamp; a change of the listing is seen on the next request."""
    from leaderboard import api

    submit(version, speaker, composite=0.8, model_slug="rendered")
    first = client.get("/api/v1/leaderboard/", LEGACY)
    ranked = api.LeaderboardView.ranked
    monkeypatch.setattr(api.LeaderboardView, "ranked", lambda self, request: pytest.fail("ranked again"))
    again = client.get("/api/v1/leaderboard/", LEGACY)
    assert again.status_code == 200 and again.content == first.content and again["Content-Type"] == "application/json"
    monkeypatch.setattr(api.LeaderboardView, "ranked", ranked)
    submit(version, speaker, composite=0.9, model_slug="newer")
    assert [row["model"] for row in client.get("/api/v1/leaderboard/", LEGACY).json()["results"]] == [
        "newer-2026", "rendered-2026"]


def test_an_empty_ranking_points_to_the_cards_of_the_other_standard(client, version, speaker):
    submit(version, speaker, composite=0.8, model_slug="legacy-only")
    page = " ".join(client.get("/leaderboard/", {"standard": "standard/1"}).content.decode().split())
    assert "No run card matches yet." in page
    assert "1 run card is ranked by another scoring standard, legacy-composite" in page
    assert 'href="?standard=legacy-composite"' in page
    assert "another scoring standard" not in client.get(BOARD).content.decode()


def test_a_listed_cards_writes_give_the_leaderboard_a_new_state_stamp(version, speaker):
    """On every database, `make run`'s SQLite too, which drops a table's triggers when a migration rebuilds it:
    otherwise a decision on a card left the cached leaderboard as it was (leaderboard/state.py)."""
    from leaderboard.selectors import leaderboard_stamp

    before = leaderboard_stamp()
    card = submit(version, speaker)
    assert card.status == RunCard.Status.READY
    ready = leaderboard_stamp()
    assert ready != before
    RunCard.objects.filter(pk=card.pk).update(status=RunCard.Status.READY)
    assert leaderboard_stamp() != ready


def test_the_public_view_ranks_through_one_compiled_selection(version, speaker, monkeypatch):
    """Whoever shares the public view gets the selection compiled once per connection, whatever the view's version,
    pair, segment or sort, and it ranks exactly as the one built for the reader: a group of several cards (its best
    one, its size), a tie with another group's best, each filter."""
    from django.contrib.auth.models import AnonymousUser

    from leaderboard.selectors import rankings as ranking_selectors
    from leaderboard.selectors.query import LeaderboardQuery

    submit(version, speaker, composite=0.60)
    best = submit(version, speaker, composite=0.65)
    tied = submit(version, speaker, composite=0.65, model_slug="tied")
    alone = submit(version, speaker, composite=0.70, model_slug="alone", cost_per_entry=0.02)
    legacy = "legacy-composite"
    filters = [{}, {"dataset": version.dataset.identifier, "version": version.version}, {"language_pair": "eng>crk"},
               {"language_pair": "eng>fra"}, {"segment": "development"}, {"segment": "diagnostic"},
               {"sort": "cost_adjusted"}, {"dataset": version.dataset.identifier, "version": "9.9"}]
    ranges = {("official", legacy): (0, 50), ("open", legacy): (0, 50), ("open", "standard/1"): (0, 50)}
    built = []
    build = ranking_selectors.selection
    monkeypatch.setattr(ranking_selectors, "selection", lambda *given: built.append(given) or build(*given))

    public = [ranking_selectors.rankings(AnonymousUser(), LeaderboardQuery(standard=legacy, **given), ranges)
              for given in filters]
    assert len(built) <= 1, "compiled once per connection (before this test, maybe)"
    assert public[0][("open", legacy)].rows == [(alone.pk, 1), (best.pk, 2), (tied.pk, 1)]
    assert public[0][("open", legacy)].count == 3 and public[0][("official", legacy)].count == 0
    assert [ranked.count for ranked in (found[("open", legacy)] for found in public)] == [3, 3, 3, 0, 3, 0, 3, 0]

    monkeypatch.setattr(ranking_selectors, "shares_public_view", lambda user: False)
    for given, found in zip(filters, public, strict=True):
        assert ranking_selectors.rankings(AnonymousUser(), LeaderboardQuery(standard=legacy, **given),
                                          ranges) == found, given


def test_a_pages_cards_read_by_the_compiled_query_are_those_built_for_the_reader(version, speaker, monkeypatch):
    """The public view reads a page's cards through one compiled query (a shorter page repeats its first id): each
    row is what the queryset built for the reader gives, a method's Community Validation included, and writing it
    reads nothing more (no deferred field it shows)."""
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from leaderboard.selectors import rankings as ranking_selectors
    from leaderboard.selectors.query import LeaderboardQuery
    from leaderboard.selectors.rows import row_view, tier_bands

    method_card = {"method_id": "crk-coached", "name": "Coached", "class": "coached-llm", "dependency_class": "S"}
    manifest = {"dependency_class": "S", "dependencies": []}
    validated = submit(version, speaker, composite=0.80, method_card=method_card, manifest=manifest, condition="a")
    other = submit(version, speaker, composite=0.81, method_card=method_card, manifest=manifest, condition="b")
    plain = submit(version, speaker, composite=0.70, model_slug="plain")
    RunCard.objects.filter(pk=validated.pk).update(community_validated_at=timezone.now())
    ranked = [(other.pk, 1), (validated.pk, 1), (plain.pk, 3)]
    query = LeaderboardQuery(standard="legacy-composite")
    bands = tier_bands()

    with CaptureQueriesContext(connection) as captured:
        compiled = [row_view(card, rank, bands=bands) for rank, card in enumerate(
            ranking_selectors.ranked_rows(AnonymousUser(), query, ranked), 1)]
    assert len(captured.captured_queries) == 1
    monkeypatch.setattr(ranking_selectors, "shares_public_view", lambda user: False)
    built = [row_view(card, rank, bands=bands) for rank, card in enumerate(
        ranking_selectors.ranked_rows(AnonymousUser(), query, ranked), 1)]
    assert compiled == built
    assert [row["id"] for row in compiled] == [str(card.public_id) for card in (other, validated, plain)]
    assert [row["review_badge"] for row in compiled][:2] == ["validated", "validated"]
    assert [row["cards_in_group"] for row in compiled] == [1, 1, 3]
