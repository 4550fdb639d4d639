"""Governance of a corpus's segments (benchmark specification §2.3, §9.2, §9.3): the held_out segment is reserved until
the steward's governance staff activate it; a rotation moves entries between segments into a new version whose note
says only that one happened; and every change of a corpus is in the steward's audit log, with counts and never a
secret text."""

import hashlib
import inspect
import json
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from common.errors import ErrorKind, NotAllowed
from corpus import bulk
from corpus.models import DatasetVersion, Entry
from corpus.selectors import ROTATION_NOTE, export_chunks
from corpus.services import (
    VersionRefused,
    activate_held_out,
    add_entry,
    create_next_version,
    freeze_version,
    import_corpus,
    rotate_segments,
    update_entry,
)
from organizations.audit import verify_chain
from organizations.models import AuditAction, AuditEvent, chain_of

from .conftest import SECRET_MARK, corpus_bytes, entry, member, password_only_login

pytestmark = pytest.mark.django_db

ALL_SEGMENTS = {"development": 1, "diagnostic": 1, "gold_standard": 1, "held_out": 1}


def events(action: AuditAction) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action).order_by("id"))


def assert_no_entry_text() -> None:
    """No audit event holds a text of an entry: sources, references and notes carry SECRET_MARK (secret segments)
    or `public-` (public ones) in these tests."""
    for event in AuditEvent.objects.all():
        details = json.dumps(event.details, ensure_ascii=False)
        assert SECRET_MARK not in details and "public-" not in details, (event.action, details)


def version_url(version, suffix: str = "") -> str:
    return f"/datasets/versions/{version.pk}/{suffix}"


def stored(version) -> list[tuple[str, str, str]]:
    return list(version.entries.order_by("position").values_list("entry_id", "segment", "document"))


@pytest.mark.parametrize("action", [activate_held_out, rotate_segments])
def test_the_new_actions_are_keyword_only_with_a_required_actor(action):
    parameters = inspect.signature(action).parameters
    assert {p.kind for p in parameters.values()} == {inspect.Parameter.KEYWORD_ONLY}
    assert parameters["actor"].default is inspect.Parameter.empty


# ---------------------------------------------------------------- held_out activation


def test_governance_activates_the_held_out_segment_once_and_it_is_audited(public_version, governance_user):
    assert not public_version.held_out_active
    activate_held_out(actor=governance_user, version=public_version)
    public_version.refresh_from_db()
    assert public_version.held_out_active and public_version.held_out_activated_by == governance_user
    [event] = events(AuditAction.HELD_OUT_ACTIVATED)
    assert (event.actor, event.organization, event.object_id) == (
        governance_user, public_version.dataset.organization, str(public_version.pk))
    assert event.details == {"dataset": "test-en-crk", "version": "1.0", "entries": 4, "segments": ALL_SEGMENTS,
                             "held_out": 1}

    with pytest.raises(VersionRefused, match="already active") as refused:
        activate_held_out(actor=governance_user, version=public_version)
    assert (refused.value.field, refused.value.kind) == ("held_out", ErrorKind.CONFLICT)
    assert len(events(AuditAction.HELD_OUT_ACTIVATED)) == 1
    assert_no_entry_text()


def test_a_version_without_held_out_entries_is_not_activated(steward, governance_user):
    version = import_corpus(data=corpus_bytes([entry(1), entry(2, "gold_standard")]), organization=steward,
                            actor=None).version
    with pytest.raises(VersionRefused, match="activation of a segment with no entries") as refused:
        activate_held_out(actor=governance_user, version=version)
    assert refused.value.field == "held_out" and "held_out" in refused.value.message
    version.refresh_from_db()
    assert not version.held_out_active and not events(AuditAction.HELD_OUT_ACTIVATED)


@pytest.mark.parametrize("who", ["curator", "speaker", "other_governance"])
def test_only_the_stewards_governance_staff_activate(request, public_version, other_org, who):
    user = (member("gov@other.example", other_org, "governance") if who == "other_governance"
            else request.getfixturevalue(who))
    with pytest.raises(NotAllowed, match="governance staff"):
        activate_held_out(actor=user, version=public_version)
    public_version.refresh_from_db()
    assert not public_version.held_out_active and not events(AuditAction.HELD_OUT_ACTIVATED)


def test_a_frozen_version_is_activated_and_no_entry_changes(public_version, governance_user):
    freeze_version(version=public_version, actor=None)
    public_version.refresh_from_db()
    before = (public_version.sha256, public_version.public_sha256, stored(public_version))
    activate_held_out(actor=governance_user, version=public_version)
    public_version.refresh_from_db()
    assert public_version.is_frozen and public_version.held_out_active
    assert (public_version.sha256, public_version.public_sha256, stored(public_version)) == before


def test_the_version_page_says_whether_held_out_is_scorable(client, public_version, governance_user):
    page = client.get(version_url(public_version)).content.decode()
    assert "reserved: run cards may not score its entries" in unescape(page)
    assert version_url(public_version, "held-out/activate/") not in page, "the public gets no button"
    assert client.get(f"/api/v1/dataset-versions/{public_version.pk}/").json()["held_out_active"] is False
    activate_held_out(actor=governance_user, version=public_version)
    public_version.refresh_from_db()
    page = client.get(version_url(public_version)).content.decode()
    assert f"active since {public_version.held_out_activated_at:%Y-%m-%d}: run cards may score its entries" in page
    assert client.get(f"/api/v1/dataset-versions/{public_version.pk}/").json()["held_out_active"] is True


def test_governance_staff_confirm_then_activate_on_the_page(client, public_version, governance_user):
    client.force_login(governance_user)
    url = version_url(public_version, "held-out/activate/")
    version_page = client.get(version_url(public_version)).content.decode()
    assert url in version_page and "Its 1 held-out entry is reserved" in version_page
    confirmation = client.get(url)
    assert confirmation.status_code == 200
    assert "Run cards may score the 1 held-out entry of test-en-crk 1.0" in confirmation.content.decode()
    public_version.refresh_from_db()
    assert not public_version.held_out_active, "showing the confirmation activates nothing"

    response = client.post(url)
    assert response.status_code == 302 and response["Location"] == version_url(public_version)
    page = client.get(response["Location"]).content.decode()
    assert "The held_out segment of test-en-crk 1.0 is active" in page and url not in page
    again = client.post(url)
    assert again.status_code == 409 and "already active" in again.content.decode()
    assert len(events(AuditAction.HELD_OUT_ACTIVATED)) == 1


def test_a_version_without_held_out_entries_offers_no_activation(client, steward, governance_user):
    version = import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None).version
    client.force_login(governance_user)
    assert version_url(version, "held-out/activate/") not in client.get(version_url(version)).content.decode()
    refused = client.post(version_url(version, "held-out/activate/"))
    assert refused.status_code == 409 and "activation of a segment with no entries" in refused.content.decode()


def test_the_activation_page_is_for_governance_staff_with_the_second_factor(client, public_version, curator,
                                                                            speaker, governance_user):
    url = version_url(public_version, "held-out/activate/")
    assert client.post(url).status_code == 302  # to the sign-in page
    for user in (curator, speaker):
        client.force_login(user)
        assert client.get(url).status_code == 403 and client.post(url).status_code == 403
        assert url not in client.get(version_url(public_version)).content.decode()
    password_only_login(client, governance_user)
    refused = client.post(url)
    assert refused.status_code == 403 and b"two-factor" in refused.content.lower()
    public_version.refresh_from_db()
    assert not public_version.held_out_active and not events(AuditAction.HELD_OUT_ACTIVATED)


# ---------------------------------------------------------------- rotation


def test_a_rotation_moves_entries_into_a_new_version_in_one_step(public_version, governance_user):
    activate_held_out(actor=governance_user, version=public_version)
    before = stored(public_version)
    successor = rotate_segments(actor=governance_user, version=public_version, new_version="1.1",
                                moves={"1": "held_out", "3": "diagnostic", "4": "development"})

    assert stored(public_version) == before, "the rotated version does not change"
    assert dict(successor.entries.values_list("entry_id", "segment")) == {
        "1": "held_out", "2": "diagnostic", "3": "diagnostic", "4": "development"}
    for (entry_id, _, old), (_, segment, new) in zip(before, stored(successor), strict=True):
        old_object, new_object = json.loads(old), json.loads(new)
        assert list(new_object) == list(old_object), f"entry {entry_id} keeps its key order"
        assert new_object == {**old_object, "segment": segment}
    exported = b"".join(export_chunks(governance_user, successor))
    assert [(e["id"], e["segment"]) for e in json.loads(exported)["entries"]] == [
        (1, "held_out"), (2, "diagnostic"), (3, "diagnostic"), (4, "development")]
    assert successor.sha256 == hashlib.sha256(exported).hexdigest() and successor.sha256_source == "content"
    assert json.loads(successor.envelope)["version"] == "1.1"
    assert successor.note == ROTATION_NOTE and not any(character.isdigit() for character in successor.note)
    assert not successor.held_out_active, "entries moved into held_out are reserved until activated again"

    [event] = events(AuditAction.SEGMENTS_ROTATED)
    assert (event.actor, event.organization, event.object_id) == (
        governance_user, public_version.dataset.organization, str(successor.pk))
    assert event.details == {
        "dataset": "test-en-crk", "version": "1.1", "from_version": "1.0", "entries": 4, "moved": 3,
        "moves": {"development→held_out": 1, "gold_standard→diagnostic": 1, "held_out→development": 1},
        "segments": {"development": 1, "diagnostic": 2, "held_out": 1}}
    assert not events(AuditAction.DATASET_VERSION_CREATED), "one event for the one step"
    assert_no_entry_text()


def test_an_entry_without_a_segment_gets_one_and_the_hashes_follow(steward, governance_user):
    version = import_corpus(data=corpus_bytes([{"id": 1, "source": "a", "reference": "b"}, entry(2)]),
                            organization=steward, actor=None).version
    assert version.public_sha256 == version.sha256, "nothing secret yet"
    successor = rotate_segments(actor=governance_user, version=version, new_version="1.1",
                                moves={"1": "gold_standard"})
    moved = json.loads(successor.entries.get(entry_id="1").document)
    assert list(moved) == ["id", "source", "reference", "segment"] and moved["segment"] == "gold_standard"
    assert successor.public_sha256 != successor.sha256, "a version holding a secret entry shows a keyed hash"
    assert successor.public_download_sha256 != version.public_download_sha256, "the public download lost entry 1"


@pytest.mark.parametrize(("new_version", "moves", "field", "message"), [
    ("1.1", {}, "moves", "Give at least one move: one line per entry, its id and the segment it moves to."),
    ("1.1", {"99": "held_out"}, "moves", "no entry has the id 99 in test-en-crk 1.0"),
    ("1.1", {"1": "gold"}, "moves",
     "entry 1: unknown segment 'gold'; expected one of: development, diagnostic, gold_standard, held_out"),
    ("1.1", {"1": "development"}, "moves",
     "entry 1 is already in development; leave it out or move it to another segment"),
    ("1.0", {"1": "held_out"}, "new_version", "Version '1.0' of test-en-crk already exists; choose another name."),
    ("", {"1": "held_out"}, "new_version", "The new version needs a name of at most 50 characters"),
    ("1.1\r\nX: y", {"1": "held_out"}, "new_version", "The new version needs a name of at most 50 characters"),
])
def test_a_bad_rotation_is_refused_naming_its_field_and_stores_nothing(public_version, governance_user, new_version,
                                                                      moves, field, message):
    counts = (DatasetVersion.objects.count(), Entry.objects.count())
    with pytest.raises(VersionRefused) as refused:
        rotate_segments(actor=governance_user, version=public_version, new_version=new_version, moves=moves)
    assert refused.value.field == field and refused.value.message.startswith(message)
    assert (DatasetVersion.objects.count(), Entry.objects.count()) == counts
    assert not events(AuditAction.SEGMENTS_ROTATED)


def test_every_problem_of_a_rotation_is_refused_at_once(public_version, governance_user):
    with pytest.raises(VersionRefused) as refused:
        rotate_segments(actor=governance_user, version=public_version, new_version="1.0",
                        moves={"99": "held_out", "1": "gold", "2": "diagnostic"})
    assert refused.value.problems == {
        "new_version": ["Version '1.0' of test-en-crk already exists; choose another name."],
        "moves": ["no entry has the id 99 in test-en-crk 1.0",
                  "entry 1: unknown segment 'gold'; expected one of: development, diagnostic, gold_standard, held_out",
                  "entry 2 is already in diagnostic; leave it out or move it to another segment"]}


@pytest.mark.parametrize("who", ["curator", "speaker"])
def test_only_governance_staff_rotate(request, public_version, who):
    with pytest.raises(NotAllowed):
        rotate_segments(actor=request.getfixturevalue(who), version=public_version, new_version="1.1",
                        moves={"1": "held_out"})
    assert DatasetVersion.objects.count() == 1


def test_the_rotation_page_shows_each_problem_beside_its_field_and_keeps_the_text(client, public_version,
                                                                                 governance_user):
    client.force_login(governance_user)
    url = version_url(public_version, "rotate-segments/")
    assert url in client.get(version_url(public_version)).content.decode()
    assert client.get(url).status_code == 200
    typed = "1 held_out\n99 development\n1 diagnostic\n2 gold\nnot-a-move\n\n3 GOLD_STANDARD\n"
    response = client.post(url, {"new_version": "1.0", "moves": typed})
    assert response.status_code == 400
    form = response.context["form"]
    assert form.errors["moves"] == [
        "line 5: expected “<entry id> <segment>”, found 'not-a-move'",
        "line 2: no entry has the id 99 in test-en-crk 1.0",
        "line 3: entry 1 is moved more than once (also on line 1)",
        "line 4: entry 2: unknown segment 'gold'; expected one of: development, diagnostic, gold_standard, held_out",
        "line 7: entry 3 is already in gold_standard; leave it out or move it to another segment",
    ]
    assert form.errors["new_version"] == ["Version '1.0' of test-en-crk already exists; choose another name."]
    html = unescape(response.content.decode())
    assert typed.strip() in html.replace("\r\n", "\n"), "the typed moves are kept"
    assert html.index('id="id_moves"') < html.index("line 2: no entry has the id 99"), "errors follow the field"
    assert 'value="1.0"' in html
    assert DatasetVersion.objects.count() == 1 and not events(AuditAction.SEGMENTS_ROTATED)

    empty = client.post(url, {"new_version": "1.1", "moves": "  \n"})
    assert empty.context["form"].errors["moves"] == [
        "Give at least one move: one line per entry, its id and the segment it moves to."]


def test_governance_staff_rotate_from_the_version_page_and_everyone_reads_the_note(client, public_version,
                                                                                   governance_user):
    client.force_login(governance_user)
    response = client.post(version_url(public_version, "rotate-segments/"),
                           {"new_version": "1.1", "moves": "1 held_out\r\n4, development\r\n"})
    successor = DatasetVersion.objects.get(version="1.1")
    assert response.status_code == 302 and response["Location"] == version_url(successor)
    page = client.get(response["Location"]).content.decode()
    assert "Created test-en-crk 1.1 from test-en-crk 1.0 with 2 entries moved to other segments." in page
    assert dict(successor.entries.values_list("entry_id", "segment"))["4"] == "development"

    client.logout()
    public_page = unescape(client.get(version_url(successor)).content.decode())
    assert ROTATION_NOTE in public_page
    assert client.get(f"/api/v1/dataset-versions/{successor.pk}/").json()["note"] == ROTATION_NOTE
    assert client.get(f"/api/v1/dataset-versions/{public_version.pk}/").json()["note"] == ""


def test_the_rotation_page_is_for_governance_staff_with_the_second_factor(client, public_version, curator,
                                                                          governance_user):
    url = version_url(public_version, "rotate-segments/")
    moves = {"new_version": "1.1", "moves": "1 held_out"}
    client.force_login(curator)
    assert client.get(url).status_code == 403 and client.post(url, moves).status_code == 403
    assert url not in client.get(version_url(public_version)).content.decode()
    password_only_login(client, governance_user)
    assert client.post(url, moves).status_code == 403
    assert DatasetVersion.objects.count() == 1


# ---------------------------------------------------------------- every change of a corpus is audited


def test_imports_are_audited_by_page_api_and_command_with_counts_only(client, steward, curator, tmp_path):
    from accounts.services import create_api_token

    data = corpus_bytes([entry(1), entry(2, "gold_standard"), entry(3, "held_out", notes=f"{SECRET_MARK} note")])
    version = import_corpus(data=data, organization=steward, actor=None).version
    [event] = events(AuditAction.CORPUS_IMPORTED)
    assert (event.actor, event.organization, event.object_id, event.chain) == (
        None, steward, str(version.pk), chain_of(steward.pk))
    assert event.details == {"dataset": "test-en-crk", "version": "1.0", "entries": 3,
                             "segments": {"development": 1, "gold_standard": 1, "held_out": 1}}
    import_corpus(data=data, organization=steward, actor=None)
    with pytest.raises(Exception, match="problem"):
        import_corpus(data=corpus_bytes([entry(1, difficulty=9)], version="9.9"), organization=steward, actor=None)
    assert len(events(AuditAction.CORPUS_IMPORTED)) == 1, "neither the same file again nor a refused one"

    client.force_login(curator)
    page = client.post("/datasets/import/", {"organization": "steward", "file": SimpleUploadedFile(
        "corpus.json", corpus_bytes([entry(1)], version="1.1"))})
    assert page.status_code == 302
    _, token = create_api_token(actor=curator, scope="secret")
    api = client.post("/api/v1/corpus-imports/?org=steward", corpus_bytes([entry(1)], version="1.2"),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}")
    assert api.status_code == 201
    path = tmp_path / "corpus.json"
    path.write_bytes(corpus_bytes([entry(1), entry(2)], version="1.3"))
    call_command("import_corpus", str(path), "--org", "steward")
    assert [(e.details["version"], e.actor, e.details["entries"]) for e in events(AuditAction.CORPUS_IMPORTED)] == [
        ("1.0", None, 3), ("1.1", curator, 1), ("1.2", curator, 1), ("1.3", None, 2)]
    assert_no_entry_text()
    assert verify_chain()[1] is None


def test_entry_edits_are_audited_with_field_names_never_values(public_version, curator):
    added = add_entry(actor=curator, version=public_version,
                      data=entry(5, "gold_standard", notes=f"{SECRET_MARK} a note"))
    [event] = events(AuditAction.CORPUS_ENTRY_ADDED)
    assert (event.actor, event.organization, event.object_id) == (
        curator, public_version.dataset.organization, str(added.pk))
    assert event.details == {"dataset": "test-en-crk", "version": "1.0", "entries": 5, "entry": "5",
                             "segment": "gold_standard", "segments": {**ALL_SEGMENTS, "gold_standard": 2}}

    secret = public_version.entries.get(entry_id="3")
    update_entry(actor=curator, entry=secret, changes={"notes": f"{SECRET_MARK} changed", "segment": "held_out"})
    [changed] = events(AuditAction.CORPUS_ENTRY_CHANGED)
    assert changed.actor == curator and changed.details == {
        "dataset": "test-en-crk", "version": "1.0", "entries": 5, "entry": "3", "segment": "held_out",
        "from_segment": "gold_standard", "fields": ["notes", "segment"],
        "segments": {"development": 1, "diagnostic": 1, "gold_standard": 1, "held_out": 2}}
    update_entry(actor=curator, entry=public_version.entries.get(entry_id="3"), changes={"segment": "held_out"})
    assert len(events(AuditAction.CORPUS_ENTRY_CHANGED)) == 1, "an edit that changes nothing is not an event"
    assert_no_entry_text()


def test_a_bulk_import_is_audited_with_its_counts(public_version, curator):
    data = (b"id,source,reference,segment\n"
            b"1,changed source SECRETTEXT,reference public-1,development\n"
            b"9,new SECRETTEXT,new reference SECRETTEXT,held_out\n"
            b"2,source public-2,reference public-2,diagnostic\n")
    preview = bulk.stage_bulk_import(actor=curator, version=public_version, data=data, file_format="csv")
    assert preview.staged is not None and not events(AuditAction.CORPUS_BULK_IMPORTED), "a dry run is no change"
    bulk.apply_staged_import(actor=curator, staged=preview.staged)
    [event] = events(AuditAction.CORPUS_BULK_IMPORTED)
    assert (event.actor, event.organization, event.object_id) == (
        curator, public_version.dataset.organization, str(public_version.pk))
    assert event.details == {"dataset": "test-en-crk", "version": "1.0", "entries": 5, "format": "csv", "new": 1,
                             "updated": 1, "unchanged": 1, "segments": {**ALL_SEGMENTS, "held_out": 2}}
    assert_no_entry_text()


def test_a_next_version_is_audited(client, public_version, curator):
    freeze_version(version=public_version, actor=None)
    successor = create_next_version(actor=curator, version=public_version, new_version="2.0")
    [event] = events(AuditAction.DATASET_VERSION_CREATED)
    assert (event.actor, event.organization, event.object_id) == (
        curator, public_version.dataset.organization, str(successor.pk))
    assert event.details == {"dataset": "test-en-crk", "version": "2.0", "from_version": "1.0", "entries": 4,
                             "segments": ALL_SEGMENTS}
    client.force_login(curator)
    taken = client.post(version_url(public_version, "next-version/"), {"new_version": "2.0"}, follow=True)
    assert "Version &#x27;2.0&#x27; of test-en-crk already exists" in taken.content.decode()
    assert len(events(AuditAction.DATASET_VERSION_CREATED)) == 1


def test_governance_staff_read_corpus_events_in_the_audit_log_without_text(client, public_version, governance_user):
    rotate_segments(actor=governance_user, version=public_version, new_version="1.1", moves={"1": "held_out"})
    client.force_login(governance_user)
    page = client.get("/orgs/steward/audit/", {"action": "dataset_version.segments_rotated"}).content.decode()
    assert "dataset_version.segments_rotated" in page and "development→held_out" in page
    assert SECRET_MARK not in page and "public-1" not in page
