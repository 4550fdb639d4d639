"""Object-level access: governance staff and curators of another organization (full rights at home) ask
for the steward's datasets, consent records, campaigns, ratings, submissions and tokens by id, with
every verb. The answer is 404 (or 405 where the route takes no such verb, whatever the id), never the
object, never a change."""

import io
import uuid

import pytest
from django.test import Client

from accounts.models import ApiToken
from accounts.services import create_api_token
from corpus.models import ConsentRecord, Entry
from corpus.services import import_corpus
from review import services as review_services
from review.models import Assignment, Campaign, Rating
from submissions.models import MethodSubmission
from submissions.services import accept_terms, publish_terms, submit_method

from .conftest import corpus_bytes, entry, grant_all_consents, member
from .review_setup import gold_card, settings_for, speakers
from .test_submissions import COST_REPORT, package_files, zip_bytes

pytestmark = pytest.mark.django_db

VERBS = ("get", "post", "put", "patch", "delete")


@pytest.fixture
def steward_objects(steward, governance_user, curator):
    private = import_corpus(
        data=corpus_bytes([entry(1, "gold_standard"), entry(2)], id="private-set"),
        organization=steward,
        actor=None,
    ).version
    consent = grant_all_consents(private.dataset, governance_user)
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 2)
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=4,
                                                                                      ratings_per_item=2),
    )
    assignment = Assignment.objects.filter(campaign=campaign).select_related("speaker").first()
    review_services.record_rating(
        item=assignment.public_id,
        actor=assignment.speaker,
        submission=review_services.Submission(uuid.uuid4(), "gist"),
    )
    developer = member("dev@example.org", steward, "speaker")
    terms = publish_terms(
        organization=steward,
        actor=governance_user,
        version="2026-1",
        text="Terms.",
        transfer_clause="Transfer clause.",
    )
    outcome = submit_method(
        organization=steward,
        actor=developer,
        terms_acceptance=accept_terms(terms=terms, actor=developer),
        package=io.BytesIO(zip_bytes(package_files())),
        package_name="method.zip",
        cost_report=COST_REPORT,
    )
    token, _ = create_api_token(actor=curator, name="ci")
    version = private
    return {
        "urls": [
            f"/datasets/d/{version.dataset.identifier}/",
            f"/datasets/versions/{version.pk}/", f"/datasets/versions/{version.pk}/entries/",
            f"/datasets/versions/{version.pk}/export.json", f"/datasets/versions/{version.pk}/export/entries.csv",
            f"/datasets/versions/{version.pk}/publication/", f"/datasets/versions/{version.pk}/next-version/",
            f"/datasets/versions/{version.pk}/entries/new/", f"/datasets/versions/{version.pk}/bulk-import/",
            f"/datasets/entries/{Entry.objects.filter(version=version).first().pk}/edit/",
            f"/datasets/d/{version.dataset.identifier}/consent/",
            f"/datasets/d/{version.dataset.identifier}/consent/{consent.pk}/revoke/",
            f"/api/v1/datasets/{version.dataset.identifier}/", f"/api/v1/dataset-versions/{version.pk}/",
            f"/api/v1/dataset-versions/{version.pk}/entries/",
            f"/review/campaigns/{campaign.public_id}/", f"/review/campaigns/{campaign.public_id}/decision/",
            f"/review/campaigns/{campaign.public_id}/status/", f"/review/campaigns/{campaign.public_id}/speakers/",
            f"/review/campaigns/{campaign.public_id}/ratings.csv", f"/review/campaigns/new/{card.public_id}/",
            f"/review/c/{campaign.public_id}/", f"/review/c/{campaign.public_id}/undo/",
            f"/review/items/{assignment.public_id}/",
            f"/submissions/{outcome.submission.public_id}/",
            f"/submissions/{outcome.submission.public_id}/transfer/",
            f"/accounts/profile/tokens/{token.pk}/revoke/",
        ],
        "campaign": campaign, "consent": consent, "submission": outcome.submission, "token": token,
    }


@pytest.fixture
def intruder(other_org):
    """Governance staff and curator of their own organization, with a campaign and dataset there."""
    user = member("chief@other.example", other_org, "governance")
    member(user.email, other_org, "curator")
    user.refresh_from_db()
    return user


def snapshot(objects) -> tuple:
    campaign = Campaign.objects.get(pk=objects["campaign"].pk)
    return (campaign.status, Rating.objects.count(), ConsentRecord.objects.get(pk=objects["consent"].pk).revoked_at,
            MethodSubmission.objects.get(pk=objects["submission"].pk).state,
            ApiToken.objects.get(pk=objects["token"].pk).revoked_at if hasattr(ApiToken, "revoked_at") else None,
            ApiToken.objects.filter(pk=objects["token"].pk).exists())


def test_other_organizations_objects_are_404_on_every_verb(steward_objects, intruder):
    client = Client()
    client.force_login(intruder)
    before = snapshot(steward_objects)
    leaks = []
    for url in steward_objects["urls"]:
        for verb in VERBS:
            data = {"status": "closed", "outcome": "approve", "rationale": "x", "reason": "x", "value": "gist",
                    "client_id": str(uuid.uuid4()), "remove": "1", "confirm": "on"}
            response = getattr(client, verb)(url, data if verb == "post" else None)
            if response.status_code not in (404, 405):
                leaks.append(f"{verb.upper()} {url}: {response.status_code}")
    assert not leaks, "\n".join(leaks)
    assert snapshot(steward_objects) == before, "nothing changed"
