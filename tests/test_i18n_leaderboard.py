"""The leaderboard's caches are kept per interface language: the anonymous full-page cache and the rendered
ranking that signed-in readers of the public listing share never serve one language's page in another."""

import pytest
from django.conf import settings

from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard.services import submit_run_card

from .cards import body, make_card
from .conftest import corpus_bytes, entry, publish

pytestmark = pytest.mark.django_db

FRENCH = {"HTTP_ACCEPT_LANGUAGE": "fr-ca"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}
# The card below is a legacy-composite one (its composite and tier are what these pages translate); standard/1 is
# the default ranking.
BOARD = "/leaderboard/?standard=legacy-composite"


@pytest.fixture
def card(steward, speaker):
    entries = [entry(n, "development", domain="medical") for n in range(1, 5)]
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    rows = list(Entry.objects.filter(version=version).order_by("position"))
    return submit_run_card(body=body(make_card(version, rows, composite=0.8, model_slug="bilingual")), actor=speaker)


def test_the_anonymous_page_cache_is_kept_per_language(client, card, django_assert_max_num_queries):
    english = client.get(BOARD, **ENGLISH).content.decode()
    assert '<html lang="en"' in english and "0.800" in english
    french = client.get(BOARD, **FRENCH).content.decode()
    assert '<html lang="fr-ca"' in french and "0,800" in french and "0.800" not in french
    with django_assert_max_num_queries(1):  # the state stamp: each language's page comes from the cache
        assert client.get(BOARD, **FRENCH).content.decode() == french
    with django_assert_max_num_queries(1):
        assert client.get(BOARD, **ENGLISH).content.decode() == english


def test_the_language_cookie_selects_the_cached_page(client, card):
    client.get(BOARD, **ENGLISH)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr-ca"
    assert '<html lang="fr-ca"' in client.get(BOARD).content.decode()


def test_the_shared_rendered_ranking_is_kept_per_language(client, card, speaker):
    """A speaker shares the anonymous listing: the rendered ranking comes from the fragment cache."""
    client.force_login(speaker)
    assert "0.800" in client.get(BOARD, **ENGLISH).content.decode()
    french = client.get(BOARD, **FRENCH).content.decode()
    assert "0,800" in french and "0.800" not in french
    assert "0.800" in client.get(BOARD, **ENGLISH).content.decode()


def test_french_visitors_read_the_leaderboard_in_french(client, card):
    client.get(BOARD, **ENGLISH)
    french = client.get(BOARD, **FRENCH).content.decode()
    assert "<h1>Classement</h1>" in french
    assert "1\u00a0configuration, classée selon" in french or "1 configuration, classée selon" in french
    assert "Déployable" in french
    english = client.get(BOARD, **ENGLISH).content.decode()
    assert "<h1>Leaderboard</h1>" in english and "1 setup, ranked by" in english


def test_the_ranking_summary_names_the_metric_and_the_domain(client, card):
    html = client.get(BOARD, **ENGLISH).content.decode()
    assert "1 setup, ranked by <strong>composite</strong>." in " ".join(html.split())
    html = " ".join(client.get("/leaderboard/", {"domain": "medical", "sort": "cost_adjusted",
                                                 "standard": "legacy-composite"}, **ENGLISH)
                    .content.decode().split())
    assert ("1 setup, ranked by <strong>cost-adjusted score</strong> with every score computed over the "
            "<strong>Medical</strong> entries only.") in html
    assert "4 entries scored" in html
