"""Run-card ingestion: validation, hash, dataset pinning, secret segments, storage, verification."""

import json

import pytest

from accounts.services import create_api_token
from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard.models import RunCard, RunCardResult

from .cards import body, make_card, seal
from .conftest import SECRET_MARK, corpus_bytes, entry, publish, shared_fixture

pytestmark = pytest.mark.django_db
URL = "/api/v1/run-cards/"


@shared_fixture
def dev_version(steward):
    entries = [entry(n, "development", difficulty=1 + n % 3, domain=("medical", "legal")[n % 2]) for n in range(1, 9)]
    entries += [entry(100, "gold_standard", domain="medical"), entry(101, "held_out")]
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    return version


def dev_entries(version):
    return list(Entry.objects.filter(version=version, segment="development").order_by("position"))


def post(client, card, user=None, raw=None):
    if user is not None:
        client.force_login(user)
    return client.post(URL, raw if raw is not None else body(card), content_type="application/json")


def test_valid_card_is_stored_whole_and_freezes_the_dataset(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version))
    raw = body(card)
    response = post(client, card, speaker, raw)
    assert response.status_code == 201, response.content
    payload = response.json()
    assert payload["hash_verified"] is True and payload["discrepancies"] == []
    assert len(payload["fingerprint"]) == 64
    stored = RunCard.objects.get()
    assert stored.raw.encode("utf-8") == raw
    assert stored.results.count() == 8 and stored.segment == "development"
    assert RunCardResult.objects.filter(entry__version=dev_version).count() == 8
    dev_version.refresh_from_db()
    assert dev_version.is_frozen
    assert client.get(payload["status_url"]).json()["status"] == "ready"


def test_token_authentication_and_anonymous_refusal(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version))
    assert client.post(URL, body(card), content_type="application/json").status_code == 401
    _, key = create_api_token(actor=speaker)
    response = client.post(URL, body(card), content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 201


def test_tampered_card_is_refused(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version))
    card["scores"]["composite"] = 0.99
    response = post(client, card, speaker)
    assert response.status_code == 400
    problems = response.json()["problems"]
    assert problems[0]["path"] == "run_card_hash" and "does not verify" in problems[0]["message"]
    assert RunCard.objects.count() == 0
    dev_version.refresh_from_db()
    assert not dev_version.is_frozen


def test_unsealed_card_is_stored_as_unsealed_and_stays_self_benchmarked(client, dev_version, speaker):
    response = post(client, make_card(dev_version, dev_entries(dev_version), sealed=False), speaker)
    assert response.status_code == 201
    assert response.json()["hash_status"] == "unsealed" and response.json()["hash_verified"] is False
    assert RunCard.objects.get().verification_tier == "Self-benchmarked"


def test_every_validation_error_at_once(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version), sealed=False)
    card["run_id"] = "   "
    card["scores"]["exact_match_rate"] = 1.5
    card["scores"]["chrf_plus_plus"] = 120
    card["temperature"] = "hot"
    card["dataset"]["entry_count"] = 3
    del card["model_slug"]
    card["results"][2]["exact_match"] = "yes"
    response = post(client, card, speaker)
    assert response.status_code == 400
    paths = {p["path"]: p["message"] for p in response.json()["problems"]}
    assert paths["run_id"].startswith("expected a non-empty name of the run")
    assert paths["scores.exact_match_rate"] == "expected a number from 0 to 1, found 1.5"
    assert paths["scores.chrf_plus_plus"] == "expected a number from 0 to 100, found 120"
    assert paths["temperature"] == 'expected a number, found "hot"'
    assert paths["dataset.entry_count"] == "is 3 but results holds 8 entries"
    assert paths["model_slug"] == "required field is missing"
    assert paths["results[2].exact_match"].startswith("expected true, false or null")


@pytest.mark.parametrize("raw, fragment", [
    (b"{not json", "invalid JSON at line 1, column 2"),
    (b"[1, 2]", "expected a JSON object (a run card), found a list"),
    (b"\xff\xfe", "not valid UTF-8"),
])
def test_unreadable_bodies(client, speaker, raw, fragment):
    response = post(client, None, speaker, raw)
    assert response.status_code == 400 and fragment in response.json()["problems"][0]["message"]


def test_unknown_dataset_version_and_sha(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version), sealed=False)
    card["dataset"]["id"] = "nope"
    assert post(client, card, speaker).json()["problems"] == [
        {"path": "dataset.id", "message": "unknown dataset 'nope'"}]
    card["dataset"]["id"] = dev_version.dataset.identifier
    card["dataset"]["version"] = "9.9"
    message = post(client, card).json()["problems"][0]
    assert message["path"] == "dataset.version" and "stored versions: 1.0" in message["message"]
    card["dataset"]["version"] = "1.0"
    card["dataset"]["sha256"] = "0" * 64
    assert post(client, card).json()["problems"][0]["path"] == "dataset.sha256"


def test_unknown_entry_id_is_refused(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version))
    card["results"][0]["entry_id"] = "424242"
    response = post(client, seal(card), speaker)
    assert response.status_code == 400
    assert response.json()["problems"] == [{"path": "results[0].entry_id",
                                            "message": "no entry '424242' in test-en-crk 1.0"}]


def test_integer_entry_ids_match_corpus_ids(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version))
    for result in card["results"]:
        result["entry_id"] = int(result["entry_id"])
    assert post(client, seal(card), speaker).status_code == 201


def test_same_run_id_twice_is_a_conflict(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version))
    assert post(client, card, speaker).status_code == 201
    again = post(client, card)
    assert again.status_code == 409 and again.json()["problems"][0]["path"] == "run_id"
    assert RunCard.objects.count() == 1


def test_secret_segment_cards_are_for_steward_governance_only(client, dev_version, speaker, curator, outsider,
                                                              governance_user):
    secret = list(Entry.objects.filter(version=dev_version, segment="gold_standard"))
    card = make_card(dev_version, secret)
    assert post(client, card, curator).status_code == 403
    assert post(client, card, outsider).status_code == 400, "entries the submitter cannot see are unknown"
    assert post(client, card, governance_user).status_code == 201
    stored = RunCard.objects.get()
    assert stored.is_secret and stored.segment == "gold_standard"


def test_secret_results_are_visible_only_to_steward_governance(client, dev_version, governance_user, curator, speaker):
    secret = list(Entry.objects.filter(version=dev_version, segment="gold_standard"))
    card = make_card(dev_version, secret, predict=lambda e: f"output {SECRET_MARK} for {e.entry_id}")
    public_id = post(client, card, governance_user).json()["id"]
    assert SECRET_MARK in json.dumps(client.get(f"/api/v1/run-cards/{public_id}/results/").json())
    assert SECRET_MARK.encode() in client.get(f"/leaderboard/cards/{public_id}/").content
    for user in (curator, speaker, None):
        client.logout()
        if user:
            client.force_login(user)
        for url in (f"/api/v1/run-cards/{public_id}/results/", f"/leaderboard/cards/{public_id}/",
                    f"/api/v1/run-cards/{public_id}/", "/leaderboard/", "/api/v1/leaderboard/",
                    "/leaderboard/?standard=legacy-composite", "/api/v1/leaderboard/?standard=legacy-composite"):
            response = client.get(url)
            assert SECRET_MARK.encode() not in response.content, (user, url)
    assert client.get("/api/v1/leaderboard/?standard=legacy-composite").json()["count"] == 1, (
        "aggregates of secret cards are public")


def test_large_cards_are_verified_by_a_task_after_202(client, dev_version, speaker, settings, eager_tasks,
                                                      django_capture_on_commit_callbacks):
    settings.RUN_CARD_INLINE_MAX_RESULTS = 3
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post(client, make_card(dev_version, dev_entries(dev_version)), speaker)
    assert response.status_code == 202 and response.json()["status"] == "processing"
    assert len(callbacks) == 1
    status = client.get(response["Location"]).json()
    assert status["status"] == "ready" and status["discrepancies"] == []


def test_disagreeing_aggregates_are_recorded_not_refused(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version), predict=lambda e: e.reference + " x")
    card["scores"]["chrf_plus_plus"] = 99.0
    card["scores"]["exact_matches"] = 7
    response = post(client, seal(card), speaker)
    assert response.status_code == 201
    paths = {d["path"] for d in response.json()["discrepancies"]}
    assert {"scores.chrf_plus_plus", "scores.exact_matches"} <= paths
    page = client.get(f"/leaderboard/cards/{response.json()['id']}/")
    assert b"scores.chrf_plus_plus" in page.content


def test_method_card_and_manifest_with_the_card(client, dev_version, speaker):
    method_card = {"method_id": "crk-coached", "name": "Coached Cree", "class": "coached-llm",
                   "description": "d", "author": "a", "tools_used": [], "open_source": True,
                   "dependency_class": "S", "supported_pairs": ["EN→CRK"]}
    manifest = {"dependencies": [{"id": "gateway-llm", "kind": "model", "license": "proprietary",
                                  "access": "gateway", "source": "https://llm.example", "substitutable": True,
                                  "redistributable": False, "transferable": False}],
                "dependency_class": "S"}
    card = make_card(dev_version, dev_entries(dev_version), method_card=method_card, manifest=manifest)
    response = post(client, card, speaker)
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"path": "method.dependency_class",
         "message": 'declared class "S" but dependency "gateway-llm" (gateway, substitutable) makes it A1'},
        {"path": "method_card.dependency_class",
         "message": 'method card declares dependency class "S" but the method.json dependencies make it A1'},
    ]
    manifest["dependency_class"] = "A1"
    method_card["dependency_class"] = "A1"
    assert post(client, make_card(dev_version, dev_entries(dev_version), method_card=method_card,
                                  manifest=manifest)).status_code == 201
    method_card["class"] = "magic"
    refused = post(client, make_card(dev_version, dev_entries(dev_version), method_card=method_card))
    assert refused.status_code == 400 and "raw-llm" in json.dumps(refused.json())


def test_methods_are_registered_on_their_own(client, speaker):
    assert client.post("/api/v1/methods/", {}, content_type="application/json").status_code == 401
    client.force_login(speaker)
    card = {"method_id": "fst-gated", "name": "FST gated", "class": "pipeline", "dependency_class": "S"}
    manifest = {"dependency_class": "S", "dependencies": []}
    created = client.post("/api/v1/methods/", {"method_card": card, "method": manifest},
                          content_type="application/json")
    assert created.status_code == 201 and created.json()["dependency_class"] == "S"
    manifest["dependencies"] = [{"id": "mirror", "kind": "software", "license": "MIT", "access": "mirrored",
                                 "source": "https://example.org/x", "redistributable": True, "transferable": True}]
    refused = client.post("/api/v1/methods/", {"method_card": card, "method": manifest},
                          content_type="application/json")
    assert refused.status_code == 400
    assert any(p["path"] == "method.dependencies[0].pin" for p in refused.json()["problems"])
    missing = client.post("/api/v1/methods/", {"method": manifest}, content_type="application/json")
    assert missing.status_code == 400 and missing.json()["problems"][0]["path"] == "method_card"


def test_secret_text_outside_results_is_refused(client, dev_version, governance_user):
    secret = list(Entry.objects.filter(version=dev_version, segment="gold_standard"))
    card = make_card(dev_version, secret)
    card["method_config"]["coachingPrompt"] = f"Example: {secret[0].source} means {secret[0].reference}"
    response = post(client, seal(card), governance_user)
    assert response.status_code == 400
    assert response.json()["problems"][0]["path"] == "method_config.coachingPrompt"
    assert SECRET_MARK not in json.dumps(response.json())


@pytest.mark.parametrize(("change", "path", "fragment"), [
    (lambda c: c["totals"].update(cost_per_entry_usd=float("inf")), "", "Infinity is not a JSON number"),
    (lambda c: c["scores"].update(composite=float("nan")), "", "NaN is not a JSON number"),
    (lambda c: c["results"][0].update(latency_s=10**400), "results[0].latency_s", "expected a number"),
    (lambda c: c.update(batch_size=10**30), "batch_size", "expected an integer"),
    (lambda c: c.update(harness_version="9" * 60), "harness_version", "at most 50 characters"),
    (lambda c: c.update(timestamp="2026-11-30T12:00:00"), "timestamp", "with its UTC offset"),
    (lambda c: c.update(timestamp="0001-01-01T00:00:00+01:00"), "timestamp", "between 1970 and 9999"),
    (lambda c: c.update(model_id="nul\u0000byte"), "model_id", "NUL character"),
])
def test_values_that_cannot_be_stored_are_refused_by_path(client, dev_version, speaker, change, path, fragment):
    card = make_card(dev_version, dev_entries(dev_version), sealed=False)
    change(card)
    raw = json.dumps(card, ensure_ascii=False).encode("utf-8")
    response = post(client, None, speaker, raw)
    assert response.status_code == 400, response.content
    assert any(p["path"] == path and fragment in p["message"] for p in response.json()["problems"]), response.json()
    assert RunCard.objects.count() == 0


def test_a_method_id_belongs_to_its_first_submitter(client, dev_version, speaker, outsider):
    card = {"method_id": "acme-mt", "name": "Acme", "class": "pipeline", "dependency_class": "X"}
    manifest = {"dependency_class": "X", "dependencies": [
        {"id": "corpus-dump", "kind": "data", "license": "none", "access": "bundled", "source": "https://x.example/d",
         "redistributable": False, "transferable": False}]}
    client.force_login(speaker)
    assert client.post("/api/v1/methods/", {"method_card": card, "method": manifest},
                       content_type="application/json").status_code == 201
    client.force_login(outsider)
    takeover = client.post("/api/v1/methods/", {"method_card": {**card, "dependency_class": "S", "name": "Mine"}},
                           content_type="application/json")
    assert takeover.status_code == 409
    from leaderboard.models import Method

    method = Method.objects.get()
    assert (method.name, method.dependency_class, method.submitted_by) == ("Acme", "X", speaker)
    client.force_login(speaker)
    client.post("/api/v1/methods/", {"method_card": {**card, "dependency_class": "S"}}, content_type="application/json")
    method.refresh_from_db()
    assert method.dependency_class == "X", "a declared class never overrides the derived one"


def test_null_method_config_is_absent(client, dev_version, speaker):
    card = make_card(dev_version, dev_entries(dev_version), sealed=False)
    card["method_config"] = None
    public_id = post(client, card, speaker).json()["id"]
    assert client.get(f"/api/v1/leaderboard/{public_id}/method-config/").status_code == 404
