"""Secret segment text never rides in the public fields of a run card: method_config, the method card, every
other field outside results[], and the results[] rows of public entries (served per entry to the public).
Every secret entry of the dataset version counts, not only those the card scores, and whatever the card's
segment; the comparison ignores case, runs of whitespace and Unicode normalization. The scan answers only a
card that every other check accepts, and each of its refusals is audited for the steward."""

import datetime
import json
import unicodedata

import pytest

from corpus.models import ConsentUse, DatasetVersion, Entry
from corpus.selectors import version_hash
from corpus.services import grant_consent, revoke_consent
from leaderboard.leaks import MIN_SECRET_TEXT, SecretTextIndex, skeleton
from leaderboard.models import Method, RunCard
from leaderboard.services import RunCardRejected, submit_run_card
from organizations.audit import verify_chain
from organizations.models import AuditEvent

from .cards import body, make_card, seal
from .conftest import SECRET_MARK, entry, published_version

pytestmark = pytest.mark.django_db
URL = "/api/v1/run-cards/"
GOLD_TEXT = "niwâpamâw atim ekwa minôs"  # composed (NFC) â and ô
SHORT_GOLD = "ab"
SHARED_GOLD = "tânisi"  # also inside a public entry's text, so not secret there


@pytest.fixture
def version(steward):
    entries = [entry(n, "development", domain="medical") for n in range(1, 6)]
    entries.append({"id": 6, "source": "tânisi nitôtêm", "reference": "hello my friend", "segment": "diagnostic"})
    entries += [entry(100, "gold_standard"), entry(101, "held_out"),
                {"id": 102, "source": "I see the dog and the cat", "reference": GOLD_TEXT, "segment": "gold_standard"},
                {"id": 103, "source": SHORT_GOLD, "reference": "cd", "segment": "held_out"},
                {"id": 104, "source": "hello", "reference": SHARED_GOLD, "segment": "gold_standard"}]
    return published_version(steward, entries)


def of(version, *segments):
    return list(Entry.objects.filter(version=version, segment__in=segments).order_by("position"))


def post(client, user, card, *, pin=True):
    """Posted by `user`, pinned (unless pin=False) to the hash they are shown, sealed."""
    if pin:
        named = card["dataset"]
        version = DatasetVersion.objects.get(dataset__identifier=named["id"], version=named["version"])
        card["dataset"]["sha256"] = version_hash(user, version).value
    client.force_login(user)
    return client.post(URL, body(seal(card)), content_type="application/json")


def refusals():
    return list(AuditEvent.objects.filter(action="run_card.secret_text_refused").order_by("id"))


def assert_refused_at(response, version, *paths):
    assert response.status_code == 400, response.content
    payload = response.json()
    assert payload["detail"] == "the run card was refused; nothing was stored"
    assert [problem["path"] for problem in payload["problems"]] == list(paths)
    text = json.dumps(payload, ensure_ascii=False)
    for secret in Entry.objects.filter(version=version, segment__in=["gold_standard", "held_out"]):
        for value in (secret.source, secret.reference):
            if len(value) >= MIN_SECRET_TEXT:
                assert skeleton(value) not in skeleton(text), "the refusal must not echo the secret text"
    assert SECRET_MARK not in text
    assert RunCard.objects.count() == 0
    version.refresh_from_db()
    assert not version.is_frozen


def test_a_public_card_may_not_carry_any_secret_entry_in_method_config(client, version, governance_user):
    held_out = Entry.objects.get(version=version, entry_id="101")
    card = make_card(version, of(version, "development"))
    card["method_config"]["coachingPrompt"] = f"Translate like this: {held_out.reference}."
    assert_refused_at(post(client, governance_user, card), version, "method_config.coachingPrompt")


def test_a_public_card_by_anyone_is_checked(client, version, speaker):
    card = make_card(version, of(version, "development"))
    card["condition"] = f"coached with {GOLD_TEXT}"
    assert_refused_at(post(client, speaker, card), version, "condition")


def test_a_secret_card_may_not_carry_secret_entries_it_does_not_score(client, version, governance_user):
    scored = [Entry.objects.get(version=version, entry_id="100")]
    unscored = Entry.objects.get(version=version, entry_id="101")
    card = make_card(version, scored, method_card={"method_id": "coached", "name": "Coached", "class": "coached-llm",
                                                   "description": f"Examples: {unscored.source}"})
    assert_refused_at(post(client, governance_user, card), version, "method_card.description")


@pytest.mark.parametrize("disguise", [
    lambda text: text.upper(),
    lambda text: "  " + text.replace(" ", " \n\t  ") + "  ",
    lambda text: unicodedata.normalize("NFD", text),
    lambda text: unicodedata.normalize("NFD", text.title()).replace(" ", "\u00a0\u2003"),
], ids=["upper", "whitespace", "nfd", "all-at-once"])
def test_case_whitespace_and_unicode_normalization_do_not_hide_a_secret(client, version, governance_user, disguise):
    card = make_card(version, of(version, "development"))
    card["method_config"]["examples"] = ["hi", {"gloss": f"see: {disguise(GOLD_TEXT)}!"}]
    assert disguise(GOLD_TEXT) != GOLD_TEXT
    assert_refused_at(post(client, governance_user, card), version, "method_config.examples[1].gloss")


def test_a_member_name_holding_a_secret_is_reported_at_its_object_without_echoing_it(client, version, governance_user):
    card = make_card(version, of(version, "development"))
    card["method_config"]["glossary"] = {GOLD_TEXT: "a sentence"}
    assert_refused_at(post(client, governance_user, card), version, "method_config.glossary")


def test_results_rows_of_public_entries_are_public_too(client, version, governance_user):
    card = make_card(version, of(version, "development"))
    card["results"][1]["notes"] = f"close to {GOLD_TEXT}"
    card["results"][3]["predicted"] = card["results"][3]["raw_predicted"] = GOLD_TEXT
    response = post(client, governance_user, card)
    assert_refused_at(response, version, "results[1].notes", "results[3].raw_predicted", "results[3].predicted")


def test_outputs_on_secret_entries_count_as_secret_outside_their_rows(client, version, governance_user):
    card = make_card(version, of(version, "gold_standard"), predict=lambda e: f"OUTPUT for {e.entry_id}")
    card["method_config"]["coachingPrompt"] = "avoid output  FOR 100"
    assert_refused_at(post(client, governance_user, card), version, "method_config.coachingPrompt")
    del card["method_config"]["coachingPrompt"]
    card["run_id"] = "00000000-0000-4000-8000-000000000001"
    assert post(client, governance_user, card).status_code == 201, "inside their own rows they stay allowed"


def test_texts_shorter_than_the_threshold_are_not_secrets(client, version, governance_user):
    card = make_card(version, of(version, "development"))
    card["method_config"]["coachingPrompt"] = f"{SHORT_GOLD} cd AB CD"
    assert post(client, governance_user, card).status_code == 201


def test_a_secret_text_inside_the_scored_public_entries_is_no_secret(client, version, speaker):
    card = make_card(version, of(version, "development", "diagnostic"))
    assert SHARED_GOLD in card["results"][5]["source"]
    card["method_config"]["coachingPrompt"] = f"Greet with {SHARED_GOLD.upper()}."
    assert post(client, speaker, card).status_code == 201


def test_the_index_finds_one_secret_among_twenty_thousand_in_a_large_text():
    secrets = [f"the gold sentence number {n} says {n * 7919 % 100003}" for n in range(20_000)]
    index = SecretTextIndex(secrets)
    haystack = " ".join(f"the public sentence {n} is fine" for n in range(40_000))  # ~1.3 MB
    assert not index.found_in(haystack)
    assert index.found_in(haystack + " THE GOLD SENTENCE   NUMBER 19999 says " + str(19999 * 7919 % 100003))
    assert not SecretTextIndex(["abc", " a b "]).found_in("abc a b")  # below MIN_SECRET_TEXT after normalizing


def test_a_submitter_who_may_not_read_the_secrets_learns_of_one_string_per_refusal(client, version, speaker):
    secrets = Entry.objects.filter(version=version, entry_id__in=["100", "101"]).order_by("position")
    card = make_card(version, of(version, "development"))
    card["method_config"]["guesses"] = ["not a secret", *(secret.reference for secret in secrets), "another one"]
    assert_refused_at(post(client, speaker, card), version, "method_config.guesses[1]")


# --- the scan answers last, and is audited ------------------------------------------------------------------

def guessing(version, guess=GOLD_TEXT):
    card = make_card(version, of(version, "development"))
    card["method_config"]["guesses"] = [guess]
    return card


def test_a_reused_run_id_is_a_conflict_whether_or_not_the_card_holds_a_secret(client, version, speaker):
    stored = make_card(version, of(version, "development"))
    assert post(client, speaker, stored).status_code == 201
    for guess in (GOLD_TEXT, "a wrong guess"):
        card = guessing(version, guess)
        card["run_id"] = stored["run_id"]
        response = post(client, speaker, card)
        assert response.status_code == 409, (guess, response.content)
        assert [problem["path"] for problem in response.json()["problems"]] == ["run_id"]
    assert RunCard.objects.count() == 1 and refusals() == []


def test_a_method_id_of_another_submitter_is_a_conflict_before_the_scan(client, version, speaker, governance_user):
    method_card = {"method_id": "stewards-method", "name": "Steward's", "class": "pipeline"}
    assert post(client, governance_user, make_card(version, of(version, "development"), method_card=method_card)
                ).status_code == 201
    for guess in (GOLD_TEXT, "a wrong guess"):
        card = guessing(version, guess)
        card["method_card"] = {**method_card, "name": "Not the steward's"}  # its card is the steward's to change
        response = post(client, speaker, card)
        assert response.status_code == 409, (guess, response.content)
        assert [problem["path"] for problem in response.json()["problems"]] == ["method_card.method_id"]
    assert Method.objects.get().submitted_by == governance_user and refusals() == []


def unknown_entry(card, version):
    card["results"][0]["entry_id"] = "999"


def tampered(card, version):
    seal(card)
    card["model_id"] = "changed after sealing"


def wrong_hash(card, version):
    card["dataset"]["sha256"] = "0" * 64


def unknown_version(card, version):
    card["dataset"]["version"] = "9.9"


def revoked_consent(card, version):
    """Evaluation withdrawn, public release kept: the dataset stays visible and its cards are refused (409)."""
    record = version.dataset.consents.get()
    grant_consent(
        dataset=version.dataset,
        uses=[ConsentUse.PUBLIC_RELEASE],
        granted_by_name="Council resolution 2026-15 (test)",
        granted_on=datetime.date(2026, 2, 1),
        actor=record.recorded_by,
        document_reference="Binder 8 (test)",
    )
    revoke_consent(record=record, actor=record.recorded_by, reason="The council paused evaluation.")


@pytest.mark.parametrize("refusal, status, path", [
    (unknown_entry, 400, "results[0].entry_id"),
    (tampered, 400, "run_card_hash"),
    (wrong_hash, 400, "dataset.sha256"),
    (unknown_version, 400, "dataset.version"),
    (revoked_consent, 409, "dataset.id"),
], ids=["unknown-entry", "tampered", "wrong-hash", "unknown-version", "no-consent"])
def test_every_other_refusal_answers_before_the_scan(client, version, speaker, refusal, status, path):
    card = guessing(version)
    card["dataset"]["sha256"] = version_hash(speaker, version).value
    refusal(card, version)
    client.force_login(speaker)
    response = client.post(URL, body(card if refusal is tampered else seal(card)), content_type="application/json")
    assert response.status_code == status, response.content
    assert [problem["path"] for problem in response.json()["problems"]] == [path]
    assert refusals() == []


def test_a_refusal_by_the_scan_is_audited_for_the_steward(client, version, speaker, steward):
    card = guessing(version)
    card["condition"] = f"coached with {GOLD_TEXT}"
    assert_refused_at(post(client, speaker, card), version, "condition")  # the submitter learns of one path
    [event] = refusals()
    assert (event.organization, event.actor, event.object_type, event.object_id) == (
        steward, speaker, "corpus.DatasetVersion", str(version.pk))
    assert event.details == {"dataset": version.dataset.identifier, "version": version.version,
                             "paths": ["condition", "method_config.guesses[0]"]}, "the steward sees every path"
    assert skeleton(GOLD_TEXT) not in skeleton(json.dumps(event.details, ensure_ascii=False))
    assert verify_chain()[1] is None


def test_a_steward_reader_is_audited_too_and_the_event_outlives_the_refusal(version, governance_user):
    card = guessing(version)
    card["dataset"]["sha256"] = version_hash(governance_user, version).value
    with pytest.raises(RunCardRejected) as refused:
        submit_run_card(body=body(seal(card)), actor=governance_user)
    assert refused.value.http_status == 400 and [p.path for p in refused.value.problems] == ["method_config.guesses[0]"]
    [event] = refusals()
    assert event.actor == governance_user and event.details["paths"] == ["method_config.guesses[0]"]
    assert RunCard.objects.count() == 0


# --- a few refusals a day --------------------------------------------------------------------------------------

def test_after_three_refusals_in_a_day_every_card_is_refused_unscanned_until_the_first_is_a_day_old(
        client, version, speaker, settings, monkeypatch):
    """A refused string may hold any number of guesses, so it is the refusals that are counted: after
    RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY of them, a card is refused with 429 whether or not it holds a secret — the
    answer then says nothing of what the card holds — and nothing is stored or audited."""
    assert settings.RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY == 3
    many_guesses = " | ".join([*(f"guess {n}" for n in range(2000)), GOLD_TEXT])
    for _ in range(3):
        assert post(client, speaker, guessing(version, many_guesses)).status_code == 400
    assert len(refusals()) == 3
    for card in (guessing(version), make_card(version, of(version, "development"))):
        answer = post(client, speaker, card)
        assert answer.status_code == 429, answer.content
        assert "not accepted until" in answer.json()["problems"][0]["message"]
        assert 0 < int(answer["Retry-After"]) <= 24 * 3600
    assert RunCard.objects.count() == 0 and len(refusals()) == 3

    # The window slides: once the oldest refusal is more than a day old, a card is scanned (and stored) again.
    a_day_later = refusals()[0].created_at + datetime.timedelta(days=1, seconds=1)
    monkeypatch.setattr("django.utils.timezone.now", lambda: a_day_later)
    assert post(client, speaker, make_card(version, of(version, "development"))).status_code == 201


def test_the_refusals_of_a_steward_reader_are_not_counted_against_them(version, governance_user, settings):
    """Someone who may read the secrets learns nothing from a refusal: their cards are always scanned and told
    every path."""
    settings.RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY = 1
    for _ in range(2):
        card = guessing(version)
        card["dataset"]["sha256"] = version_hash(governance_user, version).value
        with pytest.raises(RunCardRejected) as refused:
            submit_run_card(body=body(seal(card)), actor=governance_user)
        assert refused.value.http_status == 400
    assert len(refusals()) == 2
