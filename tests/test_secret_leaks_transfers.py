"""Ownership-transfer records are public, but the run card behind one is not always: its dataset id and scores
show on the transfer page and the method page only when the leaderboard lists that card for the viewer."""

import pytest

from submissions.models import OwnershipTransfer

from .conftest import member, proven, publish
from .review_setup import gold_card
from .test_submissions import package_files, submit, zip_bytes

pytestmark = pytest.mark.django_db
PRIVATE_ID = "test-en-crk"


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def transfer(steward, governance_user, media):
    from accounts.services import get_or_create_user
    from submissions import services as services

    developer, _ = get_or_create_user("dev@methods.example", "correct horse battery staple 42")
    terms = services.publish_terms(
        organization=steward,
        actor=governance_user,
        version="1",
        text="Terms.",
        transfer_clause="Ownership transfers to the steward.",
    )
    submission = submit(steward, developer, services.accept_terms(terms=terms, actor=developer),
                        zip_bytes(package_files())).submission
    card = gold_card(steward, proven(governance_user), composite=0.8123)
    return OwnershipTransfer.objects.create(
        submission=submission, method_id=submission.method_id, method_name=submission.method_name,
        organization=steward, terms=terms, run_card=card, developer_keeps=["Attribution"],
        governance_gets=["The code"], recorded_by=governance_user)


def pages(client, transfer) -> list[str]:
    shown = []
    for url in (f"/transfers/{transfer.public_id}/", f"/methods/{transfer.method_id}/"):
        response = client.get(url)
        assert response.status_code == 200
        shown.append(response.content.decode())
    return shown


@pytest.mark.parametrize("viewer", [None, "outsider", "developer"])
def test_a_card_of_a_private_dataset_stays_off_the_public_transfer_record(client, transfer, other_org, viewer):
    if viewer == "outsider":
        client.force_login(member("curator@other.example", other_org, "curator"))
    elif viewer == "developer":
        client.force_login(transfer.submission.submitter)
    for page in pages(client, transfer):
        assert "Transferred to Steward Nation" in page
        assert PRIVATE_ID not in page and "0.8123" not in page


def test_the_steward_and_then_everyone_see_it_once_the_leaderboard_lists_it(client, transfer, governance_user):
    client.force_login(governance_user)
    assert all(PRIVATE_ID in page and "0.8123" in page for page in pages(client, transfer))
    client.logout()
    publish(transfer.run_card.dataset_version.dataset)
    assert all(PRIVATE_ID in page and "0.8123" in page for page in pages(client, transfer))
