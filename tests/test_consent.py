"""Community consent (SPEC §2 principle 4, §6): records per dataset, and revocation taking effect on the
next request everywhere — pages, downloads, API, leaderboard, run-card submission — with nothing deleted
and re-granting restoring what the new consent covers."""

import datetime
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.urls import reverse

from corpus.models import ConsentRecord, ConsentUse, Dataset, Entry
from corpus.selectors import (
    consent_filter,
    has_consent,
    mt_output_visibility,
    readiness,
    visible_datasets,
    withdrawn,
)
from corpus.services import ConsentRequired, grant_consent, import_corpus, revoke_consent, set_dataset_public
from leaderboard.models import RunCard, RunCardResult
from leaderboard.services import submit_run_card
from organizations.models import AuditEvent

from .cards import body, make_card
from .conftest import SECRET_MARK, corpus_bytes, entry, mixed_entries, shared_fixture

pytestmark = pytest.mark.django_db

# These cards are legacy-composite ones (make_card's default); standard/1 is the default ranking.
LEGACY_BOARD = "/leaderboard/?standard=legacy-composite"
LEGACY_API = "/api/v1/leaderboard/?standard=legacy-composite"

WITHDRAWN = b"withdrawn by its community"
PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n"
TODAY = datetime.date(2026, 3, 2)


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def grant(dataset, actor, uses, **fields):
    fields.setdefault("document_reference", "Band office archive, binder 7")
    return grant_consent(dataset=dataset, uses=uses, granted_by_name="Chief and Council, resolution 2026-14",
                         granted_on=TODAY, actor=actor, **fields)


@shared_fixture
def dataset(steward, governance_user):
    """Published with one record covering public release and another covering evaluation, so that each
    can be revoked on its own; a public card and a secret card on the leaderboard."""
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    release = grant(version.dataset, governance_user, [ConsentUse.PUBLIC_RELEASE])
    evaluation = grant(version.dataset, governance_user, [ConsentUse.EVALUATION, ConsentUse.HUMAN_REVIEW])
    set_dataset_public(dataset=version.dataset, is_public=True, actor=governance_user)
    return {"version": version, "dataset": version.dataset, "release": release, "evaluation": evaluation}


@shared_fixture
def cards(dataset, speaker, governance_user):
    version = dataset["version"]
    public = list(Entry.objects.filter(version=version, segment__in=["development", "diagnostic"]))
    secret = list(Entry.objects.filter(version=version, segment="gold_standard"))
    return {
        "public": submit_run_card(body=body(make_card(version, public, model_slug="open")), actor=speaker),
        "secret": submit_run_card(body=body(make_card(version, secret, model_slug="sandboxed")), actor=governance_user),
    }


def fetch(client, url):
    response = client.get(url)
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return response.status_code, content


def public_urls(version, card):
    entry_pk = Entry.objects.get(version=version, segment="development").pk
    return {
        "dataset page": f"/datasets/d/{version.dataset.identifier}/",
        "version page": f"/datasets/versions/{version.pk}/",
        "entry list": f"/datasets/versions/{version.pk}/entries/",
        "entry page": f"/datasets/entries/{entry_pk}/",
        "corpus download": f"/datasets/versions/{version.pk}/export.json",
        "table download": f"/datasets/versions/{version.pk}/export/entries.csv",
        "API dataset": f"/api/v1/datasets/{version.dataset.identifier}/",
        "API version": f"/api/v1/dataset-versions/{version.pk}/",
        "API version entries": f"/api/v1/dataset-versions/{version.pk}/entries/",
        "API version export": f"/api/v1/dataset-versions/{version.pk}/export/",
        "API entry": f"/api/v1/entries/{entry_pk}/",
        "card page": f"/leaderboard/cards/{card.public_id}/",
        "API card": f"/api/v1/run-cards/{card.public_id}/",
        "API card results": f"/api/v1/run-cards/{card.public_id}/results/",
        "method config": f"/api/v1/leaderboard/{card.public_id}/method-config/",
    }


def api_rows(client) -> list[dict]:
    """The rows of the official and the open legacy-composite rankings, by model."""
    return sorted((row for ranking in ("official", "open")
                   for row in client.get(f"{LEGACY_API}&ranking={ranking}").json()["results"]),
                  key=lambda row: row["model"])


def listings(client):
    """What the lists show: dataset ids on the list page and API, entries in the API, leaderboard rows."""
    return {
        "dataset list": [v.dataset.identifier for v in client.get("/datasets/").context["versions"]],
        "API datasets": [d["id"] for d in client.get("/api/v1/datasets/").json()["results"]],
        "API entries": client.get("/api/v1/entries/").json()["count"],
        "leaderboard page": sorted(row["model"] for section, _ in client.get(LEGACY_BOARD).context["sections"]
                                   for row in section.ranked.rows),
        "leaderboard API": [row["model"] for row in api_rows(client)],
    }


def submit(client, version, user):
    entries = list(Entry.objects.filter(version=version, segment="development"))
    client.force_login(user)
    response = client.post("/api/v1/run-cards/", body(make_card(version, entries, model_slug="late")),
                           content_type="application/json")
    client.logout()
    return response


BEFORE = {"dataset list": ["test-en-crk"], "API datasets": ["test-en-crk"], "API entries": 2,
          "leaderboard page": ["open-2026", "sandboxed-2026"], "leaderboard API": ["open-2026", "sandboxed-2026"]}
EMPTY = {"dataset list": [], "API datasets": [], "API entries": 0, "leaderboard page": [], "leaderboard API": []}


def test_revoking_everything_takes_effect_on_the_next_request_everywhere(client, dataset, cards, governance_user,
                                                                         speaker):
    urls = public_urls(dataset["version"], cards["public"])
    assert {name: fetch(client, url)[0] for name, url in urls.items()} == {
        name: 302 if name == "dataset page" else 200 for name in urls}
    assert listings(client) == BEFORE

    revoke_consent(
        record=dataset["release"],
        actor=governance_user,
        reason="The council suspended the release pending review.",
    )
    revoke_consent(record=dataset["evaluation"], actor=governance_user, reason="The council suspended evaluation.")

    for name, url in urls.items():
        status, content = fetch(client, url)
        assert status == 410, f"{name}: {status}"
        assert WITHDRAWN in content, name
        assert SECRET_MARK.encode() not in content and b"public-1" not in content, name
    api = client.get(urls["API entry"]).json()
    assert api["detail"].startswith("The dataset test-en-crk was withdrawn by its community: Steward Nation revoked")
    assert listings(client) == EMPTY
    response = submit(client, dataset["version"], speaker)
    assert response.status_code == 409
    assert response.json()["problems"] == [{"path": "dataset.id", "message": (
        "'test-en-crk': its community (Steward Nation) revoked its consent to evaluation; run cards against this "
        "dataset are refused until an active consent record covers evaluation")}]
    assert RunCard.objects.count() == 2 and Entry.objects.filter(version=dataset["version"]).count() == 4, \
        "nothing is deleted"


def test_revoking_public_release_alone_withdraws_the_corpus_and_its_rows(client, dataset, cards, governance_user,
                                                                           speaker):
    revoke_consent(record=dataset["release"], actor=governance_user, reason="Suspended.")
    urls = public_urls(dataset["version"], cards["public"])
    corpus_urls = [url for name, url in urls.items() if "card" not in name and "config" not in name]
    assert {fetch(client, url)[0] for url in corpus_urls} == {410}
    assert listings(client) == EMPTY, "a dataset the public cannot see has no public leaderboard rows"
    assert fetch(client, urls["card page"])[0] == 410
    assert submit(client, dataset["version"], speaker).status_code == 400, \
        "evaluation is still consented, but the speaker no longer sees the dataset"


def test_revoking_evaluation_alone_withdraws_rows_and_refuses_cards(client, dataset, cards, governance_user,
                                                                      speaker):
    revoke_consent(record=dataset["evaluation"], actor=governance_user, reason="Suspended.")
    urls = public_urls(dataset["version"], cards["public"])
    for name, url in urls.items():
        status, content = fetch(client, url)
        if "card" in name or "config" in name:
            assert status == 410 and b"revoked its consent to evaluation" in content, name
        else:
            assert status in (200, 302), f"{name}: the corpus itself stays public"
    assert listings(client) == {**BEFORE, "leaderboard page": [], "leaderboard API": []}
    assert submit(client, dataset["version"], speaker).status_code == 409
    assert submit(client, dataset["version"], governance_user).status_code == 409, "the steward is refused too"


def test_regranting_restores_what_the_new_consent_covers(client, dataset, cards, governance_user):
    revoke_consent(record=dataset["release"], actor=governance_user, reason="Suspended.")
    revoke_consent(record=dataset["evaluation"], actor=governance_user, reason="Suspended.")
    grant(dataset["dataset"], governance_user, [ConsentUse.PUBLIC_RELEASE])
    urls = public_urls(dataset["version"], cards["public"])
    assert fetch(client, urls["entry list"])[0] == 200
    assert fetch(client, urls["card page"])[0] == 410, "evaluation is not covered by the new consent"
    assert listings(client) == {**BEFORE, "leaderboard page": [], "leaderboard API": []}
    grant(dataset["dataset"], governance_user, [ConsentUse.EVALUATION])
    assert listings(client) == BEFORE
    assert {name: fetch(client, url)[0] for name, url in urls.items()} == {
        name: 302 if name == "dataset page" else 200 for name in urls}
    assert ConsentRecord.objects.filter(dataset=dataset["dataset"]).count() == 4


def test_public_mt_output_follows_consent(dataset, cards, governance_user):
    public_results = RunCardResult.objects.filter(mt_output_visibility(AnonymousUser()))
    assert public_results.count() == 2
    revoke_consent(record=dataset["release"], actor=governance_user, reason="Suspended.")
    assert public_results.count() == 0
    assert RunCardResult.objects.filter(mt_output_visibility(governance_user)).count() == 3


def test_governance_staff_still_see_everything_marked_withdrawn(client, dataset, cards, governance_user, curator):
    revoke_consent(record=dataset["release"], actor=governance_user, reason="Suspended.")
    revoke_consent(record=dataset["evaluation"], actor=governance_user, reason="Suspended.")
    version = dataset["version"]
    client.force_login(governance_user)
    page = client.get(f"/datasets/versions/{version.pk}/")
    assert page.status_code == 200 and b"public release withdrawn by the community" in page.content
    assert SECRET_MARK.encode() in client.get(f"/datasets/versions/{version.pk}/entries/").content
    rows = api_rows(client)
    assert [(row["model"], row["withdrawn"]) for row in rows] == [("open-2026", True), ("sandboxed-2026", True)]
    board = client.get(LEGACY_BOARD).content.decode()
    assert board.count(">withdrawn</span>") == 2
    card_page = client.get(f"/leaderboard/cards/{cards['secret'].public_id}/")
    assert card_page.status_code == 200 and b"withdrawn from public view" in card_page.content
    assert b"public release withdrawn" in client.get("/datasets/").content
    client.force_login(curator)
    assert client.get(f"/datasets/versions/{version.pk}/entries/").status_code == 200


def test_rows_are_not_marked_while_consent_holds(client, dataset, cards, governance_user):
    client.force_login(governance_user)
    assert [row["withdrawn"] for row in api_rows(client)] == [False, False]


def test_datasets_that_were_never_public_stay_a_plain_404(client, steward, governance_user, outsider, dataset):
    private = import_corpus(data=corpus_bytes([entry(1)], id="private-set"), organization=steward, actor=None).version
    record = grant(private.dataset, governance_user, [ConsentUse.PUBLIC_RELEASE, ConsentUse.EVALUATION])
    revoke_consent(record=record, actor=governance_user, reason="Never mind.")
    secret_entry = Entry.objects.get(version=dataset["version"], segment="gold_standard")
    revoke_consent(record=dataset["release"], actor=governance_user, reason="Suspended.")
    client.force_login(outsider)
    for url in (f"/datasets/versions/{private.pk}/", "/datasets/d/private-set/", "/api/v1/datasets/private-set/",
                f"/api/v1/dataset-versions/{private.pk}/entries/", f"/datasets/entries/{secret_entry.pk}/",
                f"/api/v1/entries/{secret_entry.pk}/"):
        status, content = fetch(client, url)
        assert status == 404 and WITHDRAWN not in content, url
    response = submit(client, private, outsider)
    assert response.status_code == 400 and "unknown dataset" in response.json()["problems"][0]["message"]


def test_run_cards_need_evaluation_consent_from_the_start(client, steward, governance_user):
    version = import_corpus(
        data=corpus_bytes(mixed_entries(), id="fresh-set"),
        organization=steward,
        actor=None,
    ).version
    grant(version.dataset, governance_user, [ConsentUse.HUMAN_REVIEW])
    response = submit(client, version, governance_user)
    assert response.status_code == 409
    payload = response.json()
    assert payload["detail"] == "refused: the dataset's community does not consent to evaluation; nothing was stored"
    assert "has not consented to evaluation" in payload["problems"][0]["message"]
    assert not RunCard.objects.exists()
    version.refresh_from_db()
    assert not version.is_frozen


def test_publishing_needs_public_release_consent(client, steward, governance_user):
    version = import_corpus(data=corpus_bytes([entry(1)], id="unreleased"), organization=steward, actor=None).version
    with pytest.raises(ConsentRequired, match="no active consent record covers public release"):
        set_dataset_public(dataset=version.dataset, is_public=True, actor=governance_user)
    client.force_login(governance_user)
    page = client.get(f"/datasets/versions/{version.pk}/")
    assert reverse("corpus:consent", args=["unreleased"]).encode() in page.content
    response = client.post(f"/datasets/versions/{version.pk}/publication/", {"is_public": "1"}, follow=True)
    assert b"cannot be released publicly: no active consent record covers public release" in response.content
    version.dataset.refresh_from_db()
    assert not version.dataset.is_public
    grant(version.dataset, governance_user, [ConsentUse.PUBLIC_RELEASE])
    client.post(f"/datasets/versions/{version.pk}/publication/", {"is_public": "1"})
    version.dataset.refresh_from_db()
    assert version.dataset.is_public
    assert AuditEvent.objects.filter(action="dataset.published").count() == 1


def test_selectors(dataset, governance_user):
    ds = dataset["dataset"]
    assert has_consent(ds, ConsentUse.PUBLIC_RELEASE) and has_consent(ds, "human_review")
    assert not has_consent(ds, ConsentUse.GATEWAY_DISCLOSURE)
    assert not withdrawn(ds) and not withdrawn(ds, ConsentUse.GATEWAY_DISCLOSURE), "never granted is not withdrawn"
    assert Entry.objects.filter(consent_filter(ConsentUse.HUMAN_REVIEW, "version__dataset")).count() == 4
    revoke_consent(record=dataset["evaluation"], actor=governance_user, reason="Suspended.")
    assert withdrawn(ds, ConsentUse.EVALUATION) and not withdrawn(ds)
    assert Entry.objects.filter(consent_filter(ConsentUse.HUMAN_REVIEW, "version__dataset")).count() == 0
    assert Dataset.objects.filter(consent_filter(ConsentUse.PUBLIC_RELEASE)).get() == ds
    assert list(visible_datasets(AnonymousUser())) == [ds]
    with pytest.raises(ValueError, match="unknown consent use 'publish'"):
        consent_filter("publish")


def test_readiness_counts_consent_covering_evaluation(steward, governance_user):
    version = import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None).version

    def consent_item():
        return next(item for item in readiness(version) if item.label == "Documented community consent")

    assert (consent_item().actual, consent_item().passed) == ("none recorded", False)
    review_only = grant(version.dataset, governance_user, [ConsentUse.HUMAN_REVIEW])
    assert (consent_item().actual, consent_item().passed) == ("human review", False)
    grant(version.dataset, governance_user, [ConsentUse.GATEWAY_DISCLOSURE, ConsentUse.EVALUATION])
    assert (consent_item().actual, consent_item().passed) == ("evaluation, human review, A1 gateway disclosure", True)
    assert consent_item().expected == "active, covering evaluation"
    revoke_consent(record=review_only, actor=governance_user, reason="Done.")
    for record in ConsentRecord.objects.filter(revoked_at__isnull=True):
        revoke_consent(record=record, actor=governance_user, reason="Suspended.")
    assert (consent_item().actual, consent_item().passed) == ("revoked", False)


# Consent pages ---------------------------------------------------------------------------------------

def consent_url(dataset):
    return reverse("corpus:consent", args=[dataset.identifier])


def test_consent_pages_are_for_the_stewards_governance_staff_only(client, dataset, governance_user, curator, speaker,
                                                                   outsider, maintainer):
    record = grant(dataset["dataset"], governance_user, [ConsentUse.EVALUATION],
                   document=SimpleUploadedFile("resolution.pdf", PDF))
    urls = [consent_url(dataset["dataset"]), reverse("corpus:consent_revoke", args=["test-en-crk", record.pk]),
            reverse("corpus:consent_document", args=["test-en-crk", record.pk])]
    for user in (curator, speaker, outsider, maintainer):
        client.force_login(user)
        for url in urls:
            assert client.get(url).status_code == 404, (user, url)
        assert client.post(urls[1], {"reason": "x"}).status_code == 404
    client.logout()
    assert all(client.get(url).status_code == 302 for url in urls), "anonymous visitors are sent to sign in"
    assert client.get(f"/media/{record.document.name}").status_code == 404, "never served under MEDIA_URL"
    record.refresh_from_db()
    assert record.is_active

    client.force_login(governance_user)
    download = client.get(urls[2])
    assert download.status_code == 200 and b"".join(download.streaming_content) == PDF
    assert download["Content-Disposition"] == 'attachment; filename="resolution.pdf"'
    assert "no-store" in download["Cache-Control"]
    page = client.get(urls[0])
    assert page.status_code == 200
    assert b"Chief and Council, resolution 2026-14" in page.content and b"resolution.pdf" in page.content
    assert client.get(reverse("corpus:consent", args=["no-such-set"])).status_code == 404


def test_links_to_the_consent_page(client, dataset, governance_user, curator):
    url = consent_url(dataset["dataset"]).encode()
    client.force_login(governance_user)
    assert url in client.get(f"/datasets/versions/{dataset['version'].pk}/").content
    assert url in client.get("/orgs/steward/").content
    client.force_login(curator)
    assert url not in client.get(f"/datasets/versions/{dataset['version'].pk}/").content


def test_recording_a_consent_through_the_page(client, dataset, governance_user, media_root):
    client.force_login(governance_user)
    response = client.post(consent_url(dataset["dataset"]), {
        "uses": ["gateway_disclosure", "evaluation"], "granted_by_name": "  Elders' council  ",
        "granted_on": "2026-02-20", "document": SimpleUploadedFile("Minutes 2026.PDF", PDF),
        "document_reference": "", "notes": "Per run card approval.",
    })
    assert response.status_code == 302
    record = ConsentRecord.objects.latest("pk")
    assert (record.uses, record.granted_by_name, record.granted_on, record.recorded_by, record.document_name) == (
        [ConsentUse.EVALUATION, ConsentUse.GATEWAY_DISCLOSURE], "Elders' council", datetime.date(2026, 2, 20),
        governance_user, "Minutes 2026.PDF")
    stored = Path(media_root) / record.document.name
    assert record.document.name.startswith(f"consent/{dataset['dataset'].pk}/") and stored.suffix == ".pdf"
    assert stored.read_bytes() == PDF
    event = AuditEvent.objects.filter(action="consent.granted").latest("id")
    assert (event.actor, event.organization.slug, event.object_id) == (governance_user, "steward", str(record.pk))
    assert event.details["uses"] == ["evaluation", "gateway_disclosure"]
    page = client.get(response.url)
    assert b"Consent recorded for evaluation and A1 gateway disclosure" in page.content


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"uses": []}, "uses", "Choose at least one use the community consented to."),
    ({"uses": ["publish_everything"]}, "uses", "Select a valid choice. publish_everything is not one of"),
    ({"granted_by_name": ""}, "granted_by_name", "Name the person or body who granted consent"),
    ({"granted_on": "2999-01-01"}, "granted_on", "a consent cannot be granted in the future"),
    ({"document_reference": ""}, "document_reference", "upload the supporting document or give a reference"),
])
def test_page_shows_each_error_next_to_its_field(client, dataset, governance_user, data, field, message):
    client.force_login(governance_user)
    form = {"uses": ["evaluation"], "granted_by_name": "Council", "granted_on": "2026-01-05",
            "document_reference": "https://example.org/resolution", **data}
    before = ConsentRecord.objects.count()
    response = client.post(consent_url(dataset["dataset"]), form)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == [field] and errors[field][0].startswith(message)
    assert message.encode() in response.content.replace(b"&#x27;", b"'")
    assert ConsentRecord.objects.count() == before


@pytest.mark.parametrize(("name", "content", "message"), [
    ("tool.exe", b"MZ\x90\x00",
     "a .exe file is not accepted; upload PDF, PNG, JPEG, plain text (.txt) or Word (.docx)"),
    ("resolution.pdf", b"<html>not a pdf</html>",
     "the file's content is not PDF; upload the document in the format its name says"),
    ("notes.txt", b"text\x00with nul", "this .txt file is not plain text"),
    ("big.pdf", PDF + b"0" * (1024 * 1024), "the file is 1,048,627 bytes; the limit is 1,048,576 bytes"),
])
def test_documents_are_checked(client, dataset, governance_user, settings, name, content, message):
    settings.CONSENT_DOCUMENT_MAX_BYTES = 1024 * 1024
    client.force_login(governance_user)
    response = client.post(consent_url(dataset["dataset"]), {
        "uses": ["evaluation"], "granted_by_name": "Council", "granted_on": "2026-01-05",
        "document": SimpleUploadedFile(name, content)})
    assert response.status_code == 400
    assert response.context["form"].errors == {"document": [message]}
    with pytest.raises(ValidationError) as raised:
        grant(dataset["dataset"], governance_user, [ConsentUse.EVALUATION],
              document=SimpleUploadedFile(name, content))
    assert raised.value.message_dict == {"document": [message]}


def test_every_problem_is_shown_at_once(client, dataset, governance_user):
    client.force_login(governance_user)
    response = client.post(consent_url(dataset["dataset"]), {"granted_on": "2999-01-01"})
    assert response.status_code == 400
    assert response.context["form"].errors == {
        "uses": ["Choose at least one use the community consented to."],
        "granted_by_name": ["Name the person or body who granted consent on the community's behalf."],
        "granted_on": ["a consent cannot be granted in the future"],
        "document_reference": ["upload the supporting document or give a reference to it (URL or archive)"],
    }
    assert b"The consent was not recorded: 4 fields need attention" in response.content


def test_accepted_document_types(dataset, governance_user):
    for name, content in [("a.png", b"\x89PNG\r\n\x1a\n...."), ("b.jpeg", b"\xff\xd8\xff\xe0"),
                          ("c.docx", b"PK\x03\x04...."), ("d.txt", "Résolution: nêhiyawêwin".encode())]:
        record = grant(dataset["dataset"], governance_user, [ConsentUse.EVALUATION], document_reference="",
                       document=SimpleUploadedFile(name, content))
        assert record.document.read() == content


def test_service_validation_names_every_field(dataset, governance_user):
    with pytest.raises(ValidationError) as raised:
        grant_consent(
            dataset=dataset["dataset"],
            uses=["evaluation", "sell"],
            granted_by_name=" ",
            granted_on=None,
            actor=governance_user,
        )
    assert raised.value.message_dict == {
        "uses": ["unknown use(s) sell; expected: public_release, evaluation, human_review, gateway_disclosure, "
                 "corpus_creation"],
        "granted_by_name": ["name the person or body who granted consent on the community's behalf"],
        "granted_on": ["give the date the consent was granted"],
        "document_reference": ["upload the supporting document or give a reference to it (URL or archive)"],
    }


def test_revocation_page_says_what_will_happen_and_needs_a_reason(client, dataset, governance_user):
    record = dataset["evaluation"]
    grant(dataset["dataset"], governance_user, [ConsentUse.HUMAN_REVIEW])
    url = reverse("corpus:consent_revoke", args=["test-en-crk", record.pk])
    client.force_login(governance_user)
    page = client.get(url).content.decode()
    assert "New run cards against it are refused, and its leaderboard rows and run cards are withdrawn" in page
    assert "nothing stops — still allowed by active record #" in page, "human review stays covered"
    assert "Nothing is deleted." in page
    response = client.post(url, {"reason": "   "})
    assert response.status_code == 400
    assert response.context["form"].errors == {
        "reason": ["Say why the consent is revoked; the reason is kept with the record."]}
    record.refresh_from_db()
    assert record.is_active

    response = client.post(url, {"reason": "The council asked for a pause."})
    assert response.status_code == 302
    record.refresh_from_db()
    assert (record.revoked_by, record.revocation_reason) == (governance_user, "The council asked for a pause.")
    records_page = client.get(consent_url(dataset["dataset"])).content.decode()
    assert "The council asked for a pause." in records_page and "gov@steward.example" in records_page
    again = client.post(url, {"reason": "Twice."})
    assert again.status_code == 409 and b"already revoked" in again.content


def test_service_refuses_a_missing_reason_and_a_second_revocation(dataset, governance_user):
    record = dataset["evaluation"]
    with pytest.raises(ValidationError) as raised:
        revoke_consent(record=record, actor=governance_user, reason="")
    assert list(raised.value.message_dict) == ["reason"]
    revoke_consent(record=record, actor=governance_user, reason="Paused.")
    with pytest.raises(ValidationError, match="already revoked"):
        revoke_consent(record=record, actor=governance_user, reason="Again.")
    event = AuditEvent.objects.get(action="consent.revoked")
    assert (event.actor, event.object_id, event.details) == (governance_user, str(record.pk), {
        "dataset": "test-en-crk", "uses": ["evaluation", "human_review"], "reason": "Paused."})
    assert AuditEvent.objects.filter(action="consent.granted").count() == 2


def test_database_constraints(dataset, governance_user):
    base = {"dataset": dataset["dataset"], "granted_by_name": "Council", "granted_on": TODAY,
            "recorded_by": governance_user, "document_reference": "ref"}
    for fields in ({}, {"evaluation": True, "document_reference": ""}, {"evaluation": True, "granted_by_name": ""},
                   {"evaluation": True, "revocation_reason": "why"}):
        with pytest.raises(IntegrityError), transaction.atomic():
            ConsentRecord.objects.create(**{**base, **fields})
    with pytest.raises(PermissionError):
        dataset["evaluation"].delete()
    with pytest.raises(PermissionError):
        ConsentRecord.objects.all().delete()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger exists on PostgreSQL only")
def test_postgresql_refuses_deleting_or_rewriting_a_record(dataset, governance_user):
    record = dataset["evaluation"]
    for statement in ("DELETE FROM corpus_consentrecord WHERE id = %s",
                      "UPDATE corpus_consentrecord SET public_release = true WHERE id = %s"):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, [record.pk])
    revoke_consent(record=record, actor=governance_user, reason="Paused.")
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE corpus_consentrecord SET revocation_reason = 'rewritten' WHERE id = %s", [record.pk])
    record.refresh_from_db()
    assert record.revocation_reason == "Paused."


@pytest.mark.parametrize("count", [2, 20])
def test_consent_page_queries_do_not_grow_with_records(client, dataset, governance_user, count,
                                                      django_assert_max_num_queries):
    for index in range(count):
        record = grant(dataset["dataset"], governance_user, [ConsentUse.EVALUATION], notes=f"n{index}")
        if index % 2:
            revoke_consent(record=record, actor=governance_user, reason="Superseded.")
    client.force_login(governance_user)
    with django_assert_max_num_queries(8):
        page = client.get(consent_url(dataset["dataset"]))
    assert page.status_code == 200 and len(page.context["records"]) == count + 2
    assert page.content.count(b"Superseded.") == count // 2


def test_admin_lists_records_but_never_deletes(client, dataset, maintainer):
    client.force_login(maintainer)
    assert client.get("/admin/corpus/consentrecord/").status_code == 200
    assert client.get(f"/admin/corpus/consentrecord/{dataset['release'].pk}/delete/").status_code == 403


def test_load_demo_records_the_demo_consent(db):
    call_command("load_demo")
    call_command("load_demo")
    record = ConsentRecord.objects.get()
    assert record.uses == [ConsentUse.PUBLIC_RELEASE, ConsentUse.EVALUATION, ConsentUse.HUMAN_REVIEW,
                           ConsentUse.CORPUS_CREATION]
    assert record.document_reference.startswith("Demo data")
    assert record.dataset.is_public and list(visible_datasets(AnonymousUser())) == [record.dataset]


def test_withdrawn_json_body_for_scripts(client, dataset, governance_user):
    revoke_consent(record=dataset["release"], actor=governance_user, reason="Suspended.")
    response = client.get(f"/api/v1/dataset-versions/{dataset['version'].pk}/")
    assert response.status_code == 410
    assert json.loads(response.content) == {"detail": (
        "The dataset test-en-crk was withdrawn by its community: Steward Nation revoked its consent to public "
        "release of the development and diagnostic segments, so its entries are no longer available here. "
        "Nothing was deleted.")}


def test_the_form_says_one_of_document_and_reference_is_required(client, dataset, governance_user):
    client.force_login(governance_user)
    page = " ".join(client.get(consent_url(dataset["dataset"])).content.decode().split())
    assert "Supporting document: upload it, give a reference to it, or both (one of the two is required)" in page
    for label in ("Supporting document", "Document reference"):
        assert f'{label} <span class="optional">' not in page, f"{label} is not optional on its own"
    assert 'Notes <span class="optional">' in page
