"""An organization's commitments (benchmark specification §8.4): its relationship with the community and the evidence,
its key custody, its commitment to keep the benchmark evaluable or until when evaluation is paused; shown on its
page, changed by its governance staff only, every change audited with before and after."""

import datetime

import pytest

from common.errors import ErrorKind, NotAllowed
from organizations.models import AuditEvent, Organization
from organizations.services import CommitmentsError, update_commitments

pytestmark = pytest.mark.django_db

COMMITMENTS = {
    "community_relationship": "Mandated by Chief and Council to steward the community's language data.",
    "relationship_evidence": "Council resolution 2026-14, band office archive",
    "key_custody": "Two elders and the language coordinator hold the keys; none alone.",
    "evaluable_commitment": "Methods remain evaluable on gold_standard until at least 2030.",
}


def test_commitments_are_shown_and_each_change_is_audited(client, steward, governance_user):
    update_commitments(actor=governance_user, organization=steward, **COMMITMENTS)
    page = client.get("/orgs/steward/").content.decode()
    assert "Mandated by Chief and Council" in page and "Council resolution 2026-14" in page
    assert "Two elders and the language coordinator" in page and "until at least 2030" in page
    paused_until = datetime.date.today() + datetime.timedelta(days=30)
    update_commitments(actor=governance_user, organization=steward, **COMMITMENTS,
                       evaluation_paused_until=paused_until, evaluation_pause_reason="Elders' review of the corpus.")
    page = client.get("/orgs/steward/").content.decode()
    assert f"Evaluation paused until {paused_until:%Y-%m-%d}." in page and "Elders&#x27; review" in page
    events = list(AuditEvent.objects.filter(action="organization.commitments_changed").order_by("id"))
    assert len(events) == 2 and events[0].actor == governance_user
    assert events[1].details["changed"] == ["evaluation_pause_reason", "evaluation_paused_until"]
    assert events[1].details["before"] == {"evaluation_pause_reason": "", "evaluation_paused_until": None}
    assert events[1].details["after"]["evaluation_paused_until"] == paused_until.isoformat()
    update_commitments(actor=governance_user, organization=steward, **COMMITMENTS,
                       evaluation_paused_until=paused_until, evaluation_pause_reason="Elders' review of the corpus.")
    assert AuditEvent.objects.filter(action="organization.commitments_changed").count() == 2  # nothing changed


@pytest.mark.parametrize(("values", "field", "message"), [
    ({"evaluation_paused_until": datetime.date(2020, 1, 1), "evaluation_pause_reason": "Old."},
     "evaluation_paused_until", "is past"),
    ({"evaluation_paused_until": datetime.date.today() + datetime.timedelta(days=1)}, "evaluation_pause_reason",
     "Say why evaluation is paused"),
    ({"evaluation_pause_reason": "Review."}, "evaluation_paused_until", "Give the date"),
    ({"key_custody": "x" * 4001}, "key_custody", "4001 characters"),
    ({"relationship_evidence": "x" * 301}, "relationship_evidence", "at most 300"),
    ({"community_relationship": "a\x00b"}, "community_relationship", "NUL"),
])
def test_bad_commitments_are_refused_naming_the_field_and_nothing_changes(steward, governance_user, values, field,
                                                                         message):
    with pytest.raises(CommitmentsError, match=message) as refused:
        update_commitments(actor=governance_user, organization=steward, **values)
    assert refused.value.field == field
    assert Organization.objects.get(pk=steward.pk).commitments_changed_at is None
    assert not AuditEvent.objects.filter(action="organization.commitments_changed").exists()


def test_only_governance_staff_change_them(client, steward, curator, governance_user):
    with pytest.raises(NotAllowed) as refused:
        update_commitments(actor=curator, organization=steward, **COMMITMENTS)
    assert refused.value.kind == ErrorKind.NOT_ALLOWED
    client.force_login(curator)
    assert client.get("/orgs/steward/commitments/").status_code == 404
    assert client.post("/orgs/steward/commitments/", COMMITMENTS).status_code == 404
    client.force_login(governance_user)
    assert client.get("/orgs/steward/commitments/").status_code == 200
    response = client.post("/orgs/steward/commitments/", {**COMMITMENTS, "evaluation_pause_reason": "Review."})
    assert response.status_code == 400 and "Give the date" in response.content.decode()
    response = client.post("/orgs/steward/commitments/", COMMITMENTS)
    assert response.status_code == 302
    assert Organization.objects.get(pk=steward.pk).key_custody == COMMITMENTS["key_custody"]


# A pause is enforced: no new evaluation of the community's datasets until its date has passed.


def pause(organization, governance_user, days: int = 30) -> datetime.date:
    until = datetime.date.today() + datetime.timedelta(days=days)
    update_commitments(actor=governance_user, organization=organization, **COMMITMENTS,
                       evaluation_paused_until=until, evaluation_pause_reason="Elders' review of the corpus.")
    return until


def test_while_evaluation_is_paused_run_cards_are_refused_with_the_date_and_reason(client, steward, governance_user,
                                                                                    speaker):
    from corpus.models import Entry
    from corpus.services import import_corpus
    from leaderboard.models import RunCard

    from .cards import body, make_card
    from .conftest import corpus_bytes, entry, publish

    version = import_corpus(data=corpus_bytes([entry(n) for n in range(1, 5)]), organization=steward,
                            actor=None).version
    publish(version.dataset)
    card = make_card(version, list(Entry.objects.filter(version=version).order_by("position")))
    until = pause(steward, governance_user)
    client.force_login(speaker)
    refused = client.post("/api/v1/run-cards/", body(card), content_type="application/json")
    assert refused.status_code == 409, refused.content
    text = refused.content.decode()
    assert f"paused evaluation until {until:%Y-%m-%d}" in text and "Elders' review of the corpus." in text
    assert not RunCard.objects.exists()
    Organization.objects.filter(pk=steward.pk).update(
        evaluation_paused_until=datetime.date.today() - datetime.timedelta(days=1))
    assert client.post("/api/v1/run-cards/", body(card), content_type="application/json").status_code == 201


def test_while_evaluation_is_paused_no_review_campaign_opens(steward, governance_user, pool):
    from review import services
    from review.models import Campaign
    from review.services.errors import ReviewError

    from .review_setup import gold_card, settings_for

    card = gold_card(steward, governance_user, count=12)
    until = pause(steward, governance_user, days=0)  # the pause's last day is today: still paused
    with pytest.raises(ReviewError) as refused:
        services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, sample_size=6))
    assert refused.value.field == "run_card" and "paused evaluation" in str(refused.value)
    assert until == datetime.date.today() and not Campaign.objects.exists()
