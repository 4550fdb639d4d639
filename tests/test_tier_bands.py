"""Quality-tier bands per language pair (benchmark specification §5): governance staff set them for their pairs
(audited), the leaderboard's quality tier and the review trigger read them, and the calibration page shows each
decided campaign's automated score against its human usable share so that the bands move on evidence."""

import pytest

from leaderboard.models import TierBands
from leaderboard.services import DisqualificationNotAllowed, LeaderboardError, set_tier_bands
from organizations.models import AuditEvent
from review import services
from review.selectors import review_trigger, transfer_eligible

from .conftest import shared_fixture
from .review_setup import rate_everything, settings_for, speakers

pytestmark = pytest.mark.django_db

LEGACY = {"standard": "legacy-composite", "ranking": "official"}
STRICT = {"emerging": 0.4, "functional": 0.6, "deployable": 0.9, "fluent": 0.95}


@shared_fixture
def card(public_card):
    return public_card


def tier_of(client) -> tuple[str, bool]:
    [row] = client.get("/api/v1/leaderboard/", LEGACY).json()["results"]
    return row["quality_tier"], row["quality_tier_provisional"]


def test_the_bands_of_a_pair_set_the_leaderboards_tier(client, card, steward, governance_user):
    assert tier_of(client) == ("Deployable", True)
    set_tier_bands(actor=governance_user, organization=steward, language_pair="EN→CRK", bands=STRICT)
    assert tier_of(client) == ("Functional", False)
    stored = TierBands.objects.get()
    assert stored.language_pair == "eng>crk" and stored.bounds() == STRICT
    event = AuditEvent.objects.get(action="tier_bands.changed")
    assert event.details == {"language_pair": "eng>crk", "after": STRICT,
                             "before": {"emerging": 0.3, "functional": 0.5, "deployable": 0.7, "fluent": 0.85}}
    set_tier_bands(actor=governance_user, organization=steward, language_pair="eng>crk",
                   bands={**STRICT, "deployable": 0.75})
    assert tier_of(client) == ("Deployable", True) and TierBands.objects.count() == 1


def test_the_review_trigger_and_the_transfer_rule_read_the_pairs_bands(card, steward, governance_user):
    assert review_trigger(card, None).met
    set_tier_bands(actor=governance_user, organization=steward, language_pair="eng>crk", bands=STRICT)
    trigger = review_trigger(card, None)
    assert not trigger.met and "under the Deployable threshold of 0.90" in trigger.message
    assert not transfer_eligible(card)


@pytest.mark.parametrize(("bands", "field", "fragment"), [
    ({**STRICT, "functional": 0.3}, "functional", "above the one before it"),
    ({**STRICT, "fluent": 0.9}, "fluent", "above the one before it"),
    ({**STRICT, "emerging": 0}, "emerging", "between 0 and 1"),
    ({**STRICT, "fluent": 1}, "fluent", "between 0 and 1"),
    ({**STRICT, "deployable": "seventy"}, "deployable", "between 0 and 1"),
    ({**STRICT, "deployable": float("nan")}, "deployable", "between 0 and 1"),
    ({**STRICT, "deployable": True}, "deployable", "between 0 and 1"),
    ({key: value for key, value in STRICT.items() if key != "fluent"}, "fluent", "between 0 and 1"),
])
def test_bands_that_are_not_increasing_within_0_and_1_are_refused(card, steward, governance_user, bands, field,
                                                                   fragment):
    with pytest.raises(LeaderboardError, match=fragment) as refused:
        set_tier_bands(actor=governance_user, organization=steward, language_pair="eng>crk", bands=bands)
    assert refused.value.field == field
    assert not TierBands.objects.exists() and not AuditEvent.objects.filter(action="tier_bands.changed").exists()


def test_only_the_governance_staff_of_a_pair_of_their_own_set_its_bands(card, steward, other_org, governance_user,
                                                                         curator, speaker):
    for user in (curator, speaker):
        with pytest.raises(DisqualificationNotAllowed):
            set_tier_bands(actor=user, organization=steward, language_pair="eng>crk", bands=STRICT)
    for pair in ("fra>crk", "not a pair", ""):
        with pytest.raises(LeaderboardError) as refused:
            set_tier_bands(actor=governance_user, organization=steward, language_pair=pair, bands=STRICT)
        assert refused.value.field == "language_pair"
    assert not TierBands.objects.exists()


def test_the_calibration_page_shows_decided_campaigns_and_sets_the_bands(client, card, steward, governance_user,
                                                                        speaker):
    pool = speakers(steward, 4)
    campaign = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, sample_size=12))
    rate_everything(campaign, lambda assignment: "excellent")
    services.record_decision(campaign=campaign, actor=governance_user, outcome="reject",
                             rationale="Too few items to decide on.")
    url = f"/review/orgs/{steward.slug}/calibration/"
    client.force_login(speaker)
    assert client.get(url).status_code == 404
    client.force_login(governance_user)
    page = " ".join(client.get(url).content.decode().split())
    assert "EN→CRK" in page and "Spring review" in page and "rejected" in page
    assert "0.800" in page and "1.00 (" in page  # the composite, and a usable share of 1 with its interval
    assert 'class="estimate reject"' in page and "Bands of this pair (the default ones)" in page

    refused = client.post(url, {"language_pair": "eng>crk", **STRICT, "fluent": "0.5"})
    text = refused.content.decode()
    assert refused.status_code == 400 and "above the one before it" in text and 'value="0.5"' in text
    assert 'aria-invalid="true"' in text and not TierBands.objects.exists()
    saved = client.post(url, {"language_pair": "eng>crk", **STRICT})
    assert saved.status_code == 302 and TierBands.objects.get().bounds() == STRICT
    assert "Bands of this pair</h3>" in client.get(url).content.decode()


def test_the_dashboard_lists_cards_the_variant_class_lint_flags(client, steward, governance_user):
    from corpus.models import Entry
    from corpus.services import import_corpus
    from leaderboard.services import submit_run_card

    from .cards import body, make_card
    from .conftest import corpus_bytes, entry, grant_all_consents

    entries = [entry(n, "development", **({"variant_class": "ta"} if n % 2 else {})) for n in range(1, 21)]
    version = import_corpus(data=corpus_bytes(entries, id="lint-set"), organization=steward, actor=None).version
    grant_all_consents(version.dataset)
    card = make_card(version, list(Entry.objects.filter(version=version)), model_slug="memoriser",
                     predict=lambda e: e.reference if e.variant_class else "guess")
    submit_run_card(body=body(card), actor=governance_user)
    client.force_login(governance_user)
    page = client.get(f"/orgs/{steward.slug}/dashboard/").content.decode()
    assert "Run cards to look into" in page and "memoriser" in page
    assert "10/10 exact on variant entries, 0/10 on the others" in page
