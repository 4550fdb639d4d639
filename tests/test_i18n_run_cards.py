"""A refused run card is answered in the language of the request: a French-speaking user signed in on the site reads
its problems in French, while the harness (a token, no Accept-Language, no cookie) reads them in English, as its
users and the upstream CLI always have."""

import json

import pytest

from accounts.services import create_api_token
from corpus.models import Entry

from .cards import body, make_card
from .conftest import entry, published_version
from .harness_fixtures import card_row, harness_card

pytestmark = pytest.mark.django_db
URL = "/api/v1/run-cards/"
NBSP = "\u00a0"


@pytest.fixture
def version(steward):
    return published_version(steward, [entry(n, "development") for n in range(1, 5)])


@pytest.fixture
def french_speaker(speaker):
    speaker.interface_language = "fr-ca"
    speaker.save(update_fields=["interface_language"])
    return speaker


def broken_card(version) -> dict:
    card = make_card(version, list(Entry.objects.filter(version=version).order_by("position")), sealed=False)
    card["scores"]["chrf_plus_plus"] = 120
    card["temperature"] = "hot"
    card["dataset"]["entry_count"] = 3
    del card["model_slug"]
    card["results"][1]["entry_id"] = card["results"][0]["entry_id"]
    return card


def test_a_french_speaking_user_signed_in_reads_the_problems_of_a_card_in_french(client, version, french_speaker):
    client.force_login(french_speaker)
    answer = client.post(URL, body(broken_card(version)), content_type="application/json")
    assert answer.status_code == 400
    problems = {problem["path"]: problem["message"] for problem in answer.json()["problems"]}
    assert problems == {
        "model_slug": "le champ obligatoire est absent",
        "temperature": f"un nombre est attendu; valeur trouvée{NBSP}: \"hot\"",
        "scores.chrf_plus_plus": f"un nombre de 0 à 100 est attendu; valeur trouvée{NBSP}: 120",
        "results[1].entry_id": f"en double{NBSP}: results[0] évalue déjà la même entrée",
        "dataset.entry_count": "vaut 3, mais results contient 4 entrées",
    }
    assert answer.json()["detail"] == "la fiche d’exécution a été refusée; rien n’a été enregistré"


def test_a_refusal_for_the_dataset_is_in_french_too(client, version, french_speaker):
    """The dataset is looked up once the card itself is well formed."""
    card = make_card(version, list(Entry.objects.filter(version=version).order_by("position")), sealed=False)
    card["dataset"]["id"] = "nope"
    client.force_login(french_speaker)
    problems = client.post(URL, body(card), content_type="application/json").json()["problems"]
    assert {"path": "dataset.id", "message": "jeu de données inconnu 'nope'"} in problems


def test_a_token_without_a_language_reads_english_whatever_the_account_chose(client, version, french_speaker):
    """A token names no interface language: the account's choice belongs to its signed-in pages. A program that asks
    for French (Accept-Language) reads French."""
    _, key = create_api_token(actor=french_speaker)
    sent = {"content_type": "application/json", "HTTP_AUTHORIZATION": f"Token {key}"}
    english = client.post(URL, body(broken_card(version)), **sent).json()
    assert {"path": "model_slug", "message": "required field is missing"} in english["problems"]
    assert english["detail"] == "the run card was refused; nothing was stored"
    french = client.post(URL, body(broken_card(version)), HTTP_ACCEPT_LANGUAGE="fr-CA", **sent).json()
    assert {"path": "model_slug", "message": "le champ obligatoire est absent"} in french["problems"]


def test_the_harness_reads_its_refusals_in_english(client, version, french_speaker):
    """The upstream CLI's requests: its apikey and Bearer token, no Accept-Language."""
    _, key = create_api_token(actor=french_speaker)
    card, _ = harness_card(version, list(Entry.objects.filter(version=version).order_by("position")))
    card["scores"]["chrf_plus_plus"] = 120.5
    answer = client.post("/supabase/rest/v1/run_cards", json.dumps(card_row(card)).encode(),
                         content_type="application/json", HTTP_APIKEY="sb_publishable_upstream-site-key",
                         HTTP_AUTHORIZATION=f"Bearer {key}",
                         HTTP_PREFER="resolution=merge-duplicates,return=representation")
    assert answer.status_code == 400
    assert {"path": "scores.chrf_plus_plus",
            "message": "expected a number from 0 to 100, found 120.5"} in answer.json()["problems"]


def test_the_cut_off_line_of_a_long_refusal_is_in_french(client, version, french_speaker):
    card = make_card(version, list(Entry.objects.filter(version=version).order_by("position")), sealed=False)
    card["results"] = [{"entry_id": None} for _ in range(250)]
    card["dataset"]["entry_count"] = 250
    client.force_login(french_speaker)
    problems = client.post(URL, body(card), content_type="application/json").json()["problems"]
    assert problems[-1] == {"path": "", "message": (
        "et 50 autres problèmes, non listés (au plus 200 le sont); corrigez ceux-ci et envoyez de nouveau le "
        "document")}
