"""Corpus pages as curators, governance staff and the public use them."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from corpus.models import Dataset, Entry
from corpus.services import freeze_version, import_corpus

from .conftest import SECRET_MARK, corpus_bytes, entry, grant_all_consents, publish

pytestmark = pytest.mark.django_db


def upload(client, data: bytes, org="steward"):
    return client.post("/datasets/import/", {"organization": org, "file": SimpleUploadedFile("corpus.json", data)})


def test_import_page_shows_every_problem_and_stores_nothing(client, curator):
    client.force_login(curator)
    response = upload(client, corpus_bytes([entry(1, difficulty=6), entry(1, domain="astrology"),
                                            {"id": 3, "source": "a"}]))
    assert response.status_code == 400
    text = response.content.decode()
    assert "4 problems found — nothing was imported" in text
    assert "entry #0, id 1, field &#x27;difficulty&#x27;: expected an integer from 1 to 5, found 6" in text
    assert "entry #1, id 1, field &#x27;id&#x27;: duplicate id: entry #0 already uses it" in text
    assert "entry #2, id 3, field &#x27;reference&#x27;: required field is missing" in text
    assert Dataset.objects.count() == 0


def test_import_page_reports_invalid_json_position(client, curator):
    client.force_login(curator)
    response = upload(client, b'{\n "dataset": {,\n}')
    assert response.status_code == 400
    assert "line 2, column 14: invalid JSON" in response.content.decode()


def test_import_page_success_lands_on_the_dataset_page(client, curator):
    client.force_login(curator)
    response = upload(client, corpus_bytes([entry(1, difficulty=1), entry(2, "gold_standard", difficulty=3)]))
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert b"Imported 2 entries" in page.content
    assert b"Benchmark readiness" in page.content


def test_import_page_is_for_curators_and_governance_only(client, speaker):
    assert client.get("/datasets/import/").status_code == 302
    client.force_login(speaker)
    assert client.get("/datasets/import/").status_code == 403


def test_import_page_refuses_an_organization_the_user_does_not_curate(client, curator, other_org):
    client.force_login(curator)
    response = upload(client, corpus_bytes([entry(1)]), org=other_org.slug)
    assert response.status_code == 400 and b"Select a valid choice" in response.content
    assert Dataset.objects.count() == 0


def test_readiness_checklist_counts_each_requirement(client, steward, curator):
    entries = ([entry(n, "gold_standard", difficulty=1 + n % 3, register="formal", provenance="elicited")
                for n in range(50)]
               + [entry(100 + n, "development", difficulty=2, register="conversational", provenance="elicited")
                  for n in range(30)]
               + [entry(200 + n, "diagnostic", difficulty=4, provenance="elicited") for n in range(9)])
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    client.force_login(curator)
    checklist = {item.label: item for item in client.get(f"/datasets/versions/{version.pk}/").context["readiness"]}
    assert checklist["Gold standard entries"].passed and checklist["Gold standard entries"].actual == "50"
    assert checklist["Development entries"].passed
    assert not checklist["Diagnostic entries"].passed and checklist["Diagnostic entries"].actual == "9"
    assert not checklist["Held out entries"].passed
    assert checklist["Every entry has a provenance"].passed
    assert checklist["Difficulty tiers spanned"].actual == "4" and checklist["Difficulty tiers spanned"].passed
    assert checklist["Registers represented"].passed
    assert not checklist["Documented community consent"].passed


def test_distribution_for_the_public_counts_only_visible_entries(client, public_version):
    page = client.get(f"/datasets/versions/{public_version.pk}/")
    segments = dict(page.context["distributions"])["Segment"]
    assert sorted(segments) == [("Development", 1), ("Diagnostic", 1)]
    assert b"2 visible to you" in page.content


def test_entry_list_filters_search_and_paginates(client, steward):
    entries = [entry(n, difficulty=1 + n % 5, domain="medical" if n % 2 else "legal") for n in range(120)]
    entries.append(entry(999, notes="niwâpamâw atim", source="I see the dog"))
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    url = f"/datasets/versions/{version.pk}/entries/"
    page = client.get(url)
    assert page.context["page"].paginator.count == 121 and len(page.context["page"].object_list) == 50
    assert client.get(url, {"domain": "medical", "difficulty": 2}).context["page"].paginator.count == 12
    assert client.get(url, {"q": "niwâpamâw"}).context["page"].paginator.count == 1
    assert client.get(url, {"q": "999"}).context["page"].paginator.count == 1
    second = client.get(url, {"domain": "legal", "page": 2})
    assert second.context["page"].number == 2 and b"domain=legal&amp;page=1" in second.content


def test_curator_adds_entry_with_elicited_default(client, curator, public_version):
    client.force_login(curator)
    form = client.get(f"/datasets/versions/{public_version.pk}/entries/new/")
    assert form.context["form"]["provenance"].value() == "elicited"
    response = client.post(f"/datasets/versions/{public_version.pk}/entries/new/", {
        "entry_id": "77", "source": "dog", "reference": "atim", "segment": "development", "difficulty": "1",
        "provenance": "elicited", "register": "", "context": "", "domain": "conv",
    })
    assert response.status_code == 302
    added = Entry.objects.get(version=public_version, entry_id="77")
    assert added.document == ('{"id": 77, "source": "dog", "reference": "atim", "segment": "development", '
                              '"difficulty": 1, "provenance": "elicited", "domain": "conv"}')


def test_entry_form_reports_duplicate_ids(client, curator, public_version):
    client.force_login(curator)
    response = client.post(f"/datasets/versions/{public_version.pk}/entries/new/", {
        "entry_id": "1", "source": "x", "reference": "y", "segment": "development", "provenance": "elicited",
    })
    assert response.status_code == 400 and b"duplicate id" in response.content


def test_curator_edits_entry_and_frozen_version_refuses(client, curator, public_version):
    client.force_login(curator)
    target = public_version.entries.get(entry_id="1")
    assert target.domain == "conv"
    data = {"entry_id": "1", "source": "edited", "reference": "r", "segment": "development", "provenance": "elicited"}
    assert client.post(f"/datasets/entries/{target.pk}/edit/", data).status_code == 302
    edited = Entry.objects.get(pk=target.pk)
    assert edited.source == "edited" and edited.domain == "" and '"domain"' not in edited.document
    freeze_version(version=public_version, actor=None)
    refused = client.post(f"/datasets/entries/{target.pk}/edit/", {**data, "source": "again"})
    assert refused.status_code == 400 and b"frozen" in refused.content
    assert Entry.objects.get(pk=target.pk).source == "edited"
    created = client.post(f"/datasets/versions/{public_version.pk}/next-version/", {"new_version": "1.1"})
    assert created.status_code == 302
    assert public_version.dataset.versions.filter(version="1.1", frozen_at__isnull=True).exists()


def test_speakers_cannot_edit(client, speaker, public_version):
    client.force_login(speaker)
    target = public_version.entries.get(entry_id="1")
    assert client.get(f"/datasets/entries/{target.pk}/edit/").status_code == 403
    assert client.get(f"/datasets/versions/{public_version.pk}/entries/new/").status_code == 403


def test_only_governance_publishes(client, steward, curator, governance_user):
    version = import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None).version
    grant_all_consents(version.dataset, governance_user)
    client.force_login(curator)
    assert client.post(f"/datasets/versions/{version.pk}/publication/", {"is_public": "1"}).status_code == 403
    client.force_login(governance_user)
    client.post(f"/datasets/versions/{version.pk}/publication/", {"is_public": "1"})
    version.dataset.refresh_from_db()
    assert version.dataset.is_public
    client.logout()
    assert client.get(f"/datasets/versions/{version.pk}/").status_code == 200


def test_download_button_serves_visible_entries(client, public_version, curator):
    anonymous = b"".join(client.get(f"/datasets/versions/{public_version.pk}/export.json").streaming_content)
    assert SECRET_MARK.encode() not in anonymous
    client.force_login(curator)
    response = client.get(f"/datasets/versions/{public_version.pk}/export.json")
    assert response["Content-Disposition"] == 'attachment; filename="test-en-crk-1.0.json"'
    assert SECRET_MARK.encode() in b"".join(response.streaming_content)


@pytest.mark.parametrize("size", [3, 80])
def test_page_queries_do_not_grow_with_data(client, steward, curator, django_assert_max_num_queries, size):
    for index in range(3):
        version = import_corpus(
            data=corpus_bytes([entry(n, difficulty=1 + n % 5) for n in range(size)],
                                                 id=f"set-{index}"),
            organization=steward,
            actor=None,
        ).version
        publish(version.dataset)
    client.force_login(curator)
    first = Entry.objects.filter(version=version).first()
    for url in ("/", "/datasets/", f"/datasets/versions/{version.pk}/", f"/datasets/versions/{version.pk}/entries/",
                f"/datasets/entries/{first.pk}/", "/accounts/profile/", f"/orgs/{steward.slug}/"):
        # 15: the version page reads the Local Contexts labels that apply to it.
        with django_assert_max_num_queries(15):
            assert client.get(url).status_code == 200, url


def test_invalid_filter_is_reported_and_valid_ones_still_apply(client, public_version):
    url = f"/datasets/versions/{public_version.pk}/entries/"
    page = client.get(url, {"segment": "diagnostic", "difficulty": "hard"})
    assert page.context["page"].paginator.count == 1
    assert b"Select a valid choice" in page.content


def test_downloads_are_never_cached_by_proxies(client, public_version):
    response = client.get(f"/datasets/versions/{public_version.pk}/export.json")
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_entry_form_keeps_leading_zero_ids_as_text(client, curator, public_version):
    client.force_login(curator)
    data = {"entry_id": "007", "source": "s", "reference": "r", "segment": "development", "provenance": "elicited"}
    assert client.post(f"/datasets/versions/{public_version.pk}/entries/new/", data).status_code == 302
    assert '"id": "007"' in Entry.objects.get(version=public_version, entry_id="007").document
    duplicate = client.post(f"/datasets/versions/{public_version.pk}/entries/new/", data)
    assert b"another entry of this version already uses it" in duplicate.content
