"""The upstream harness publishes and installs here by changing one URL (docs/run-cards.md, "Publishing from the
upstream harness"): its four publish calls, its anonymous lane, its headless sign-in and its install read, with
PostgREST's errors."""

import json
import uuid
from typing import Any

import pytest

from accounts.models import TokenScope, User
from accounts.services import create_api_token
from corpus.models import Entry
from leaderboard.models import RunCard, RunCardResult
from submissions.models import HarnessIntake, HarnessIntakeEntry

from .conftest import entry, published_version
from .harness_fixtures import card_row, entry_batches, harness_card

pytestmark = pytest.mark.django_db
BASE = "/supabase/rest/v1"


@pytest.fixture
def version(steward):
    entries = [entry(n, "development", difficulty=1 + n % 5, domain=("medical", "legal")[n % 2])
               for n in range(1, 121)]
    entries += [entry(500, "gold_standard", domain="medical")]
    return published_version(steward, entries)


def public_entries(version):
    return list(Entry.objects.filter(version=version, segment="development").order_by("position"))


@pytest.fixture
def token(speaker):
    return create_api_token(actor=speaker)[1]


def headers(key=None, prefer=None, apikey="sb_publishable_upstream-site-key"):
    sent = {"HTTP_APIKEY": apikey}
    if key is not None:
        sent["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    if prefer:
        sent["HTTP_PREFER"] = prefer
    return sent


def post(client, path, data, key=None, prefer=None):
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return client.post(f"{BASE}/{path}", raw, content_type="application/json", **headers(key, prefer))


def publish_like_the_harness(client, key, card, rows, repeat_batch=None):
    """The four calls of `mt-eval publish`, in order; returns the answers."""
    row = card_row(card)
    answers = {"preflight": client.get(f"{BASE}/run_cards?id=eq.{row['id']}&select=id,submitter,submitted_at,trust",
                                       **headers())}
    answers["row"] = post(client, "run_cards", row, key, "resolution=merge-duplicates,return=representation")
    answers["datasets"] = post(client, "datasets", {"id": card["dataset"]["id"], "name": card["dataset"]["id"],
                                                    "version": card["dataset"]["version"], "source_language": "en",
                                                    "target_language": "crk", "language_pair": "eng>crk"},
                               key, "resolution=merge-duplicates")
    batches = entry_batches(row["id"], rows)
    if repeat_batch is not None:
        batches.insert(repeat_batch + 1, batches[repeat_batch])
    answers["entries"] = [post(client, "run_card_entries", batch, key, "resolution=ignore-duplicates")
                          for batch in batches]
    return row, answers


def test_the_four_publish_calls_in_order_make_one_verified_card(client, version, token):
    card, rows = harness_card(version, public_entries(version))
    row, answers = publish_like_the_harness(client, token, card, rows, repeat_batch=1)
    assert answers["preflight"].status_code == 200 and answers["preflight"].json() == []
    assert answers["row"].status_code == 201
    assert answers["row"].json()[0]["id"] == row["id"] and answers["row"].json()[0]["state"] == "awaiting"
    assert answers["datasets"].status_code == 201
    assert len(answers["entries"]) == 4  # 120 rows in 3 batches of up to 50, the second sent twice
    assert [a.status_code for a in answers["entries"]] == [201] * 4
    stored = RunCard.objects.get()
    assert str(stored.public_id) == row["id"] and stored.run_id == card["run_id"]
    assert stored.status == "ready" and stored.hash_status == "verified" and stored.discrepancies == []
    assert stored.result_count == 120 and RunCardResult.objects.filter(run_card=stored).count() == 120
    assert stored.scoring_standard == "standard/1" and stored.system_prompt_sha256 == ""
    # Rows are stored as sent (a perfect sentence's BLEU a hair over 100 included), one per entry.
    first = RunCardResult.objects.filter(run_card=stored).order_by("position").first()
    assert first.data["bleu_score"] == 100.00000000000004 and first.data["difficulty"] == "2"
    intake = HarnessIntake.objects.get()
    assert intake.state == "accepted" and intake.run_card == stored and intake.entries.count() == 120
    assert answers["entries"][-1]["X-Run-Cards-Accepted"] == row["id"]

    # The harness's pre-flight now finds it, in its own columns.
    again = client.get(f"{BASE}/run_cards?id=eq.{row['id']}&select=id,submitter,submitted_at,trust", **headers())
    assert again.status_code == 200
    assert list(again.json()[0]) == ["id", "submitter", "submitted_at", "trust"]
    assert again.json()[0]["trust"] == "verified"  # scored here against the stored corpus


def test_publishing_again_is_answered_as_stored(client, version, token):
    card, rows = harness_card(version, public_entries(version))
    row, _ = publish_like_the_harness(client, token, card, rows)
    again = post(client, "run_cards", row, token, "resolution=merge-duplicates,return=representation")
    assert again.status_code == 200 and again.json()[0]["state"] == "accepted"
    batch = post(client, "run_card_entries", entry_batches(row["id"], rows)[0], token, "resolution=ignore-duplicates")
    assert batch.status_code == 201
    changed = {**row, "run_card": {**card, "model_slug": "other"}}
    conflict = post(client, "run_cards", changed, token, "resolution=merge-duplicates,return=representation")
    assert conflict.status_code == 409
    assert set(conflict.json()) >= {"code", "message", "details", "hint"} and conflict.json()["code"] == "23505"
    assert RunCard.objects.count() == 1


def test_install_read_serves_method_config_byte_for_byte_and_reads_both_pair_spellings(client, version, token):
    card, rows = harness_card(version, public_entries(version))
    row, _ = publish_like_the_harness(client, token, card, rows)
    worse, worse_rows = harness_card(version, public_entries(version), model_slug="acme/mt-tiny",
                                     predict=lambda e: e.source, run_suffix="d4e5f6")
    publish_like_the_harness(client, token, worse, worse_rows)
    answer = client.get(f"{BASE}/run_cards?select=*&order=chrf_plus_plus.desc.nullslast", **headers())
    assert answer.status_code == 200
    listed = answer.json()
    assert [r["model_slug"] for r in listed] == ["acme/mt-small", "acme/mt-tiny"]
    assert listed[0]["language_pair"] == "eng>crk" and listed[0]["run_card"]["method_config"] == card["method_config"]
    assert "results" not in listed[0]["run_card"] and listed[0]["run_card"]["concurrency"] == 4
    # Byte for byte: the text of method_config in the answer is the text posted.
    posted = json.dumps(card["method_config"])
    assert posted in answer.content.decode()
    for spelling in ("eng>crk", "EN→CRK", "en-crk"):
        filtered = client.get(f"{BASE}/run_cards", {"select": "id,language_pair", "language_pair": f"eq.{spelling}"},
                              **headers())
        assert len(filtered.json()) == 2, spelling
    assert client.get(f"{BASE}/run_cards", {"language_pair": "eq.fra>crk"}, **headers()).json() == []
    one = client.get(f"{BASE}/run_cards", {"id": f"eq.{row['id']}", "select": "id,model_slug"}, **headers())
    assert one.json() == [{"id": row["id"], "model_slug": "acme/mt-small"}]
    ascending = client.get(f"{BASE}/run_cards", {"select": "model_slug", "order": "chrf_plus_plus.asc"}, **headers())
    assert [r["model_slug"] for r in ascending.json()] == ["acme/mt-tiny", "acme/mt-small"]


def test_install_read_refuses_unknown_columns_and_operators_the_postgrest_way(client, version):
    unknown = client.get(f"{BASE}/run_cards?select=id,secret_column", **headers())
    assert unknown.status_code == 400 and unknown.json()["code"] == "42703"
    assert "secret_column" in unknown.json()["message"]
    operator = client.get(f"{BASE}/run_cards?chrf_plus_plus=cs.50", **headers())
    assert operator.status_code == 400 and operator.json()["hint"] == "chrf_plus_plus=eq.<value>"
    order = client.get(f"{BASE}/run_cards?order=chrf_plus_plus.sideways", **headers())
    assert order.status_code == 400 and order.json()["code"] == "PGRST100"


def test_a_legacy_card_with_a_v1_fingerprint_is_published_the_same_way(client, version, token):
    card, rows = harness_card(version, public_entries(version)[:30], standard=False)
    card["dataset"]["entry_count"] = 30
    from .cards import seal
    seal(card)
    row, answers = publish_like_the_harness(client, token, card, rows)
    assert [a.status_code for a in answers["entries"]] == [201]
    stored = RunCard.objects.get()
    assert stored.scoring_standard == "legacy-composite" and stored.composite == 0.71
    assert stored.discrepancies == []


def test_a_card_whose_rows_do_not_verify_is_refused_and_can_be_published_again(client, version, token):
    card, rows = harness_card(version, public_entries(version)[:50])
    card["dataset"]["entry_count"] = 50
    card["scores"]["total"] = 50
    from .cards import seal
    seal(card)
    rows[7]["entry_id"] = "99999"
    row, answers = publish_like_the_harness(client, token, card, rows)
    refusal = answers["entries"][-1]
    assert refusal.status_code == 400 and refusal.json()["code"] == "23514"
    assert "entries[7].entry_id" in refusal.json()["details"] and "99999" in refusal.json()["details"]
    assert HarnessIntake.objects.get().state == "refused"
    # The card stays as it was published, without rows: listed, unverified.
    stored = RunCard.objects.get()
    assert stored.status == "unverified" and stored.result_count == 0
    assert client.get(f"{BASE}/run_cards?id=eq.{row['id']}&select=id", **headers()).json() == [{"id": row["id"]}]
    rows[7]["entry_id"] = str(public_entries(version)[7].entry_id)
    _, answers = publish_like_the_harness(client, token, card, rows)
    assert answers["row"].status_code == 200 and answers["entries"][-1].status_code == 201
    stored = RunCard.objects.get()
    assert stored.status == "ready" and stored.result_count == 50 and str(stored.public_id) == row["id"]


def test_a_wrong_card_is_refused_at_its_row_with_every_problem(client, version, token):
    card, rows = harness_card(version, public_entries(version))
    card["dataset"]["sha256"] = "0" * 64
    card["scores"]["chrf_plus_plus"] = 100.5
    row = card_row(card)
    answer = post(client, "run_cards", row, token, "resolution=merge-duplicates,return=representation")
    assert answer.status_code == 400
    paths = {p["path"] for p in answer.json()["problems"]}
    assert {"scores.chrf_plus_plus", "run_card_hash"} <= paths or "scores.chrf_plus_plus" in paths
    assert "nothing was stored" in answer.json()["message"]
    assert HarnessIntake.objects.count() == 0


@pytest.mark.parametrize("raw, code, fragment", [
    (b"{not json", "PGRST102", "line 1, column 2"),
    (b'{"run_card": {}}', "23502", "id is required"),
    (b'{"id": "not-a-uuid", "run_card": {}}', "22P02", "must be a UUID"),
    (b'{"id": "6f1d3c52-8a0e-4c1b-9d57-0b5a2f4e7c11"}', "23502", "run_card is required"),
    (b'[{"id": 1}, {"id": 2}]', "22P02", "expected one row"),
])
def test_malformed_rows_name_what_is_wrong(client, token, raw, code, fragment):
    answer = post(client, "run_cards", raw, token)
    assert answer.status_code == 400 and answer.json()["code"] == code and fragment in answer.json()["message"]
    assert HarnessIntake.objects.count() == 0


def test_entry_rows_are_checked_row_by_row_and_need_their_card(client, version, token):
    card, rows = harness_card(version, public_entries(version))
    row = card_row(card)
    post(client, "run_cards", row, token)
    bad = [{"run_card_id": row["id"], "entry_id": ""}, {"run_card_id": "x", "entry_id": "1"}, "text"]
    answer = post(client, "run_card_entries", bad, token)
    assert answer.status_code == 400
    assert "row 0: entry_id" in answer.json()["details"] and "row 1: run_card_id" in answer.json()["details"]
    assert "row 2: expected an object" in answer.json()["details"]
    orphan = post(client, "run_card_entries", [{"run_card_id": str(uuid.uuid4()), "entry_id": "1"}], token)
    assert orphan.status_code == 409 and orphan.json()["code"] == "23503"
    assert HarnessIntakeEntry.objects.count() == 0


def test_another_accounts_card_cannot_be_fed_or_replaced(client, version, token):
    card, rows = harness_card(version, public_entries(version))
    row = card_row(card)
    post(client, "run_cards", row, token)
    other = create_api_token(actor=User.objects.create_user("another-developer@example.org"))[1]
    assert post(client, "run_card_entries", entry_batches(row["id"], rows)[0], other).status_code == 409
    assert post(client, "run_cards", row, other).status_code == 409
    assert HarnessIntakeEntry.objects.count() == 0


def test_publishing_needs_a_publish_token(client, version, speaker):
    card, _ = harness_card(version, public_entries(version))
    missing = post(client, "run_cards", card_row(card))
    assert missing.status_code == 401 and missing.json()["code"] == "PGRST301" and missing.json()["hint"]
    wrong = post(client, "run_cards", card_row(card), "not-a-token")
    assert wrong.status_code == 401
    read_only = create_api_token(actor=speaker, scope=TokenScope.READ)[1]
    assert post(client, "run_cards", card_row(card), read_only).status_code == 403
    # A token in `apikey` alone (MT_EVAL_SUPABASE_ANON_KEY set to it) is taken too.
    key = create_api_token(actor=speaker)[1]
    answer = client.post(f"{BASE}/run_cards", json.dumps(card_row(card)), content_type="application/json",
                         HTTP_APIKEY=key, HTTP_AUTHORIZATION="Bearer None")
    assert answer.status_code == 201


def test_headless_sign_in_answers_the_token_as_its_own_session(client, speaker, token):
    answer = client.post("/supabase/auth/v1/token?grant_type=refresh_token", json.dumps({"refresh_token": token}),
                         content_type="application/json", HTTP_APIKEY="site-key")
    assert answer.status_code == 200
    session = answer.json()
    assert session["access_token"] == token and "email" not in session["user"]
    assert session["user"]["user_metadata"]["preferred_username"] == speaker.public_label
    assert 0 < session["expires_in"] <= 3600
    bad = client.post("/supabase/auth/v1/token?grant_type=refresh_token", json.dumps({"refresh_token": "nope"}),
                      content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_grant"
    other = client.post("/supabase/auth/v1/token?grant_type=pkce", "{}", content_type="application/json")
    assert other.status_code == 400 and other.json()["error"] == "unsupported_grant_type"


def test_datasets_rows_are_acknowledged_only_for_datasets_stored_here(client, version, token):
    known = post(client, "datasets", {"id": version.dataset.identifier, "version": "1.0"}, token)
    assert known.status_code == 201
    unknown = post(client, "datasets", {"id": "someone-elses-corpus"}, token)
    assert unknown.status_code == 403 and "curators" in unknown.json()["message"]


def test_the_anonymous_lane_is_closed_by_default(client, version):
    card, rows = harness_card(version, public_entries(version))
    answer = client.post("/supabase/functions/v1/submit-run", json.dumps({"run_card_row": card_row(card),
                                                                          "entries": rows}),
                         content_type="application/json")
    assert answer.status_code == 404 and "not enabled" in answer.json()["error"]
    assert RunCard.objects.count() == 0


def test_the_anonymous_lane_when_open_accepts_public_cards_and_is_limited(client, version, settings):
    settings.HARNESS_ANONYMOUS_INTAKE = True
    settings.HARNESS_RATES = {**settings.HARNESS_RATES, "anonymous": "2/hour"}
    card, rows = harness_card(version, public_entries(version))
    payload = json.dumps({"run_card_row": card_row(card), "entries": rows})
    first = client.post("/supabase/functions/v1/submit-run", payload, content_type="application/json")
    assert first.status_code == 201 and first.json()["ok"] is True and first.json()["entries_published"] == 120
    stored = RunCard.objects.get()
    assert stored.status == "ready" and stored.submitted_by.email.startswith("anonymous")
    second = client.post("/supabase/functions/v1/submit-run", payload, content_type="application/json")
    assert second.status_code == 200 and second.json()["already_published"] is True
    third = client.post("/supabase/functions/v1/submit-run", payload, content_type="application/json")
    assert third.status_code == 429 and third.json()["retry_after_seconds"] > 0
    listed = client.get(f"{BASE}/run_cards?select=id,submitter", **headers()).json()
    assert listed == [{"id": str(stored.public_id), "submitter": "anonymous"}]


def test_the_api_takes_a_card_with_its_entries_beside_it(client, version, speaker):
    card, rows = harness_card(version, public_entries(version))
    key = create_api_token(actor=speaker)[1]
    answer = client.post("/api/v1/run-cards/", json.dumps({"run_card": card, "entries": rows}),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["run_id"] == card["run_id"] and answer.json()["hash_status"] == "verified"
    assert answer.json()["discrepancies"] == []
    missing = client.post("/api/v1/run-cards/", json.dumps({"run_card": {**card, "run_id": "run_x"},
                                                             "entries": "rows"}),
                          content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert missing.status_code == 400 and missing.json()["problems"][0]["path"] == "entries"


def test_a_secret_entry_cannot_be_published_through_the_harness_by_a_developer(client, version, token):
    secret = list(Entry.objects.filter(version=version, segment="gold_standard"))
    card, rows = harness_card(version, public_entries(version)[:9] + secret)
    card["dataset"]["entry_count"] = 10
    from .cards import seal
    seal(card)
    _, answers = publish_like_the_harness(client, token, card, rows)
    refusal = answers["entries"][-1]
    assert refusal.status_code == 400 and "entries[9].entry_id" in refusal.json()["details"]
    assert RunCard.objects.get().status == "unverified" and not RunCardResult.objects.exists()


def test_a_large_harness_card_is_verified_by_the_task_from_its_stored_rows(client, version, token, settings,
                                                                          eager_tasks,
                                                                          django_capture_on_commit_callbacks):
    settings.RUN_CARD_INLINE_MAX_RESULTS = 10
    card, rows = harness_card(version, public_entries(version), claimed_chrf=90.0)
    with django_capture_on_commit_callbacks(execute=True):
        row, answers = publish_like_the_harness(client, token, card, rows)
    assert [a.status_code for a in answers["entries"]] == [201] * 3
    stored = RunCard.objects.get()
    assert stored.status == "ready" and stored.result_count == 120
    # The claim disagrees with what the rows give: found by the task, from the rows as stored.
    assert [d["path"] for d in stored.discrepancies] == ["scores.chrf_plus_plus"]


def test_a_scores_only_publication_is_listed_unverified_until_its_rows_come(client, version, token):
    """The harness publishes scores only when a corpus may not be redistributed: the card is checked as far as it
    can be, listed with its own scores and marked; its rows, if they come later, make it a verified card."""
    card, rows = harness_card(version, public_entries(version))
    row = card_row(card)
    answer = post(client, "run_cards", row, token, "resolution=merge-duplicates,return=representation")
    assert answer.status_code == 201 and answer.json()[0]["run_card_url"] == f"/leaderboard/cards/{row['id']}/"
    stored = RunCard.objects.get()
    assert stored.status == "unverified" and str(stored.public_id) == row["id"] and stored.result_count == 0
    assert stored.hash_status == "verified" and stored.discrepancies == []
    assert stored.leaderboard_chrf_plus_plus == card["scores"]["chrf_plus_plus"]
    listed = client.get(f"{BASE}/run_cards?select=id,trust,chrf_plus_plus", **headers()).json()
    assert listed == [{"id": row["id"], "trust": "unverified", "chrf_plus_plus": card["scores"]["chrf_plus_plus"]}]
    page = client.get("/leaderboard/", {"standard": "standard/1"})
    assert b"unverified: no per-entry rows" in page.content and b"acme/mt-small" in page.content
    api = client.get("/api/v1/leaderboard/", {"standard": "standard/1"}).json()["results"]
    assert [(r["id"], r["unverified"]) for r in api] == [(row["id"], True)]
    detail = client.get(f"/leaderboard/cards/{row['id']}/")
    assert b"published without its per-entry rows" in detail.content and b"no system prompt" in detail.content

    for batch in entry_batches(row["id"], rows):
        assert post(client, "run_card_entries", batch, token).status_code == 201
    stored = RunCard.objects.get()
    assert stored.status == "ready" and str(stored.public_id) == row["id"] and stored.result_count == 120
    api = client.get("/api/v1/leaderboard/", {"standard": "standard/1"}).json()["results"]
    assert [(r["id"], r["unverified"]) for r in api] == [(row["id"], False)]
    assert b"unverified: no per-entry rows" not in client.get("/leaderboard/", {"standard": "standard/1"}).content


def test_the_install_read_never_serves_a_hash_kept_from_the_public(client, version, governance_user):
    """A steward's card pinning the real hash of a version holding secret entries: its seal, fingerprint object
    and every member that could carry that hash stay home; method_config is still served."""
    key = create_api_token(actor=governance_user, scope="secret")[1]
    assert version.sha256 != version.public_sha256
    card, rows = harness_card(version, public_entries(version)[:20], sha256=version.sha256)
    card["dataset"]["entry_count"] = 20
    card["provenance"] = {"corpus_sha256": version.sha256}
    from .cards import seal
    seal(card)
    _, answers = publish_like_the_harness(client, key, card, rows)
    assert answers["entries"][-1].status_code == 201
    answer = client.get(f"{BASE}/run_cards?select=*", **headers())
    assert answer.status_code == 200 and len(answer.json()) == 1
    assert version.sha256 not in answer.content.decode()
    served = answer.json()[0]["run_card"]
    assert served["method_config"] == card["method_config"] and served["dataset"]["sha256"] == version.public_sha256
    assert "run_card_hash" not in served and "provenance" not in served


def test_the_install_read_shows_the_score_the_leaderboard_shows(client, version, token):
    card, rows = harness_card(version, public_entries(version), predict=lambda e: e.source, claimed_chrf=99.0)
    publish_like_the_harness(client, token, card, rows)
    listed = client.get(f"{BASE}/run_cards?select=chrf_plus_plus", **headers()).json()
    stored = RunCard.objects.get()
    assert stored.leaderboard_chrf_plus_plus < 99 and listed == [{"chrf_plus_plus": stored.leaderboard_chrf_plus_plus}]


def test_anonymous_publications_can_neither_be_replaced_nor_fed_by_others(client, version, settings):
    settings.HARNESS_ANONYMOUS_INTAKE = True
    card, rows = harness_card(version, public_entries(version))
    row = card_row(card)
    first = client.post("/supabase/functions/v1/submit-run", json.dumps({"run_card_row": row}),
                        content_type="application/json")
    assert first.status_code == 201 and RunCard.objects.get().status == "unverified"
    forged = {**row, "run_card": {**card, "model_slug": "evil/slug"}}
    replaced = client.post("/supabase/functions/v1/submit-run", json.dumps({"run_card_row": forged}),
                           content_type="application/json")
    assert replaced.status_code == 409 and RunCard.objects.get().model_slug == "acme/mt-small"
    junk = [{**r, "predicted": "junk"} for r in rows]
    fed = client.post("/supabase/functions/v1/submit-run", json.dumps({"run_card_row": row, "entries": junk}),
                      content_type="application/json")
    assert fed.status_code == 200 and fed.json()["entries_published"] == 0
    assert RunCard.objects.get().status == "unverified" and not HarnessIntakeEntry.objects.exists()


@pytest.mark.parametrize("change, fragment", [
    (lambda row, card: row.update(submitter="nul\x00here"), "submitter"),
    (lambda row, card: row.update(affirmation="\ud800"), "affirmation"),
    (lambda row, card: card["dataset"].update(entry_count=10**12), "entry_count"),
])
def test_hostile_rows_are_refused_with_a_reason(client, version, token, change, fragment):
    card, _ = harness_card(version, public_entries(version))
    row = card_row(card)
    change(row, row["run_card"])
    from .cards import seal
    seal(row["run_card"])
    answer = post(client, "run_cards", json.dumps(row, ensure_ascii=True).encode(), token)
    assert answer.status_code == 400 and fragment in json.dumps(answer.json())
    assert not HarnessIntake.objects.exists() and not RunCard.objects.exists()


def test_hostile_entry_rows_and_queries_are_refused_with_a_reason(client, version, token):
    card, rows = harness_card(version, public_entries(version))
    row = card_row(card)
    post(client, "run_cards", row, token)
    bad = post(client, "run_card_entries", [{"run_card_id": row["id"], "entry_id": "1", "predicted": "a\x00b"},
                                            {"run_card_id": row["id"], "entry_id": "x\x00"}], token)
    assert bad.status_code == 400 and "row 0: predicted" in bad.json()["details"]
    assert "row 1: entry_id" in bad.json()["details"] and not HarnessIntakeEntry.objects.exists()
    assert client.get(f"{BASE}/run_cards?limit=²", **headers()).status_code == 400


def test_an_invalid_bearer_token_is_refused_not_replaced_by_the_apikey(client, version, token):
    card, _ = harness_card(version, public_entries(version))
    answer = client.post(f"{BASE}/run_cards", json.dumps(card_row(card)), content_type="application/json",
                         HTTP_AUTHORIZATION="Bearer revoked-or-made-up", HTTP_APIKEY=token)
    assert answer.status_code == 401 and not RunCard.objects.exists()
    assert client.get(f"{BASE}/run_cards", HTTP_AUTHORIZATION="Bearer made-up").status_code == 401


def test_rows_sent_again_are_not_counted_and_refused_rows_start_over(client, version, token):
    card, rows = harness_card(version, public_entries(version)[:50])
    card["dataset"]["entry_count"] = card["scores"]["total"] = 50
    from .cards import seal
    seal(card)
    row = card_row(card)
    post(client, "run_cards", row, token)
    first = entry_batches(row["id"], rows, size=20)[0]
    assert post(client, "run_card_entries", first, token)["X-Entries-Stored"] == "20"
    assert post(client, "run_card_entries", first, token)["X-Entries-Stored"] == "0"
    wrong = [dict(r) for r in rows]
    wrong[30]["entry_id"] = "99999"
    refusal = post(client, "run_card_entries", entry_batches(row["id"], wrong[20:])[0], token)
    assert refusal.status_code == 400 and "discarded" in refusal.json()["message"]
    assert not HarnessIntakeEntry.objects.exists() and RunCard.objects.get().status == "unverified"
    for batch in entry_batches(row["id"], rows):
        assert post(client, "run_card_entries", batch, token).status_code == 201
    assert RunCard.objects.get().status == "ready"


def test_cards_verified_before_the_new_leaderboard_fields_get_them_again(client, version, token):
    from django.core.management import call_command

    card, rows = harness_card(version, public_entries(version))
    publish_like_the_harness(client, token, card, rows)
    RunCard.objects.update(setup_fingerprint="", chrf_ci_lower=None, chrf_ci_upper=None)
    call_command("reverify_run_cards")
    stored = RunCard.objects.get()
    assert stored.setup_fingerprint == card["fingerprint"]["hash"] and stored.chrf_ci_lower is not None


def test_a_claim_nothing_recomputed_never_comes_before_a_verified_score(client, version, token):
    verified, rows = harness_card(version, public_entries(version), predict=lambda e: e.source)
    publish_like_the_harness(client, token, verified, rows)
    boastful, _ = harness_card(version, public_entries(version), model_slug="acme/boast", run_suffix="ffffff",
                               claimed_chrf=99.9)
    assert post(client, "run_cards", card_row(boastful), token).status_code == 201
    for query in ("select=model_slug&order=chrf_plus_plus.desc.nullslast",
                  "select=model_slug&order=corpus_bleu.desc,chrf_plus_plus.desc"):
        listed = client.get(f"{BASE}/run_cards?{query}", **headers()).json()
        assert [r["model_slug"] for r in listed] == ["acme/mt-small", "acme/boast"], query
    ranked = client.get("/api/v1/leaderboard/").json()["results"]
    assert [(r["model"], r["unverified"]) for r in ranked] == [("acme/mt-small", False), ("acme/boast", True)]


def ten_row_card(version, run_suffix: str = "") -> tuple[dict, list[dict]]:
    """A sealed card of ten public entries and its rows."""
    from .cards import seal

    card, rows = harness_card(version, public_entries(version)[:10], run_suffix=run_suffix)
    card["dataset"]["entry_count"] = card["scores"]["total"] = 10
    seal(card)
    return card, rows


def rows_with_a_secret(client, version, token) -> Any:
    """A card published without rows, then its rows, one output holding a secret entry's text: the answer."""
    secret = Entry.objects.get(version=version, segment="gold_standard")
    card, rows = ten_row_card(version)
    rows[3] = {**rows[3], "predicted": secret.source}
    row = card_row(card)
    assert post(client, "run_cards", row, token).status_code == 201
    return post(client, "run_card_entries", entry_batches(row["id"], rows)[0], token)


def test_secret_text_in_the_rows_of_an_unverified_card_is_refused_and_audited(client, version, token):
    """The rows complete a card stored unverified; one output holds a secret entry's text: refused, the card stays
    as published, and the refusal is in the steward's audit log (recorded after the refused rows rolled back)."""
    from organizations.models import AuditAction, AuditEvent

    secret = Entry.objects.get(version=version, segment="gold_standard")
    refusal = rows_with_a_secret(client, version, token)
    assert refusal.status_code == 400 and "results[3].predicted" in refusal.json()["details"]
    assert secret.source not in refusal.content.decode()
    assert RunCard.objects.get().status == "unverified"
    event = AuditEvent.objects.get(action=AuditAction.RUN_CARD_SECRET_TEXT_REFUSED)
    assert event.details["paths"] == ["results[3].predicted"]


def test_once_the_secret_text_refusals_are_used_up_the_harness_is_answered_429(client, version, token, settings):
    settings.RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY = 1
    assert rows_with_a_secret(client, version, token).status_code == 400
    clean, _rows = ten_row_card(version, run_suffix="after")
    answer = post(client, "run_cards", card_row(clean), token)
    assert answer.status_code == 429 and answer.json()["code"] == "PGRST429"
    assert "not accepted until" in answer.json()["message"]
    assert 0 < int(answer["Retry-After"]) == json.loads(answer.json()["details"])["retry_after_seconds"]
    assert RunCard.objects.count() == 1


def test_the_install_reads_query_count_does_not_grow_with_the_cards(client, version, token):
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def cold_read() -> int:
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(f"{BASE}/run_cards?select=*&order=chrf_plus_plus.desc.nullslast", **headers())
        assert answer.status_code == 200
        return len(queries)

    for number in range(2):
        card, rows = harness_card(version, public_entries(version)[:10], run_suffix=f"q{number}")
        card["dataset"]["entry_count"] = card["scores"]["total"] = 10
        from .cards import seal
        seal(card)
        publish_like_the_harness(client, token, card, rows[:10])
    few = cold_read()
    for number in range(2, 6):
        card, _ = harness_card(version, public_entries(version)[:10], run_suffix=f"q{number}")
        card["dataset"]["entry_count"] = card["scores"]["total"] = 10
        from .cards import seal
        seal(card)
        assert post(client, "run_cards", card_row(card), token).status_code == 201
    assert len(client.get(f"{BASE}/run_cards?select=id", **headers()).json()) == 6
    assert cold_read() == few
