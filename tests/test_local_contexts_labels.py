"""Local Contexts TK/BC labels and notices (docs/labels.md): attaching them, the community's translations in the
reader's language, Hub project import (and its malformed files), the block restrictive labels put on public export
and release until a release decision of exactly those labels executes, where labels show, and the background sync
from the Hub (only its HTTP call is replaced)."""

import copy
import io
import json
import urllib.error

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import translation

from corpus import decisions as corpus_decisions
from corpus import label_selectors, label_services
from corpus.label_selectors import LabelReleaseRequired, release_block
from corpus.local_contexts import LabelError
from corpus.models import CulturalLabel, CulturalLabelTranslation, LabelRelease, LocalContextsProject
from corpus.services import import_corpus, set_dataset_public
from governance.models import Decision, DecisionPolicy, DecisionState
from leaderboard.services import submit_run_card
from organizations.models import AuditAction, AuditEvent

from .cards import body, make_card
from .conftest import corpus_bytes, entries_of, entry, member, mixed_entries, publish, shared_fixture

pytestmark = pytest.mark.django_db

SECRET_SACRED_TEXT = "These recordings hold ceremonies; they stay with the community & its keepers."


def hub_project(**changes) -> dict:
    """A project as the Local Contexts Hub API v2 answers `GET /projects/<unique_id>/` (written for these tests)."""
    project = {
        "unique_id": "5f0c8b1e-0000-4000-8000-00000000c0de",
        "project_page": "https://localcontextshub.org/projects/5f0c8b1e-0000-4000-8000-00000000c0de",
        "title": "Nehiyawewin recordings",
        "notice": [{"notice_type": "attribution_incomplete", "name": "Attribution Incomplete",
                    "default_text": "Collections and items here have incomplete, inaccurate or missing attribution.",
                    "img_url": "https://example.org/notice.png", "svg_url": None, "translations": []}],
        "bc_labels": [{
            "unique_id": "bc-0001", "name": "BC Provenance (BC P)", "label_type": "provenance",
            "language_tag": "en", "language": "English",
            "label_text": "The Steward Nation is named with this data in every use.",
            "img_url": "https://example.org/bc.png", "svg_url": None,
            "community": {"id": 7, "name": "Steward Nation"}, "translations": [],
        }],
        "tk_labels": [{
            "unique_id": "tk-0001", "name": "TK Secret / Sacred (TK SS)", "label_type": "secret_sacred",
            "language_tag": "en", "language": "English", "label_text": SECRET_SACRED_TEXT,
            "img_url": "https://example.org/tk.png", "svg_url": None,
            "community": {"id": 7, "name": "Steward Nation"},
            "translations": [{"translated_name": "TK Secret / Sacré", "language_tag": "fr", "language": "French",
                              "translated_text": "Ces enregistrements sont cérémoniels ; ils restent chez nous."}],
        }],
    }
    project.update(changes)
    return project


def hub_bytes(project: dict) -> bytes:
    return json.dumps(project, ensure_ascii=False).encode("utf-8")


@shared_fixture
def version(steward):
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    publish(version.dataset)
    return version


def attach(user, on, code="tk_community_use_only", **fields):
    """Attach a label to the dataset of the version `on` (to one version when `version=` is given)."""
    fields.setdefault("text", "For the community's own use.")
    return label_services.attach_label(actor=user, dataset=on.dataset, label_type_code=code, **fields)


# --- attaching ------------------------------------------------------------------------------------------

def test_governance_attaches_a_label_with_the_communitys_text(version, governance_user, curator):
    label = attach(governance_user, version, community="Steward Nation", language="crk")
    assert label.name == "TK Community Use Only" and label.restrictive is True, "restrictive by its type's default"
    assert attach(governance_user, version, "bc_provenance").restrictive is False
    assert attach(governance_user, version, "tk_attribution", restrictive=True).restrictive is True, \
        "the community decides per label"
    event = AuditEvent.objects.filter(action=AuditAction.DATASET_LABELS_CHANGED).first()
    assert event is not None and event.details["change"] == "attached"
    with pytest.raises(label_services.NotAllowed):
        attach(curator, version, "tk_seasonal")
    assert CulturalLabel.objects.count() == 3


def test_unknown_type_markup_and_duplicates_are_refused_and_nothing_is_stored(client, version, governance_user):
    client.force_login(governance_user)
    url = f"/datasets/d/{version.dataset.identifier}/labels/"
    response = client.post(url, {"action": "attach", "label_type": "tk_made_up", "text": "x", "restrictive": "default"})
    assert response.status_code == 400
    assert "Unknown label type “tk_made_up”" in response.content.decode()
    response = client.post(url, {"action": "attach", "label_type": "tk_seasonal", "restrictive": "default",
                                 "text": "Only in winter <script>alert(1)</script>"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "holds markup" in page and "label text is plain text" in page and "<script>alert" not in page
    with pytest.raises(LabelError) as refused:
        attach(governance_user, version, "tk_seasonal", translations=[
            label_services.TranslationInput(language="fr", text="<b>hiver</b>")])
    assert refused.value.field == "translations[0].text"
    assert CulturalLabel.objects.count() == 0
    attach(governance_user, version, "tk_seasonal")
    response = client.post(url, {"action": "attach", "label_type": "tk_seasonal", "text": "again",
                                 "restrictive": "default"})
    assert response.status_code == 409 and "already attached" in response.content.decode()
    assert CulturalLabel.objects.count() == 1
    response = client.post(url, {"action": "attach", "label_type": "tk_secret_sacred", "text": "Sacred.",
                                 "restrictive": "default"})
    assert response.status_code == 302
    page = client.get(url).content.decode()
    assert "“TK Secret / Sacred”" in page and "Propose the release decision for these labels" in page


def test_a_label_of_a_version_applies_to_that_version_only(steward, version, governance_user):
    second = import_corpus(data=corpus_bytes(mixed_entries(), version="2.0"), organization=steward,
                           actor=None).version
    attach(governance_user, version, "tk_seasonal", version=second)
    assert [label.label_type for label in label_selectors.labels_of(version.dataset, second)] == ["tk_seasonal"]
    assert list(label_selectors.labels_of(version.dataset, version)) == []
    with pytest.raises(LabelError):
        other = import_corpus(data=corpus_bytes(mixed_entries(), id="other-set"), organization=steward,
                              actor=None).version
        attach(governance_user, version, "tk_clan", version=other)


# --- translations -----------------------------------------------------------------------------------------

def test_the_reader_sees_the_communitys_translation_in_their_language_else_its_own_text(version, governance_user):
    label = attach(governance_user, version, "tk_seasonal", name="TK Seasonal", text="Shared in winter only.",
                   language="en")
    label_services.translate_label(actor=governance_user, label=label, translation=label_services.TranslationInput(
        language="fr", name="TK Saisonnier", text="Partagé en hiver seulement."))
    label = label_selectors.labels_of(version.dataset).get()
    with translation.override("fr-ca"):
        shown = label_selectors.shown_label(label)
        assert (shown.name, shown.text, shown.translated) == ("TK Saisonnier", "Partagé en hiver seulement.", True)
    with translation.override("en"):
        assert label_selectors.shown_label(label).text == "Shared in winter only."
    assert label_selectors.shown_label(label, "crk").text == "Shared in winter only.", \
        "no translation in the reader's language: the community's own text, never a machine translation"
    cree = attach(governance_user, version, "bc_provenance", text="ᓀᐦᐃᔭᐍᐏᐣ", language="crk")
    label_services.translate_label(actor=governance_user, label=cree, translation=label_services.TranslationInput(
        language="en", text="Named with the Steward Nation."))
    cree = CulturalLabel.objects.get(pk=cree.pk)
    assert label_selectors.shown_label(cree, "crk").text == "ᓀᐦᐃᔭᐍᐏᐣ", "its own language comes first"
    assert label_selectors.shown_label(cree, "fr-ca").text == "ᓀᐦᐃᔭᐍᐏᐣ"


def test_the_version_page_shows_labels_in_the_readers_language(client, version, governance_user):
    label = attach(governance_user, version, "tk_attribution", name="TK Attribution", text="Name us & our elders.",
                   language="en", community="Steward Nation")
    label_services.translate_label(actor=governance_user, label=label, translation=label_services.TranslationInput(
        language="fr", name="TK Attribution (fr)", text="Nommez-nous, nous et nos aînés."))
    page = client.get(f"/datasets/versions/{version.pk}/").content.decode()
    assert "TK Attribution" in page and "Name us &amp; our elders." in page and "Steward Nation" in page
    client.cookies["champollion_language"] = "fr-ca"
    page = client.get(f"/datasets/versions/{version.pk}/").content.decode()
    assert "Nommez-nous, nous et nos aînés." in page and "Name us" not in page


# --- Hub import ---------------------------------------------------------------------------------------------

def test_a_hub_project_file_imports_its_labels_notices_and_translations(version, governance_user):
    project = label_services.import_hub_project(actor=governance_user, dataset=version.dataset,
                                                data=hub_bytes(hub_project()))
    assert (project.unique_id, project.title) == ("5f0c8b1e-0000-4000-8000-00000000c0de", "Nehiyawewin recordings")
    labels = {label.label_type: label for label in project.labels.all()}
    assert set(labels) == {"tk_secret_sacred", "bc_provenance", "notice_attribution_incomplete"}
    sacred = labels["tk_secret_sacred"]
    assert sacred.restrictive and sacred.community == "Steward Nation" and sacred.text == SECRET_SACRED_TEXT
    assert sacred.translations.get().language == "fr"
    assert labels["notice_attribution_incomplete"].text.startswith("Collections and items"), "default_text read"
    # The community decides: not restrictive. A new import keeps that, updates texts and drops labels gone.
    label_services.set_label_restrictive(actor=governance_user, label=sacred, restrictive=False)
    changed = hub_project(bc_labels=[])
    changed["tk_labels"][0]["label_text"] = "Ceremonial recordings."
    label_services.import_hub_project(actor=governance_user, dataset=version.dataset, data=hub_bytes(changed))
    assert set(CulturalLabel.objects.values_list("label_type", flat=True)) == {
        "tk_secret_sacred", "notice_attribution_incomplete"}
    sacred = CulturalLabel.objects.get(label_type="tk_secret_sacred")
    assert sacred.text == "Ceremonial recordings." and sacred.restrictive is False and sacred.pk == labels[
        "tk_secret_sacred"].pk


def wrong_type():
    project = hub_project()
    project["tk_labels"].append(copy.deepcopy(project["tk_labels"][0]) | {"label_type": "made_up"})
    return project


def twice():
    project = hub_project()
    project["tk_labels"].append(copy.deepcopy(project["tk_labels"][0]) | {"unique_id": "tk-0002"})
    return project


def missing_text():
    project = hub_project()
    del project["bc_labels"][0]["label_text"]
    return project


def marked_up_translation():
    project = hub_project()
    project["tk_labels"][0]["translations"][0]["translated_text"] = "<p>balisé</p>"
    return project


@pytest.mark.parametrize(("data", "named"), [
    (b'{"unique_id": "x", "tk_labels": [', "line 1, column"),
    (b"\xff\xfe", "not UTF-8"),
    (hub_bytes(wrong_type()), "tk_labels[1].label_type: unknown label type “made_up”"),
    (hub_bytes(missing_text()), "bc_labels[0].label_text is empty"),
    (hub_bytes(twice()), "tk_labels[1]: the project lists TK Secret / Sacred again (first at tk_labels[0])"),
    (hub_bytes(marked_up_translation()), "tk_labels[0].translations[0].translated_text holds markup"),
    (hub_bytes(hub_project(tk_labels={"label_type": "clan"})), "tk_labels: expected a list, found dict"),
    (hub_bytes(hub_project(unique_id=None)), "unique_id is empty"),
    (hub_bytes(hub_project(unique_id=7)), "unique_id must be text"),
    (hub_bytes({"data": [hub_project(), hub_project()]}), "data: expected exactly one project, found 2"),
    (hub_bytes([1, 2]), "expected a Local Contexts Hub project object, found list"),
])
def test_a_malformed_hub_file_names_the_path_and_stores_nothing(client, version, governance_user, data, named):
    with pytest.raises(LabelError) as refused:
        label_services.import_hub_project(actor=governance_user, dataset=version.dataset, data=data)
    assert named in refused.value.message
    assert not CulturalLabel.objects.exists() and not LocalContextsProject.objects.exists()
    client.force_login(governance_user)
    response = client.post(f"/datasets/d/{version.dataset.identifier}/labels/", {
        "action": "import_hub", "hub-project_file": io.BytesIO(data)})
    assert response.status_code == 400 and named in response.content.decode()
    assert not CulturalLabel.objects.exists()


def test_the_hub_answer_wrapped_in_data_imports_too(version, governance_user):
    project = label_services.import_hub_project(actor=governance_user, dataset=version.dataset,
                                                data=hub_bytes({"data": [hub_project()]}))
    assert project.labels.count() == 3


# --- the block of restrictive labels ---------------------------------------------------------------------

def test_a_restrictive_label_blocks_every_public_export_with_a_403_naming_it(client, version, governance_user, curator):
    attach(governance_user, version, "tk_secret_sacred", name="TK Secret / Sacred")
    export = f"/datasets/versions/{version.pk}/export.json"
    for url in (export, f"{export}?public=1"):
        response = client.get(url)
        assert response.status_code == 403
        page = response.content.decode()
        assert "“TK Secret / Sacred”" in page and "Release a dataset under its restrictive labels" in page
    for url in (f"/api/v1/dataset-versions/{version.pk}/export/", f"/api/v1/dataset-versions/{version.pk}/public/"):
        response = client.get(url)
        assert response.status_code == 403, url
        assert "TK Secret / Sacred" in response.json()["detail"] and response.json()["field"] == "labels"
    client.force_login(curator)
    assert client.get(f"/datasets/versions/{version.pk}/export.json").status_code == 200, \
        "the steward's own readers still export"


def test_a_restrictive_label_blocks_publication_until_its_release_decision(steward, governance_user):
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    dataset = version.dataset
    from .conftest import grant_all_consents

    grant_all_consents(dataset)
    attach(governance_user, version, "tk_women_restricted")
    with pytest.raises(LabelReleaseRequired) as refused:
        corpus_decisions.propose_publication(actor=governance_user, dataset=dataset, is_public=True)
    assert "TK Women Restricted" in refused.value.message
    with pytest.raises(LabelReleaseRequired):
        set_dataset_public(actor=governance_user, dataset=dataset, is_public=True)
    dataset.refresh_from_db()
    assert dataset.is_public is False
    decision = corpus_decisions.propose_label_release(actor=governance_user, dataset=dataset)
    assert decision.state == DecisionState.EXECUTED, "k = 1: one click"
    release = LabelRelease.objects.get()
    assert [item["type"] for item in release.labels] == ["tk_women_restricted"]
    assert release_block(dataset) is None
    corpus_decisions.propose_publication(actor=governance_user, dataset=dataset, is_public=True)
    dataset.refresh_from_db()
    assert dataset.is_public is True
    with pytest.raises(PermissionError):
        release.delete()
    if connection.vendor == "postgresql":  # the append-only trigger (common.append_only) exists there only
        with connection.cursor() as cursor, pytest.raises(IntegrityError), transaction.atomic():
            cursor.execute("UPDATE corpus_labelrelease SET label_set_sha256 = %s", ["0" * 64])


def test_an_export_opens_once_the_release_of_exactly_those_labels_executes_and_any_change_reopens_it(
        client, version, governance_user):
    label = attach(governance_user, version, "tk_community_use_only", text="Community use only.")
    attach(governance_user, version, "tk_attribution", text="Name us.")
    export = f"/datasets/versions/{version.pk}/export.json"
    corpus_decisions.propose_label_release(actor=governance_user, dataset=version.dataset)
    assert client.get(export).status_code == 200
    # A label that is not restrictive changes nothing.
    label_services.translate_label(actor=governance_user, label=CulturalLabel.objects.get(label_type="tk_attribution"),
                                   translation=label_services.TranslationInput(language="fr", text="Nommez-nous."))
    assert client.get(export).status_code == 200
    # Every change of a restrictive one reopens the block: its text's translation, a new one, marking one.
    changes = [
        lambda: label_services.translate_label(actor=governance_user, label=label,
                                               translation=label_services.TranslationInput(language="fr",
                                                                                           text="Usage interne.")),
        lambda: attach(governance_user, version, "tk_men_restricted"),
        lambda: label_services.set_label_restrictive(
            actor=governance_user, label=CulturalLabel.objects.get(label_type="tk_attribution"), restrictive=True),
        lambda: label_services.remove_label(actor=governance_user, label=label),
    ]
    for change in changes:
        change()
        response = client.get(export)
        assert response.status_code == 403
        assert "The labels changed since the last release decision" in response.content.decode()
        corpus_decisions.propose_label_release(actor=governance_user, dataset=version.dataset)
        assert client.get(export).status_code == 200
    assert LabelRelease.objects.count() == 5


def test_with_k_2_the_release_waits_and_a_label_change_makes_it_stale(version, governance_user, steward):
    member("gov2@steward.example", steward, "governance")
    member("gov3@steward.example", steward, "governance")
    DecisionPolicy.objects.create(organization=steward, kind="corpus.label_release", threshold=2)
    DecisionPolicy.objects.create(organization=steward, kind="corpus.publication", threshold=2)
    label = attach(governance_user, version, "tk_secret_sacred")
    decision = corpus_decisions.propose_label_release(actor=governance_user, dataset=version.dataset)
    assert decision.state == DecisionState.OPEN and release_block(version.dataset) is not None
    assert decision.payload["labels"][0]["id"] == str(label.public_id)
    assert len(decision.payload["labels"][0]["text_sha256"]) == 64
    label_services.translate_label(actor=governance_user, label=label, translation=label_services.TranslationInput(
        language="fr", text="Sacré."))
    decision.refresh_from_db()
    assert decision.state == DecisionState.WITHDRAWN and "restrictive labels changed" in decision.outcome_note
    with pytest.raises(label_services.LabelsChanged):
        label_services.check_release(version.dataset, decision.payload)
    # Restricting stays fast: withdrawing from public view takes one signature at once, labels or not.
    withdrawal = corpus_decisions.propose_publication(actor=governance_user, dataset=version.dataset, is_public=False)
    assert withdrawal.state == DecisionState.EXECUTED
    version.dataset.refresh_from_db()
    assert version.dataset.is_public is False
    assert Decision.objects.filter(kind="corpus.label_release", state=DecisionState.OPEN).count() == 0


# --- where labels show --------------------------------------------------------------------------------------

def test_the_export_envelope_carries_the_sovereignty_block(client, version, governance_user, curator):
    label = attach(governance_user, version, "tk_attribution", text="Name the Steward Nation.", language="en",
                   community="Steward Nation")
    label_services.translate_label(actor=governance_user, label=label, translation=label_services.TranslationInput(
        language="fr", text="Nommez la Nation."))
    attach(governance_user, version, "bc_provenance", text="Provenance.")
    attach(governance_user, version, "notice_open_to_collaborate", text="Open to collaboration.")
    document = json.loads(b"".join(client.get(f"/datasets/versions/{version.pk}/export.json").streaming_content))
    block = document["dataset"]["sovereignty"]
    assert [item["labelType"] for item in block["tkLabels"]] == ["attribution"]
    tk = block["tkLabels"][0]
    assert (tk["name"], tk["text"], tk["community"], tk["restrictive"]) == (
        "TK Attribution", "Name the Steward Nation.", "Steward Nation", False)
    assert tk["translations"] == [{"language": "fr", "name": "", "text": "Nommez la Nation."}]
    assert [item["type"] for item in block["bcLabels"]] == ["bc_provenance"]
    assert [item["type"] for item in block["notices"]] == ["notice_open_to_collaborate"]
    assert [entry["id"] for entry in document["entries"]] == [1, 2], "the public sees the public entries only"
    api = json.loads(b"".join(client.get(f"/api/v1/dataset-versions/{version.pk}/export/").streaming_content))
    assert api["dataset"]["sovereignty"] == block
    # The public download is the pinned file: byte-stable, no block.
    public = b"".join(client.get(f"/datasets/versions/{version.pk}/export.json?public=1").streaming_content)
    assert b"sovereignty" not in public
    # The steward's export, re-imported, is the same version.
    client.force_login(curator)
    exported = b"".join(client.get(f"/datasets/versions/{version.pk}/export.json").streaming_content)
    assert b'"sovereignty": {"tkLabels"' in exported
    outcome = import_corpus(data=exported, organization=version.dataset.organization, actor=None)
    assert outcome.created is False and outcome.version == version


def test_the_api_gives_labels_with_the_text_shown_in_the_requests_language(client, version, governance_user):
    label = attach(governance_user, version, "tk_seasonal", text="Winter only.", language="en")
    label_services.translate_label(actor=governance_user, label=label, translation=label_services.TranslationInput(
        language="fr", name="TK Saisonnier", text="L'hiver seulement."))
    dataset = client.get(f"/api/v1/datasets/{version.dataset.identifier}/").json()
    assert dataset["labels"][0]["text"] == "Winter only." and dataset["labels"][0]["shown"]["text"] == "Winter only."
    assert dataset["label_release_required"] is False
    french = client.get(f"/api/v1/dataset-versions/{version.pk}/", HTTP_ACCEPT_LANGUAGE="fr-CA").json()
    assert french["labels"][0]["shown"] == {"name": "TK Saisonnier", "text": "L'hiver seulement.", "language": "fr"}
    assert french["labels"][0]["translations"][0]["language"] == "fr"
    attach(governance_user, version, "tk_secret_sacred")
    assert client.get(f"/api/v1/datasets/{version.dataset.identifier}/").json()["label_release_required"] is True


def test_leaderboard_rows_show_the_labels_of_their_data(client, steward, speaker, governance_user):
    entries = [entry(n, "development", difficulty=1, domain="medical", provenance="elicited") for n in range(1, 5)]
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    submit_run_card(body=body(make_card(version, entries_of(version))), actor=speaker)
    rows = client.get("/api/v1/leaderboard/", {"standard": "legacy-composite"}).json()["results"]
    assert rows[0]["labels"] == []
    label = attach(governance_user, version, "tk_attribution", name="TK Attribution", text="Name us.", language="en")
    label_services.translate_label(actor=governance_user, label=label, translation=label_services.TranslationInput(
        language="fr", name="TK Attribution (nommez-nous)", text="Nommez-nous."))
    rows = client.get("/api/v1/leaderboard/", {"standard": "legacy-composite"}).json()["results"]
    assert [item["name"] for item in rows[0]["labels"]] == ["TK Attribution"], "the cached rows followed the change"
    page = client.get("/leaderboard/?standard=legacy-composite").content.decode()
    assert "Local Contexts labels of its data" in page and 'title="Name us."' in page
    client.cookies["champollion_language"] = "fr-ca"
    page = client.get("/leaderboard/?standard=legacy-composite").content.decode()
    assert "TK Attribution (nommez-nous)" in page


def test_the_labels_of_one_version_are_read_as_those_of_several(steward, version, governance_user,
                                                                django_assert_num_queries):
    """A leaderboard of one version reads its labels through a compiled query: the same documents, translations
    included, as the query of several versions gives, in two queries (labels, translations)."""
    second = import_corpus(data=corpus_bytes(mixed_entries(), version="2.0"), organization=steward,
                           actor=None).version
    attach(governance_user, version, "tk_seasonal", version=second)
    clan = attach(governance_user, version, "tk_clan", name="TK Clan", language="en")
    label_services.translate_label(actor=governance_user, label=clan, translation=label_services.TranslationInput(
        language="fr", name="TK Clan (fr)", text="Pour le clan."))
    dataset = version.dataset_id
    together = label_selectors.labels_by_version({version.pk: dataset, second.pk: dataset})
    assert [item["type"] for item in together[second.pk]] == ["tk_clan", "tk_seasonal"]
    assert [item["type"] for item in together[version.pk]] == ["tk_clan"]
    assert together[version.pk][0]["translations"] == [{"language": "fr", "name": "TK Clan (fr)",
                                                        "text": "Pour le clan."}]
    for one in (version, second):
        with django_assert_num_queries(2):
            assert label_selectors.labels_by_version({one.pk: dataset}) == {one.pk: together[one.pk]}


def test_pages_with_labels_keep_their_queries_bounded(client, version, governance_user,
                                                      django_assert_max_num_queries):
    label_services.import_hub_project(actor=governance_user, dataset=version.dataset, data=hub_bytes(hub_project()))
    for code in ("tk_seasonal", "tk_clan", "bc_clan"):
        attach(governance_user, version, code)
    client.force_login(governance_user)
    with django_assert_max_num_queries(40):
        assert client.get(f"/datasets/d/{version.dataset.identifier}/labels/").status_code == 200
    with django_assert_max_num_queries(40):
        assert client.get(f"/datasets/versions/{version.pk}/").status_code == 200


# --- the Hub sync -------------------------------------------------------------------------------------------

class FakeHubResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_with_an_api_key_the_worker_syncs_and_pages_show_the_cached_labels_with_last_synced(
        client, settings, monkeypatch, version, governance_user, django_capture_on_commit_callbacks, eager_tasks):
    settings.LOCAL_CONTEXTS_API_KEY = "hub-key-123"
    settings.LOCAL_CONTEXTS_API_URL = "https://hub.example/api/v2/"
    asked = []
    answer = hub_project()
    answer["tk_labels"][0]["label_text"] = "As the Hub has it now."

    def urlopen(request, timeout):
        asked.append((request.full_url, request.get_header("X-api-key"), timeout))
        return FakeHubResponse(hub_bytes(answer))

    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    with django_capture_on_commit_callbacks(execute=True):
        project = label_services.import_hub_project(actor=governance_user, dataset=version.dataset,
                                                    data=hub_bytes(hub_project()))
    assert asked == [("https://hub.example/api/v2/projects/5f0c8b1e-0000-4000-8000-00000000c0de/", "hub-key-123", 20)]
    project.refresh_from_db()
    assert project.synced_at is not None and project.sync_problem == ""
    assert CulturalLabel.objects.get(label_type="tk_secret_sacred").text == "As the Hub has it now."
    # The Hub unreachable: the cached labels stay, the page says when they were last synced.
    synced_at = project.synced_at

    def unreachable(request, timeout):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setattr("urllib.request.urlopen", unreachable)
    from corpus.tasks import sync_hub_projects

    assert sync_hub_projects.delay().get() == 0
    project.refresh_from_db()
    assert project.synced_at == synced_at and "no route to host" in project.sync_problem
    assert CulturalLabel.objects.get(label_type="tk_secret_sacred").text == "As the Hub has it now."
    page = client.get(f"/datasets/versions/{version.pk}/").content.decode()
    assert "As the Hub has it now." in page and "last synced" in page
    client.force_login(governance_user)
    page = client.get(f"/datasets/d/{version.dataset.identifier}/labels/").content.decode()
    assert "last sync failed" in page and "no route to host" in page


def test_a_malformed_hub_answer_keeps_the_cached_labels(settings, monkeypatch, version, governance_user):
    project = label_services.import_hub_project(actor=governance_user, dataset=version.dataset,
                                                data=hub_bytes(hub_project()))
    settings.LOCAL_CONTEXTS_API_KEY = "hub-key-123"
    monkeypatch.setattr("urllib.request.urlopen", lambda request, timeout: FakeHubResponse(hub_bytes(wrong_type())))
    assert label_services.sync_hub_project(project_id=project.pk) == "refused"
    project.refresh_from_db()
    assert "tk_labels[1].label_type" in project.sync_problem and project.synced_at is None
    assert CulturalLabel.objects.filter(project=project).count() == 3
    assert CulturalLabelTranslation.objects.count() == 1


def test_without_a_key_nothing_is_read_from_the_network(monkeypatch, version, governance_user, eager_tasks):
    def urlopen(*args, **kwargs):
        raise AssertionError("the site works offline")

    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    label_services.import_hub_project(actor=governance_user, dataset=version.dataset, data=hub_bytes(hub_project()))
    from corpus.tasks import sync_hub_projects

    assert sync_hub_projects.delay().get() == 0
