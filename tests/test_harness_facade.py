"""What stopped an upstream harness user with only MT_EVAL_SUPABASE_URL (docs/run-cards.md, "Publishing from the
upstream harness"), one test per problem: built-in methods owned by their first publisher, a default publication
that could never be completed, the language tables `mt-eval run` reads, reads with the harness's own headers and
operators, downloads the harness refused, upstream's example corpus, an account's e-mail published, and the install
read's consistency (its fingerprint, pair spelling, unverified rows, and chrF++ and its interval computed as the
harness computes them)."""

import json

import pytest
from django.test import Client

from accounts.models import User
from accounts.services import PublicNameRefused, create_api_token, set_public_name
from corpus.models import DatasetVersion, Entry
from corpus.services import import_corpus
from languages.services import add_interface_language
from leaderboard.models import Method, RunCard
from leaderboard.services import disqualify
from submissions.harness import query, selectors
from submissions.harness.query import QueryError

from .cards import seal
from .conftest import corpus_bytes, entry, publish, published_version, shared_fixture
from .harness_fixtures import card_row, entry_batches, harness_card
from .test_harness_intake import BASE, post, public_entries, publish_like_the_harness

pytestmark = pytest.mark.django_db

# The harness's own public key (mt_eval_harness.auth.SUPABASE_ANON_KEY), sent as apikey and as the Bearer token.
HARNESS_KEY = "sb_publishable_bV6CFNFnzxhQI0wlBx2J0A_5Vm5gFBp"
HARNESS_HEADERS = {"HTTP_APIKEY": HARNESS_KEY, "HTTP_AUTHORIZATION": f"Bearer {HARNESS_KEY}"}


@shared_fixture
def version(steward):
    entries = [entry(n, "development", difficulty=1 + n % 3, domain=("medical", "legal")[n % 2]) for n in range(1, 41)]
    entries += [entry(500, "gold_standard", domain="medical")]
    return published_version(steward, entries)


@shared_fixture
def token(speaker):
    return create_api_token(actor=speaker)[1]


def lexicon_card() -> dict:
    """The method card the harness's built-in lexicon engine embeds in every run it publishes."""
    from mt_eval_harness.methods.lexicon import LexiconMethod

    return LexiconMethod().method_card()


def card_of_method(version, method_card: dict, run_suffix: str, **options) -> tuple[dict, list[dict]]:
    card, rows = harness_card(version, public_entries(version), run_suffix=run_suffix, **options)
    card["method_card"] = method_card
    seal(card)
    return card, rows


def read(client, query_string: str, **sent):
    return client.get(f"{BASE}/run_cards?{query_string}", **(sent or HARNESS_HEADERS))


# ---------------------------------------------------------------------------------------------------------
# 1. Built-in methods and shared method ids are publishable by everyone
# ---------------------------------------------------------------------------------------------------------

def test_a_second_account_publishes_a_built_in_method_another_published_first(client, version, token):
    first, first_rows = card_of_method(version, lexicon_card(), "lex001")
    publish_like_the_harness(client, token, first, first_rows)
    other = create_api_token(actor=User.objects.create_user("second@example.org"))[1]
    changed = {**lexicon_card(), "description": "the same engine, described by another harness version"}
    second, second_rows = card_of_method(version, changed, "lex002", model_slug="lexicon-2")
    row, answers = publish_like_the_harness(client, other, second, second_rows)
    assert answers["row"].status_code == 201, answers["row"].json()
    assert [answer.status_code for answer in answers["entries"]] == [201]
    method = Method.objects.get(method_id="lexicon")
    assert RunCard.objects.filter(method=method).count() == 2
    # The first publisher's card text stays: another's never replaces it.
    assert method.card == lexicon_card() and method.submitted_by.email != "second@example.org"


def test_a_shared_method_card_is_published_by_everyone_and_a_different_one_is_refused(client, version, token):
    shared = {**lexicon_card(), "method_id": "community-rules", "name": "Community rules", "class": "custom-plugin"}
    first, first_rows = card_of_method(version, shared, "own001")
    publish_like_the_harness(client, token, first, first_rows)
    other = create_api_token(actor=User.objects.create_user("second@example.org"))[1]
    same, same_rows = card_of_method(version, shared, "own002", model_slug="community-rules-2")
    assert publish_like_the_harness(client, other, same, same_rows)[1]["row"].status_code == 201
    rewritten = {**shared, "description": "not what its author wrote"}
    hijack, _ = card_of_method(version, rewritten, "own003", model_slug="community-rules-3")
    refused = post(client, "run_cards", card_row(hijack), other)
    assert refused.status_code == 409 and "belongs to another submitter" in refused.json()["details"]
    assert "description" in refused.json()["details"]
    assert Method.objects.get(method_id="community-rules").card == shared


def test_a_method_first_published_anonymously_is_later_published_by_its_signed_in_author(client, version, settings,
                                                                                        token, speaker):
    settings.HARNESS_ANONYMOUS_INTAKE = True
    plugin = {**lexicon_card(), "method_id": "my-rules", "name": "My rules", "class": "custom-plugin"}
    anonymous, _ = card_of_method(version, plugin, "anon01")
    answer = client.post("/supabase/functions/v1/submit-run", json.dumps({"run_card_row": card_row(anonymous)}),
                         content_type="application/json")
    assert answer.status_code == 201
    improved = {**plugin, "description": "written by its author, signed in"}
    signed, signed_rows = card_of_method(version, improved, "sign01", model_slug="my-rules-2")
    _, answers = publish_like_the_harness(client, token, signed, signed_rows)
    assert answers["row"].status_code == 201, answers["row"].json()
    method = Method.objects.get(method_id="my-rules")
    assert method.submitted_by == speaker and method.card == improved


# ---------------------------------------------------------------------------------------------------------
# 2. A default (scores-only) publication can be completed by its account
# ---------------------------------------------------------------------------------------------------------

def test_the_preflight_with_the_accounts_own_token_lets_it_complete_its_unverified_card(client, version, token):
    card, rows = harness_card(version, public_entries(version))
    row = card_row(card)
    assert post(client, "run_cards", row, token).status_code == 201
    preflight = f"id=eq.{row['id']}&select=id,submitter,submitted_at,trust"
    # Read as anyone (the harness's own key), the card is published: "already on the leaderboard".
    assert [r["id"] for r in client.get(f"{BASE}/run_cards?{preflight}", HTTP_APIKEY=HARNESS_KEY).json()] == [row["id"]]
    other = create_api_token(actor=User.objects.create_user("second@example.org"))[1]
    assert len(client.get(f"{BASE}/run_cards?{preflight}", HTTP_APIKEY=other).json()) == 1
    # With the account's own token as its key (MT_EVAL_SUPABASE_ANON_KEY), the card still waits for its rows.
    assert client.get(f"{BASE}/run_cards?{preflight}", HTTP_APIKEY=token).json() == []
    # ... so `mt-eval publish --publish-entries` sends the row again, then the rows: the card is completed.
    _, answers = publish_like_the_harness(client, token, card, rows)
    assert answers["row"].status_code == 200 and {a.status_code for a in answers["entries"]} == {201}
    stored = RunCard.objects.get()
    assert stored.status == "ready" and str(stored.public_id) == row["id"]
    assert [r["trust"] for r in client.get(f"{BASE}/run_cards?{preflight}", HTTP_APIKEY=token).json()] == ["verified"]


# ---------------------------------------------------------------------------------------------------------
# 3. The tables `mt-eval run` reads when it starts, and the queue runner's
# ---------------------------------------------------------------------------------------------------------

def test_the_language_index_and_cards_come_from_the_sites_language_records(client, version, governance_user,
                                                                          steward):
    add_interface_language(actor=governance_user, organization=steward, code="crk", name="nêhiyawêwin")
    index = client.get(f"{BASE}/trading_card_index?select=code,name,aliases,iso639_1&order=code.asc&limit=1000"
                       "&offset=0", **HARNESS_HEADERS)
    assert index.status_code == 200
    rows = {row["code"]: row for row in index.json()}
    assert list(rows) == sorted(rows) and set(rows) >= {"eng", "crk", "fra"}
    assert rows["eng"] == {"code": "eng", "name": "English", "aliases": ["en"], "iso639_1": "en"}
    assert rows["crk"]["name"] == "nêhiyawêwin"
    one = client.get(f"{BASE}/trading_card_index?select=*&code=eq.crk&limit=1", **HARNESS_HEADERS).json()
    assert one == [{"code": "crk", "name": "nêhiyawêwin", "aliases": [], "iso639_1": None,
                    "native_name": "nêhiyawêwin", "dir": "ltr"}]
    detail = client.get(f"{BASE}/trading_card_detail?select=code,detail&code=eq.crk&limit=1", **HARNESS_HEADERS)
    assert detail.json()[0]["detail"]["name"] == "nêhiyawêwin"
    assert client.get(f"{BASE}/trading_card_detail?select=code,detail&code=eq.zzz", **HARNESS_HEADERS).json() == []


def test_the_harness_resolves_languages_through_the_index(client, version, live_language_index):
    """The harness's own loader (language_cards_remote) reads the index and a card as it does at start."""
    rows = live_language_index.fetch_index_rows()
    assert {"code": "eng", "name": "English", "aliases": ["en"], "iso639_1": "en"} in rows
    assert live_language_index.fetch_detail_card("crk")["code"] == "crk"


@pytest.fixture
def live_language_index(client, monkeypatch, tmp_path):
    """mt_eval_harness.language_cards_remote with its HTTP GET answered by this site (through the test client)."""
    from mt_eval_harness import language_cards, language_cards_remote

    monkeypatch.setattr(language_cards, "_REMOTE_INDEX_CACHE", tmp_path / "cards-index.json")
    language_cards.reset_state()

    def get_json(url, *, timeout, retries=2):
        path = url.split("/supabase", 1)[1] if "/supabase" in url else url.split("/rest/v1", 1)[1]
        answer = client.get("/supabase" + path if path.startswith("/rest") else "/supabase/rest/v1" + path,
                            **HARNESS_HEADERS)
        assert answer.status_code == 200, answer.content
        return answer.json()

    monkeypatch.setattr(language_cards_remote, "_get_json", get_json)
    yield language_cards_remote
    language_cards.reset_state()


def test_the_queue_runner_is_answered_an_empty_queue_and_other_tables_a_postgrest_404(client):
    top = client.post(f"{BASE}/rpc/queue_top", json.dumps({"p_rank_mode": "map", "p_limit": 500, "p_offset": 0}),
                      content_type="application/json", **HARNESS_HEADERS)
    assert top.status_code == 200 and top.json() == []
    missing = client.get(f"{BASE}/queue_items?select=*", **HARNESS_HEADERS)
    assert missing.status_code == 404 and missing.json()["code"] == "PGRST205" and missing.json()["hint"]
    function = client.post(f"{BASE}/rpc/unknown_function", "{}", content_type="application/json")
    assert function.status_code == 404 and function.json()["code"] == "PGRST202"


# ---------------------------------------------------------------------------------------------------------
# 4. Reads with the harness's own headers, and the PostgREST operators it uses
# ---------------------------------------------------------------------------------------------------------

@shared_fixture
def published(version, token) -> dict[str, str]:
    """Three cards published as the harness publishes them: verified, scores-only (unverified), and disqualified;
    model slug → id."""
    client = Client()
    ids = {}
    for suffix, slug, predict in (("aaa", "acme/good", None), ("ddd", "acme/cheat", lambda e: e.source)):
        card, rows = harness_card(version, public_entries(version), run_suffix=suffix, model_slug=slug,
                                  predict=predict)
        ids[slug] = publish_like_the_harness(client, token, card, rows)[0]["id"]
    claim, _ = harness_card(version, public_entries(version), run_suffix="bbb", model_slug="acme/claim")
    ids["acme/claim"] = card_row(claim)["id"]
    assert post(client, "run_cards", card_row(claim), token).status_code == 201
    maintainer = User.objects.create_user("maintainer@example.org", is_staff=True)
    disqualify(actor=maintainer, reason="copied the references", run_card=RunCard.objects.get(model_slug="acme/cheat"))
    return ids


@pytest.mark.parametrize("key", [HARNESS_KEY, "sb_publishable_champollion_review"])
def test_reads_with_the_harness_headers_are_anonymous_reads(client, published, key):
    answer = client.get(f"{BASE}/run_cards?select=model_slug", HTTP_APIKEY=key, HTTP_AUTHORIZATION=f"Bearer {key}")
    assert answer.status_code == 200 and len(answer.json()) == 3
    assert client.get(f"{BASE}/run_cards", HTTP_AUTHORIZATION="Bearer not-a-key").status_code == 401


def test_the_queue_runners_coverage_read_leaves_out_disqualified_cards(client, version, published):
    ids = published
    covered = read(client, "select=dataset_id,model_slug,condition&trust=neq.disqualified&limit=1000&offset=0"
                           "&order=id.asc")
    assert covered.status_code == 200
    assert sorted(r["model_slug"] for r in covered.json()) == ["acme/claim", "acme/good"]
    pages = [read(client, f"select=id&trust=neq.disqualified&limit=1&offset={offset}&order=id.asc").json()
             for offset in (0, 1, 2)]
    assert sorted(row["id"] for page in pages for row in page) == sorted([ids["acme/claim"], ids["acme/good"]])
    combo = read(client, f"select=model_slug&dataset_id=eq.{version.dataset.identifier}&condition=eq.method-plugin"
                         "&trust=neq.disqualified&limit=200")
    assert sorted(r["model_slug"] for r in combo.json()) == ["acme/claim", "acme/good"]
    assert [r["trust"] for r in read(client, "select=trust&trust=eq.disqualified").json()] == ["disqualified"]


@pytest.mark.parametrize("filters, expected", [
    ("chrf_plus_plus=gt.90", ["acme/claim", "acme/good"]),
    ("chrf_plus_plus=lte.90", ["acme/cheat"]),
    ("model_slug=in.(acme/good,\"acme/cheat\")", ["acme/cheat", "acme/good"]),
    ("model_slug=not.in.(acme/good,acme/cheat)", ["acme/claim"]),
    ("model_slug=like.*oo*", ["acme/good"]),
    ("model_slug=ilike.ACME/C*", ["acme/cheat", "acme/claim"]),
    ("trust=in.(verified,unverified)", ["acme/claim", "acme/good"]),
    ("unverified=is.true", ["acme/claim"]),
    ("chrf_ci_lower=is.null", ["acme/claim"]),  # its claimed interval does not hold its score
    ("corpus_bleu=is.null&exact_match_rate=gte.0.5", ["acme/claim", "acme/good"]),
    ("submitted_at=gt.2000-01-01T00:00:00+00:00", ["acme/cheat", "acme/claim", "acme/good"]),
    ("language_pair=eq.en-crk&model_slug=neq.acme/good", ["acme/cheat", "acme/claim"]),
    ("run_card=not.is.null&model_slug=like.acme/g*", ["acme/good"]),
])
def test_postgrest_operators(client, published, filters, expected):
    answer = read(client, f"select=model_slug&{filters}")
    assert answer.status_code == 200, answer.json()
    assert sorted(r["model_slug"] for r in answer.json()) == expected


@pytest.mark.parametrize("query_string, code, fragment", [
    ("trust=eq.banana", "22P02", "trust is one of: verified, unverified, disqualified"),
    ("chrf_plus_plus=gt.high", "22P02", "double precision"),
    ("id=eq.not-a-uuid", "22P02", "uuid"),
    ("batch_size=eq.1.5", "22P02", "integer"),
    ("model_slug=between.1", "PGRST100", "operator one of"),
    ("chrf_plus_plus=like.5*", "42883", "text columns only"),
    ("run_card=eq.{}", "42883", "is.null"),
    ("or=(trust.eq.verified)", "PGRST100", "logical trees"),
    ("model_slug=in.(a,%22b)", "PGRST100", "not closed"),
    ("order=run_card.desc", "PGRST100", "expected column.asc|desc"),
    ("select=id,model_slug::text", "PGRST100", "not a column name"),
    ("limit=-1", "PGRST103", "whole number"),
    ("model_slug=eq." + "x" * 5000, "PGRST100", "at most 4,096"),
])
def test_malformed_queries_are_refused_naming_the_parameter_and_what_was_expected(client, version, query_string,
                                                                                  code, fragment):
    answer = read(client, query_string)
    assert answer.status_code == 400 and answer.json()["code"] == code, answer.json()
    assert fragment in answer.json()["message"] + (answer.json()["hint"] or "")


@pytest.mark.parametrize("column", list(selectors.RUN_CARDS.columns))
def test_a_nul_in_a_filter_value_is_a_400_on_every_column(client, version, token, column):
    answer = read(client, f"{column}=eq.a%00b")
    assert answer.status_code == 400 and answer.json()["code"] == "22021"
    assert "NUL" in answer.json()["message"]


def test_queries_are_read_as_postgrest_reads_them():
    table = selectors.RUN_CARDS
    parsed = query.parse({"select": ["id,trust"], "order": ["chrf_plus_plus.desc,id"], "limit": ["5000"],
                          "model_slug": ["in.(\"a,b\",c, d)"], "unverified": ["is.false"]}, table)
    assert parsed.columns == ("id", "trust") and parsed.limit == 1000
    assert parsed.order == [("chrf_plus_plus", True, False), ("id", False, True)]
    assert parsed.filters[0].value == ("a,b", "c", "d") and parsed.filters[1].value == "false"
    rows = [{"model_slug": "c", "chrf_plus_plus": None}, {"model_slug": "a,b", "chrf_plus_plus": 3.0}]
    assert query.apply(rows, query.parse({"model_slug": ["neq.zz"], "order": ["chrf_plus_plus.desc"]}, table)) == [
        rows[0], rows[1]]  # descending: nulls first, as PostgreSQL orders them
    assert query.apply(rows, query.parse({"chrf_plus_plus": ["not.gt.1"]}, table)) == []  # a null never compares
    with pytest.raises(QueryError):
        query.parse({"model_slug": ["eq.a\x00"]}, table)


# ---------------------------------------------------------------------------------------------------------
# 5. The site's downloads load in the harness
# ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", ["corpus format", "bare list", "builder"])
def test_the_public_download_loads_in_the_harness_as_its_version(client, steward, tmp_path, shape,
                                                                  live_language_index):
    entries = [entry(1, "development"), entry(2, "gold_standard"), entry(3, "diagnostic")]
    supplied = {}
    if shape == "corpus format":
        data = corpus_bytes(entries, id="up-demo")
    elif shape == "bare list":
        data = json.dumps([{k: v for k, v in e.items() if k != "id"} for e in entries]).encode()
        supplied = {"dataset_id": "up-demo", "dataset_version": "1.0", "source_language": "en",
                    "target_language": "crk", "created": "2026-05-01", "license": "CC-BY-4.0"}
    else:
        data = json.dumps({"dataset": {"name": "up-demo", "version": "1.0", "description": "a builder's file"},
                           "language_pair": "EN→CRK", "entries": entries}).encode()
        supplied = {"source_language": "en", "target_language": "crk", "created": "2026-05-01",
                    "license": "CC-BY-4.0"}
    version = import_corpus(data=data, organization=steward, actor=None, supplied=supplied).version
    publish(version.dataset)
    download = client.get(f"/datasets/versions/{version.pk}/export.json?public=1")
    path = tmp_path / "downloaded.json"
    path.write_bytes(b"".join(download.streaming_content))
    from mt_eval_harness.config import RunConfig
    from mt_eval_harness.corpus_loader import load_corpus

    config = RunConfig(corpus_path=str(path))
    loaded, meta = load_corpus(config)
    assert [str(e["id"]) for e in loaded] == [str(e.entry_id) for e in version.entries.order_by("position")
                                              if e.segment != "gold_standard"]
    assert (config.dataset_id, meta.get("version"), config.source_code, config.target_code) == (
        "up-demo", "1.0", "eng", "crk")


# ---------------------------------------------------------------------------------------------------------
# 7. An account's e-mail is never published
# ---------------------------------------------------------------------------------------------------------

def test_the_session_answers_a_public_name_and_the_install_read_publishes_it(client, version, speaker, token):
    signed_in = client.post("/supabase/auth/v1/token?grant_type=refresh_token",
                            json.dumps({"refresh_token": token}), content_type="application/json")
    assert speaker.email not in signed_in.content.decode()
    assert signed_in.json()["user"]["user_metadata"]["preferred_username"].startswith("contributor-")
    set_public_name(actor=speaker, name="Dana the Developer")
    user = client.post("/supabase/auth/v1/token?grant_type=refresh_token", json.dumps({"refresh_token": token}),
                       content_type="application/json").json()["user"]
    assert user["user_metadata"] == {"preferred_username": "Dana the Developer", "full_name": "Dana the Developer"}
    # A row published before, its `submitter` an e-mail address: the install read publishes the public name.
    card, rows = harness_card(version, public_entries(version))
    row = card_row(card, submitter=speaker.email)
    for batch in [None, *entry_batches(row["id"], rows)]:
        answer = post(client, "run_cards", row, token) if batch is None else post(client, "run_card_entries", batch,
                                                                                  token)
        assert answer.status_code == 201
    listed = read(client, "select=*")
    assert listed.json()[0]["submitter"] == "Dana the Developer" and speaker.email not in listed.content.decode()


@pytest.mark.parametrize("name, fragment", [
    ("dana@example.org", "not an e-mail"), ("anonymous", "kept for accounts"), ("contributor-0123456789", "kept"),
    ("x" * 61, "at most 60"), ("bad\u200bname", "invisible"), ("\u2067isolated", "invisible"),
    ("over\u202eride", "invisible"),
])
def test_a_public_name_that_would_mislead_is_refused(speaker, name, fragment):
    with pytest.raises(PublicNameRefused) as refused:
        set_public_name(actor=speaker, name=name)
    assert fragment in refused.value.message and refused.value.field == "public_name"


def test_a_public_name_is_one_accounts_alone_and_set_on_my_account(client, speaker):
    set_public_name(actor=User.objects.create_user("first@example.org"), name="Kîsik")
    with pytest.raises(PublicNameRefused):
        set_public_name(actor=speaker, name="kîsik")
    client.force_login(speaker)
    page = client.get("/accounts/profile/")
    assert speaker.public_label in page.content.decode()
    refused = client.post("/accounts/profile/public-name/", {"public_name": "KÎSIK"})
    assert refused.status_code == 400 and "Another account uses" in refused.content.decode()
    saved = client.post("/accounts/profile/public-name/", {"public_name": "  Speaker   of Cree "})
    assert saved.status_code == 302 and User.objects.get(pk=speaker.pk).public_name == "Speaker of Cree"


# ---------------------------------------------------------------------------------------------------------
# 8. The install read is consistent, and scores as the harness scores
# ---------------------------------------------------------------------------------------------------------

def test_the_install_read_is_one_card_whatever_it_selects(client, published):
    everything = {row["model_slug"]: row for row in read(client, "select=*").json()}
    good = everything["acme/good"]
    card = json.loads(RunCard.objects.filter(model_slug="acme/good").values_list("raw", flat=True).get())
    assert good["fingerprint_hash"] == card["fingerprint"]["hash"]  # the card's own, v2
    assert good["language_pair"] == "eng>crk"
    for columns in ("language_pair", "id,language_pair,fingerprint_hash", "language_pair,run_card"):
        for row in read(client, f"select={columns}&model_slug=eq.acme/good").json():
            assert row["language_pair"] == good["language_pair"]
            assert row.get("fingerprint_hash", good["fingerprint_hash"]) == good["fingerprint_hash"]
    assert (good["trust"], good["unverified"]) == ("verified", False)
    claim = everything["acme/claim"]
    assert (claim["trust"], claim["unverified"], claim["verification_tier"]) == ("unverified", True,
                                                                                "Self-benchmarked")
    assert everything["acme/cheat"]["trust"] == "disqualified"
    order = [row["model_slug"] for row in read(client, "select=model_slug&order=chrf_plus_plus.desc").json()]
    assert order == ["acme/good", "acme/claim", "acme/cheat"]


def harness_report_entries(rows: list[dict]) -> list[dict]:
    return [{"expected": r["expected"], "predicted": r["predicted"], "error": r["error"]} for r in rows]


@pytest.mark.slow  # the reference is upstream's own bootstrap: 1,000 resamples of its pure-Python chrF++ (3 s)
def test_a_card_with_errored_entries_is_scored_as_the_harness_scores_it(client, version, token):
    """The harness counts a failed translation as an empty hypothesis in corpus chrF++ and its interval
    (significance.scored_pairs, confidence.bootstrap_ci): a card of it with errors agrees with what is recomputed
    here, and the interval recomputed here for the same outputs is the harness's, to its 4 places."""
    from mt_eval_harness.confidence import bootstrap_ci
    from mt_eval_harness.significance import corpus_chrf

    card, rows = harness_card(version, public_entries(version),
                              predict=lambda e: e.reference if int(e.entry_id) % 4 else e.source)
    for row in rows[::7]:
        row.update(error="HTTP 429 Too Many Requests", predicted="", raw_predicted=None, exact_match=False)
    errors = sum(1 for row in rows if row["error"])
    exact = sum(1 for row in rows if row["exact_match"])
    entries = harness_report_entries(rows)
    card["scores"].update(errors=errors, evaluated=len(rows) - errors, exact_matches=exact,
                          exact_match_rate=exact / (len(rows) - errors), chrf_plus_plus=round(corpus_chrf(entries), 2))
    del card["scores"]["confidence_intervals"]
    seal(card)
    publish_like_the_harness(client, token, card, rows)
    stored = RunCard.objects.get()
    assert stored.status == "ready" and stored.discrepancies == [] and not stored.primary_recomputed
    upstream = bootstrap_ci(entries, corpus_chrf, warn_small_sample=False)
    assert stored.chrf_ci_source == "recomputed"
    assert (stored.chrf_ci_lower, stored.chrf_ci_upper) == (upstream.ci_lower, upstream.ci_upper)
    served = read(client, "select=chrf_ci_lower,chrf_ci_upper,trust").json()
    assert served == [{"chrf_ci_lower": upstream.ci_lower, "chrf_ci_upper": upstream.ci_upper, "trust": "verified"}]


def test_an_inflated_claim_is_shown_recomputed_and_unverified(client, version, token):
    card, rows = harness_card(version, public_entries(version), predict=lambda e: e.source, claimed_chrf=65.0)
    publish_like_the_harness(client, token, card, rows)
    stored = RunCard.objects.get()
    served = read(client, "select=chrf_plus_plus,trust").json()[0]
    assert served == {"chrf_plus_plus": stored.leaderboard_chrf_plus_plus, "trust": "unverified"}
    assert stored.primary_recomputed and served["chrf_plus_plus"] < 65


# ---------------------------------------------------------------------------------------------------------
# 6. Upstream's example corpus imports, its segment names mapped by the curator
# ---------------------------------------------------------------------------------------------------------

UPSTREAM_EXAMPLE = [
    {"id": 1, "source": "hello", "reference": "tânisi", "segment": "basic", "difficulty": 1},
    {"id": 2, "source": "dog", "reference": "atim", "segment": "basic", "difficulty": 1},
    {"id": 3, "source": "I see the dog", "reference": "niwâpamâw atim", "segment": "intermediate", "difficulty": 2},
]
SUPPLIED = {"dataset_id": "upstream-example", "dataset_version": "1.0", "source_language": "en",
            "target_language": "crk", "created": "2026-05-01", "license": "CC-BY-4.0"}


def test_the_api_asks_for_each_unknown_segment_name_then_imports(client, curator, steward):
    client.force_login(curator)
    body = json.dumps(UPSTREAM_EXAMPLE).encode()
    params = "&".join(f"{name}={value}" for name, value in SUPPLIED.items())
    refused = client.post(f"/api/v1/corpus-imports/?org=steward&{params}", body, content_type="application/json")
    assert refused.status_code == 400
    asked = [(p["field"], p["parameter"], p["value"], p["entry_index"]) for p in refused.json()["problems"]]
    assert asked == [("segment", "segment_map", "basic", 0), ("segment", "segment_map", "intermediate", 2)]
    assert "in 2 entries" in refused.json()["problems"][0]["message"]
    wrong = client.post(f"/api/v1/corpus-imports/?org=steward&{params}&segment_map=basic=public", body,
                        content_type="application/json")
    assert wrong.status_code == 400 and any(p["field"] == "segment_map" and "public" in p["message"]
                                            for p in wrong.json()["problems"])
    assert not DatasetVersion.objects.exists()
    imported = client.post(f"/api/v1/corpus-imports/?org=steward&{params}&segment_map=basic=development"
                           "&segment_map=intermediate=held_out", body, content_type="application/json")
    assert imported.status_code == 201, imported.json()
    segments = dict(Entry.objects.values_list("entry_id", "segment"))
    assert segments == {"1": "development", "2": "development", "3": "held_out"}
    assert json.loads(Entry.objects.get(entry_id="3").document)["segment"] == "held_out"


def test_the_import_page_asks_the_curator_to_map_each_unknown_segment(client, curator, steward):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(curator)

    def upload(**extra):
        data = {"organization": "steward", "file": SimpleUploadedFile("example.json",
                                                                      json.dumps(UPSTREAM_EXAMPLE).encode()),
                **SUPPLIED, **extra}
        return client.post("/datasets/import/", data)

    asked = upload()
    assert asked.status_code == 400
    form = asked.context["form"]
    assert form.segment_names == ["basic", "intermediate"]
    page = asked.content.decode()
    assert "Segments this file names" in page and 'name="segment_as_0"' in page and 'value="basic"' in page
    choices = page.split('name="segment_as_0"')[1].split("</select>")[0]
    assert 'value="" selected' in choices and choices.count("selected") == 1  # nothing guessed
    unchosen = upload(segment_name_0="basic", segment_name_1="intermediate", segment_as_0="development")
    assert unchosen.status_code == 400 and not DatasetVersion.objects.exists()
    done = upload(segment_name_0="basic", segment_name_1="intermediate", segment_as_0="development",
                  segment_as_1="diagnostic")
    assert done.status_code == 302
    assert sorted(Entry.objects.values_list("segment", flat=True)) == ["development", "development", "diagnostic"]


def test_a_raw_json_import_as_docs_api_shows_it_works_in_a_browser_session_too(curator, steward):
    """DRF read the body as a file upload when the session's CSRF check looked at request.POST: "Missing filename"."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(curator)
    client.get("/accounts/profile/")
    csrf = client.cookies["csrftoken"].value
    answer = client.post("/api/v1/corpus-imports/?org=steward", corpus_bytes([entry(1), entry(2)]),
                         content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert answer.status_code == 201, answer.content
    token = create_api_token(actor=curator, scope="secret")[1]
    by_token = Client().post("/api/v1/corpus-imports/?org=steward", corpus_bytes([entry(1)], version="2.0"),
                             content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}")
    assert by_token.status_code == 201, by_token.content
