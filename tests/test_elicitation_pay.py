"""Pay for elicited work through the one ledger (issue: elicitation, part 6): the time translators and verifiers
spent is owed at the batch's rate (or the organization's), plus an amount per accepted translation; governance staff
record payments and corrections for a batch as for a campaign; each person sees their own; deleting an account
can take their translations back too."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from elicitation.selectors import speaker_batch_pay, speaker_figures
from ledger import services as ledger
from ledger.errors import LedgerError, NotAllowed
from ledger.models import Payment, PayPolicy, SpeakerCredit
from ledger.selectors import credits_to_choose
from organizations.models import AuditAction, AuditEvent

from .conftest import member
from .elicitation_setup import consented_dataset, make_batch, people, translate, verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(steward, curator):
    return make_batch(curator, consented_dataset(steward).dataset, hourly_rate=Decimal("36.00"), currency="CAD",
                      amount_per_accepted=Decimal("2.50"))


@pytest.fixture
def worked(batch, steward):
    """A translator who spent 100 s on one accepted translation, and its verifier."""
    translator, verifier = people(steward, 2)
    version, _ = translate(translator, batch.sources.get(text="dog"), "atim",
                           shown_at=timezone.now() - timedelta(seconds=100))
    verify(verifier, version.translation, "accept")
    return translator, verifier


def test_time_and_accepted_translations_are_owed_and_payments_reduce_the_balance(batch, worked, governance_user):
    translator, verifier = worked
    row = {figure.user_id: figure for figure in speaker_figures(batch)}[translator.pk]
    seconds = row.seconds
    assert 100 <= seconds <= 106
    expected = (Decimal(str(seconds)) * Decimal("36") / 3600).quantize(Decimal("0.01")) + Decimal("2.50")
    assert row.owed == expected and row.paid == Decimal("0.00") and row.balance == expected

    payment = ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("3"),
                                    paid_on=date(2026, 12, 1), reference="e-transfer 17")
    assert payment.batch == batch and payment.campaign is None and payment.currency == "CAD"
    ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("-1.25"),
                          paid_on=date(2026, 12, 2), corrects=payment, note="Paid 1.25 twice.")
    row = {figure.user_id: figure for figure in speaker_figures(batch)}[translator.pk]
    assert row.paid == Decimal("1.75") and row.balance == expected - Decimal("1.75")
    assert AuditEvent.objects.filter(action=AuditAction.PAYMENT_RECORDED).count() == 2


def test_only_governance_records_and_reverses_and_only_for_people_who_worked(batch, worked, curator, steward,
                                                                               governance_user):
    translator, _verifier = worked
    with pytest.raises(NotAllowed):
        ledger.record_payment(actor=curator, work_done=batch, speaker=translator, amount=Decimal("1"),
                              paid_on=date(2026, 12, 1))
    bystander, = people(steward, 1, prefix="bystander")
    with pytest.raises(LedgerError) as nobody:
        ledger.record_payment(actor=governance_user, work_done=batch, speaker=bystander, amount=Decimal("1"),
                              paid_on=date(2026, 12, 1))
    assert nobody.value.field == "speaker" and "neither translated nor verified" in nobody.value.message
    payment = ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("5"),
                                    paid_on=date(2026, 12, 1))
    with pytest.raises(NotAllowed):
        ledger.record_payment(actor=curator, work_done=batch, speaker=translator, amount=Decimal("-5"),
                              paid_on=date(2026, 12, 1), corrects=payment, note="Reversed.")
    with pytest.raises(LedgerError) as unexplained:
        ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("-5"),
                              paid_on=date(2026, 12, 1), corrects=payment)
    assert unexplained.value.field == "note"
    with pytest.raises(LedgerError) as too_much:
        ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("-6"),
                              paid_on=date(2026, 12, 1), corrects=payment, note="Reversed.")
    assert too_much.value.field == "amount"
    assert Payment.objects.count() == 1


def test_a_correction_names_a_payment_for_the_same_work(batch, worked, governance_user, steward, curator):
    translator, _verifier = worked
    other = make_batch(curator, batch.dataset, hourly_rate=Decimal("36.00"), currency="CAD",
                       csv_text="source,difficulty,register,domain,segment,origin\n"
                                "water,1,conversational,conv,development,community\n")
    translate(translator, other.sources.get(), "nipiy")
    elsewhere = ledger.record_payment(actor=governance_user, work_done=other, speaker=translator, amount=Decimal("4"),
                                      paid_on=date(2026, 12, 1))
    with pytest.raises(LedgerError) as refused:
        ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("-1"),
                              paid_on=date(2026, 12, 1), corrects=elsewhere, note="Wrong batch.")
    assert refused.value.field == "corrects"


def test_a_payment_names_the_work_it_pays_for(batch, worked, governance_user):
    translator, _verifier = worked
    with pytest.raises(IntegrityError), transaction.atomic():
        Payment.objects.create(speaker=translator, amount=Decimal("1"), currency="CAD", paid_on=date(2026, 12, 1),
                               recorded_by=governance_user)


def test_the_organization_rate_keeps_the_currency_batches_were_paid_in(steward, curator, governance_user):
    batch = make_batch(curator, consented_dataset(steward).dataset)
    ledger.set_pay_policy(actor=governance_user, organization=steward, hourly_rate=Decimal("30"), currency="CAD",
                          default_seconds_per_rating=45)
    translator, = people(steward, 1)
    translate(translator, batch.sources.get(text="dog"), "atim")
    ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("1"),
                          paid_on=date(2026, 12, 1))
    with pytest.raises(LedgerError) as refused:
        ledger.set_pay_policy(actor=governance_user, organization=steward, hourly_rate=Decimal("30"), currency="USD",
                              default_seconds_per_rating=45)
    assert refused.value.field == "currency"
    assert PayPolicy.objects.get(organization=steward).currency == "CAD"


def test_people_who_only_translated_choose_their_credit(batch, worked, steward):
    translator, _verifier = worked
    translator.memberships.all().delete()
    assert [org.pk for org in credits_to_choose(translator)] == [steward.pk]
    ledger.set_speaker_credit(actor=translator, organization=steward, choice="display_name", display_name="Kôhkom")
    assert SpeakerCredit.objects.get(user=translator).display_name == "Kôhkom"
    stranger = member("stranger@elsewhere.example", batch.organization, "curator")
    with pytest.raises(NotAllowed):
        ledger.set_speaker_credit(actor=stranger, organization=steward, choice="anonymous")


def test_the_pay_page_records_payments_for_governance_only(client, batch, worked, governance_user, curator):
    translator, _verifier = worked
    url = f"/elicit/b/{batch.public_id}/pay/"
    client.force_login(curator)
    assert client.get(url).status_code == 404
    assert client.post(url, {"speaker": translator.pk, "amount": "5", "paid_on": "2026-12-01"}).status_code == 404
    client.force_login(governance_user)
    page = client.get(url)
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    text = " ".join(page.content.decode().split())
    assert "36.00 CAD an hour (this batch's own). Plus 2.50 CAD per accepted translation." in text
    refused = client.post(url, {"speaker": translator.pk, "amount": "0", "paid_on": "2026-12-01"})
    assert refused.status_code == 400 and "other than 0" in refused.content.decode()
    future = client.post(url, {"speaker": translator.pk, "amount": "5",
                               "paid_on": (timezone.localdate() + timedelta(days=9)).isoformat()})
    assert future.status_code == 400 and "in the future" in future.content.decode()
    assert client.post(url, {"speaker": "not a number", "amount": "5", "paid_on": "2026-12-01"}).status_code == 400
    assert not Payment.objects.exists()
    done = client.post(url, {"speaker": translator.pk, "amount": "5", "paid_on": "2026-12-01", "reference": "T-9"})
    assert done.status_code == 302
    page = client.get(url).content.decode()
    assert "T-9" in page and Payment.objects.get().batch == batch


def test_the_pay_page_costs_the_same_queries_however_many_people_worked(client, batch, steward, governance_user,
                                                                        django_assert_max_num_queries):
    client.force_login(governance_user)
    url = f"/elicit/b/{batch.public_id}/pay/"
    translators = people(steward, 4)
    for translator, source in zip(translators, batch.sources.all(), strict=False):
        version, _ = translate(translator, source, f"text of {translator.pk}")
        ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("1"),
                              paid_on=date(2026, 12, 1))
    with django_assert_max_num_queries(20):
        assert client.get(url).status_code == 200


def test_each_person_sees_only_their_own_pay(client, batch, worked, governance_user):
    translator, verifier = worked
    ledger.record_payment(actor=governance_user, work_done=batch, speaker=translator, amount=Decimal("2"),
                          paid_on=date(2026, 12, 1))
    mine = speaker_batch_pay(translator)
    assert [(row.batch, row.accepted, row.paid) for row in mine] == [(batch, 1, Decimal("2.00"))]
    assert speaker_batch_pay(verifier)[0].paid == Decimal("0.00") and speaker_batch_pay(verifier)[0].accepted == 0
    client.force_login(translator)
    page = client.get("/elicit/me/").content.decode()
    assert "data-my-pay" in page and "2.00 CAD" in page
    # On a phone each translation is a block of labelled lines, not a table wider than the screen.
    assert '<table class="stack" data-my-translations>' in page and 'data-label="In a frozen version"' in page
    client.force_login(verifier)
    page = client.get("/elicit/me/").content.decode()
    assert "data-my-pay" in page and "2.00 CAD" not in page


def test_deleting_an_account_can_withdraw_translations_too_and_says_what_stays(client, batch, worked, steward,
                                                                               curator):
    from corpus.services import create_next_version, freeze_version
    from elicitation.models import Translation
    from elicitation.services import add_accepted_to_version

    translator, _verifier = worked
    version = create_next_version(actor=curator, version=batch.dataset.versions.get(), new_version="2.0")
    add_accepted_to_version(actor=curator, batch=batch, version=version)
    freeze_version(actor=curator, version=version)
    pending, _ = translate(translator, batch.sources.get(text="hello"), "tânisi")
    client.force_login(translator)
    page = " ".join(client.get("/review/me/delete-account/").content.decode().split())
    assert "Also withdraw all my ratings and translations" in page
    assert "1 translation is in a frozen version of a corpus and stays there" in page
    response = client.post("/review/me/delete-account/", {"confirm_email": translator.email, "withdraw": "on"})
    assert response.status_code == 302, " ".join(response.content.decode().split())[-3000:]
    assert Translation.objects.get(pk=pending.translation.pk).status == Translation.Status.WITHDRAWN
    assert version.entries.count() == 2, "the frozen version keeps its entries"
    event = AuditEvent.objects.filter(action=AuditAction.ACCOUNT_DELETED).get()
    assert event.details["translations_withdrawn"] == 1
