"""Small leaks: a speaker-removal error that echoed another account's e-mail address, and an audit-log CSV
export whose cells a spreadsheet would run as formulas."""

import csv
import io

import pytest

from accounts.models import User
from common.spreadsheets import FORMULA_TRIGGERS, neutralise_formula
from organizations.audit import record_event
from organizations.models import AuditAction
from review import services
from review.models import CampaignSpeaker

from .review_setup import gold_card, settings_for, speakers

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(steward, governance_user):
    card = gold_card(steward, governance_user, count=12)
    return services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(speakers(steward, 3), sample_size=4,
                                                                          ratings_per_item=2),
    )


def test_removing_a_user_outside_the_pool_does_not_name_them(campaign, governance_user, outsider):
    with pytest.raises(services.ReviewError) as caught:
        services.remove_speaker(campaign=campaign, user=outsider, actor=governance_user)
    assert outsider.email not in str(caught.value)
    assert caught.value.field == "speaker"


def test_removal_answers_the_same_for_an_existing_user_and_a_missing_id(client, campaign, governance_user, outsider):
    """Whether the id names an account elsewhere must not show: same status, same redirect, same message."""
    client.force_login(governance_user)
    url = f"/review/campaigns/{campaign.public_id}/speakers/"
    missing_id = User.objects.order_by("-pk").first().pk + 1000
    answers = []
    for user_id in (outsider.pk, missing_id, "abc"):
        response = client.post(url, {"remove": str(user_id)}, follow=True)
        answers.append((response.redirect_chain, response.status_code,
                        [str(message) for message in response.context["messages"]]))
        assert outsider.email not in response.content.decode()
    assert answers[0] == answers[1] == answers[2], answers
    assert answers[0][2] == [services.NOT_IN_POOL], answers
    assert CampaignSpeaker.objects.filter(campaign=campaign, left_at__isnull=True).count() == 3


def test_audit_csv_cells_never_start_a_formula(client, steward, governance_user):
    """Actions are a fixed enum now; what a person chose — the actor's e-mail address — is the hostile cell."""
    for address in ("=HYPERLINK(\"http://evil.example\")@steward.example", "=cmd|' /C calc'!A0@steward.example",
                    "+1+1@steward.example", "-2-2@steward.example", "@SUM(A1)@steward.example"):
        record_event(AuditAction.ORGANIZATION_CHANGED, actor=User.objects.create_user(email=address),
                     organization=steward)
    client.force_login(governance_user)
    response = client.get(f"/orgs/{steward.slug}/audit/?format=csv")
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8"), newline="")))
    cells = [cell for row in rows[1:] for cell in row]
    assert "'=cmd|' /C calc'!A0@steward.example" in cells and "'-2-2@steward.example" in cells
    assert "'=HYPERLINK(\"http://evil.example\")@steward.example" in cells
    assert not [cell for cell in cells if cell.startswith(FORMULA_TRIGGERS)]
    # The same rule, for the triggers an e-mail address cannot start with (its whitespace is stripped).
    assert neutralise_formula("\tindent") == "'\tindent" and neutralise_formula("\rreturn") == "'\rreturn"
