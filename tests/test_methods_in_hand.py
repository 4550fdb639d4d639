"""The community holds and checks the method code (benchmark specification §8.2, §8.6): governance staff download a
submission's package (second factor, audited), a reviewer signs off each declared dependency before the manifest is
audited, each class A1 run on secret sources is approved on its own by a decision, and an A2 dependency enters the
sandbox or the transfer only with its rights holder's permission recorded."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from common.errors import ApplicationError, ErrorKind
from corpus.models import ConsentUse, Entry
from corpus.services import grant_consent, import_corpus
from governance import services as governance
from governance.models import DecisionPolicy, DecisionState
from leaderboard.models import A1RunApproval, RunCard
from leaderboard.services import RunCardRejected, submit_run_card
from organizations.models import AuditEvent
from submissions import decisions as submission_decisions
from submissions import services
from submissions.models import DependencySignOff, MethodSubmission, RightsHolderPermission, SubmissionState
from submissions.selectors import manifest_digest

from .cards import body, make_card
from .conftest import activate_held_out, corpus_bytes, member, password_only_login, proven, shared_fixture
from .review_setup import gold_entries, sandbox_operator
from .test_submissions import (  # noqa: F401 - fixtures
    EXTERNAL,
    GATEWAY,
    MIRRORED,
    acceptance,
    developer,
    manifest,
    media,
    method_card,
    package_files,
    submit,
    terms,
    zip_bytes,
)

State = SubmissionState
PDF = b"%PDF-1.4\n% rights holder's letter\n"


def submitted(steward, developer, acceptance, dependency_class, dependencies):  # noqa: F811
    outcome = submit(steward, developer, acceptance,
                     zip_bytes(package_files(manifest(dependency_class, dependencies))))
    assert outcome.problems == []
    return outcome.submission


def sign_all(submission, reviewer):
    for dependency_id in services.declared_dependency_ids(submission):
        services.sign_off_dependency(actor=reviewer, submission=submission, dependency_id=dependency_id,
                                     license_checked=True, source_checked=True)


def advance(submission, actor, to_state, **details):
    return services.advance_submission(submission=submission, actor=actor, to_state=to_state, **details)


@pytest.fixture
def a1_submission(steward, developer, acceptance, media, governance_user):  # noqa: F811
    return submitted(steward, developer, acceptance, "A1", [MIRRORED, GATEWAY])


@pytest.fixture
def a2_submission(steward, developer, acceptance, media, governance_user):  # noqa: F811
    return submitted(steward, developer, acceptance, "A2", [GATEWAY, EXTERNAL])


# Package download.

@pytest.mark.django_db
def test_governance_staff_download_the_package_streamed_with_its_hash_and_audited(client, a1_submission,
                                                                                   governance_user):
    client.force_login(governance_user)
    page = client.get(f"/submissions/{a1_submission.public_id}/").content.decode()
    assert f"/submissions/{a1_submission.public_id}/package/" in page and a1_submission.package_sha256 in page

    response = client.get(f"/submissions/{a1_submission.public_id}/package/")
    assert response.status_code == 200 and response.streaming
    data = b"".join(response.streaming_content)
    assert data == a1_submission.package.open("rb").read()
    assert response["X-Package-SHA256"] == a1_submission.package_sha256
    assert "attachment" in response["Content-Disposition"] and "method.zip" in response["Content-Disposition"]
    event = AuditEvent.objects.get(action="submission.package_downloaded")
    assert (event.actor, event.organization) == (governance_user, a1_submission.organization)
    assert event.details == {"submission": str(a1_submission.public_id), "method_id": "fst-gated",
                             "package": "method.zip", "package_sha256": a1_submission.package_sha256}


@pytest.mark.django_db
def test_nobody_else_downloads_the_package_nor_learns_it_exists(client, a1_submission, developer, curator, outsider,  # noqa: F811
                                                                 steward, governance_user_without_mfa):
    url = f"/submissions/{a1_submission.public_id}/package/"
    unknown = "/submissions/00000000-0000-4000-8000-000000000000/package/"
    for user in (developer, curator, outsider):
        client.force_login(user)
        assert client.get(url).status_code == 404, user
        assert client.get(unknown).status_code == 404
    # Governance staff whose session did not prove its second factor get the set-up page, the same for any id.
    password_only_login(client, member("gov2@steward.example", steward, "governance"))
    assert client.get(url).status_code == 403 and client.get(unknown).status_code == 403
    client.force_login(governance_user_without_mfa)
    assert client.get(url).status_code == 403
    client.logout()
    assert client.get(url).status_code == 302
    assert not AuditEvent.objects.filter(action="submission.package_downloaded").exists()


@pytest.mark.django_db
def test_recording_a_download_needs_a_proven_second_factor(a1_submission, steward):
    from accounts.models import User

    staff = member("gov2@steward.example", steward, "governance")
    unproven = User.objects.get(pk=staff.pk)  # loaded without the request's proof
    with pytest.raises(services.NotAllowed, match="second factor"):
        services.record_package_download(actor=unproven, submission=a1_submission)


# Dependency sign-offs.

@pytest.mark.django_db
def test_manifest_audited_waits_for_a_sign_off_of_every_declared_dependency(a1_submission, governance_user):
    assert a1_submission.state == State.SUBMITTED
    with pytest.raises(services.TransitionRefused) as refused:
        advance(a1_submission, governance_user, State.MANIFEST_AUDITED)
    assert "missing: fst, gpt-gateway." in str(refused.value)

    sign_off = services.sign_off_dependency(actor=governance_user, submission=a1_submission, dependency_id="fst",
                                            license_checked=True, source_checked=True, comment="AGPL, pinned tag.")
    assert (sign_off.reviewer, sign_off.comment, sign_off.manifest_sha256) == (
        governance_user, "AGPL, pinned tag.", manifest_digest(a1_submission.manifest))
    with pytest.raises(services.TransitionRefused, match=r"missing: gpt-gateway\. Allowed next"):
        advance(a1_submission, governance_user, State.MANIFEST_AUDITED)

    services.sign_off_dependency(actor=governance_user, submission=a1_submission, dependency_id="gpt-gateway",
                                 license_checked=True, source_checked=True)
    advance(a1_submission, governance_user, State.MANIFEST_AUDITED)
    a1_submission.refresh_from_db()
    assert a1_submission.state == State.MANIFEST_AUDITED
    events = AuditEvent.objects.filter(action="submission.dependency_signed_off").order_by("id")
    assert [event.details["dependency"] for event in events] == ["fst", "gpt-gateway"]
    assert events[0].details["comment"] == "AGPL, pinned tag."
    with pytest.raises(PermissionError):
        sign_off.delete()
    with pytest.raises(services.TransitionRefused, match="already audited"):
        services.sign_off_dependency(actor=governance_user, submission=a1_submission, dependency_id="fst",
                                     license_checked=True, source_checked=True)


@pytest.mark.django_db
@pytest.mark.parametrize("fields, field, message", [
    ({"dependency_id": "nope"}, "dependency_id", "No dependency “nope” in the manifest; expected one of: fst, "
                                                 "gpt-gateway."),
    ({"license_checked": False}, "license_checked", "Check the dependency's licence"),
    ({"source_checked": False}, "source_checked", "Check where the dependency comes from"),
    ({"comment": "x" * 4001}, "comment", "4001 characters; at most 4000 are kept."),
])
def test_a_bad_sign_off_names_its_field_and_stores_nothing(a1_submission, governance_user, fields, field, message):
    values = {"dependency_id": "fst", "license_checked": True, "source_checked": True, "comment": "", **fields}
    with pytest.raises(services.SubmissionError) as refused:
        services.sign_off_dependency(actor=governance_user, submission=a1_submission, **values)
    assert refused.value.field == field and message in str(refused.value)
    assert not DependencySignOff.objects.exists()
    assert not AuditEvent.objects.filter(action="submission.dependency_signed_off").exists()


@pytest.mark.django_db
def test_signing_off_twice_is_refused_naming_the_first_reviewer(a1_submission, governance_user, steward):
    sign_all(a1_submission, governance_user)
    with pytest.raises(services.SubmissionError) as refused:
        services.sign_off_dependency(actor=member("gov2@steward.example", steward, "governance"),
                                     submission=a1_submission, dependency_id="fst", license_checked=True,
                                     source_checked=True)
    assert refused.value.kind == ErrorKind.CONFLICT and "already signed off by gov@steward.example" in str(
        refused.value)
    assert DependencySignOff.objects.count() == 2


@pytest.mark.django_db
def test_the_submitter_and_outsiders_do_not_sign_off(steward, acceptance, media, developer, outsider,  # noqa: F811
                                                     governance_user):
    member(developer.email, steward, "governance")  # the submitter is also governance staff
    submission = submitted(steward, developer, acceptance, "A1", [MIRRORED, GATEWAY])
    with pytest.raises(services.NotAllowed, match="you submitted the method"):
        services.sign_off_dependency(actor=proven(developer), submission=submission, dependency_id="fst",
                                     license_checked=True, source_checked=True)
    with pytest.raises(services.NotAllowed):
        services.sign_off_dependency(actor=outsider, submission=submission, dependency_id="fst",
                                     license_checked=True, source_checked=True)
    assert not DependencySignOff.objects.exists()


@pytest.mark.django_db
def test_a_manifest_change_makes_the_sign_offs_stale(client, a1_submission, governance_user):
    sign_all(a1_submission, governance_user)
    changed = {**a1_submission.manifest, "dependencies": [{**MIRRORED, "pin": "v1.3.0"}, GATEWAY]}
    MethodSubmission.objects.filter(pk=a1_submission.pk).update(manifest=changed)
    a1_submission.refresh_from_db()
    assert services.missing_sign_offs(a1_submission) == ["fst", "gpt-gateway"]
    with pytest.raises(services.TransitionRefused, match="missing: fst, gpt-gateway"):
        advance(a1_submission, governance_user, State.MANIFEST_AUDITED)
    client.force_login(governance_user)
    page = client.get(f"/submissions/{a1_submission.public_id}/").content.decode()
    assert page.count("Its sign-off is stale: the manifest changed since.") == 2
    sign_all(a1_submission, governance_user)  # signed again on the new manifest
    advance(a1_submission, governance_user, State.MANIFEST_AUDITED)


@pytest.mark.django_db
def test_a_revised_package_makes_the_sign_offs_stale_and_is_signed_off_again(client, a1_submission, governance_user,
                                                                             developer, media,  # noqa: F811
                                                                             django_capture_on_commit_callbacks):
    sign_all(a1_submission, governance_user)
    earlier = a1_submission.package.name
    corrected = zip_bytes(package_files(manifest("A1", [{**MIRRORED, "pin": "v1.3.0"}, GATEWAY])))
    with django_capture_on_commit_callbacks(execute=True):  # the earlier file is deleted once the revision commits
        outcome = services.revise_package(actor=developer, submission=a1_submission, package=io.BytesIO(corrected),
                                          package_name="method-1.3.zip")
    assert outcome.problems == []
    revised = outcome.submission
    assert revised.package_name == "method-1.3.zip" and revised.manifest["dependencies"][0]["pin"] == "v1.3.0"
    assert revised.package.open("rb").read() == corrected and not (media / earlier).exists()
    assert services.missing_sign_offs(revised) == ["fst", "gpt-gateway"]
    event = AuditEvent.objects.get(action="submission.package_revised")
    assert event.details["stale_sign_offs"] == 2 and event.details["after"] == revised.package_sha256
    client.force_login(governance_user)
    page = client.get(f"/submissions/{revised.public_id}/").content.decode()
    assert page.count("Its sign-off is stale: the manifest changed since.") == 2
    with pytest.raises(services.TransitionRefused, match="missing: fst, gpt-gateway"):
        advance(revised, governance_user, State.MANIFEST_AUDITED)
    sign_all(revised, governance_user)
    advance(revised, governance_user, State.MANIFEST_AUDITED)
    with pytest.raises(services.TransitionRefused, match="audited meanwhile"):  # read before the audit
        services.revise_package(actor=developer, submission=revised, package=io.BytesIO(corrected),
                                package_name="method.zip")
    revised.refresh_from_db()
    with pytest.raises(services.TransitionRefused, match="already audited"):
        services.revise_package(actor=developer, submission=revised, package=io.BytesIO(corrected),
                                package_name="method.zip")


@pytest.mark.django_db
def test_a_bad_revision_changes_nothing_and_only_the_submitter_revises(client, a1_submission, developer,  # noqa: F811
                                                                       governance_user):
    before = (a1_submission.package.name, a1_submission.package_sha256, a1_submission.manifest)
    other_method = zip_bytes(package_files(manifest("A1", [MIRRORED, GATEWAY], method_id="other"),
                                           method_card(method_id="other")))
    outcome = services.revise_package(actor=developer, submission=a1_submission, package=io.BytesIO(other_method),
                                      package_name="method.zip")
    assert [problem.path for problem in outcome.problems] == ["method_card.method_id"]
    with pytest.raises(services.NotAllowed):
        services.revise_package(actor=governance_user, submission=a1_submission,
                                package=io.BytesIO(zip_bytes(package_files())), package_name="method.zip")
    client.force_login(developer)
    page = client.post(f"/submissions/{a1_submission.public_id}/revision/",
                       {"package": SimpleUploadedFile("method.zip", b"not a zip")})
    assert page.status_code == 400 and "nothing was changed" in page.content.decode()
    a1_submission.refresh_from_db()
    assert (a1_submission.package.name, a1_submission.package_sha256, a1_submission.manifest) == before
    assert not AuditEvent.objects.filter(action="submission.package_revised").exists()
    client.force_login(governance_user)
    assert client.post(f"/submissions/{a1_submission.public_id}/revision/",
                       {"package": SimpleUploadedFile("method.zip", b"x")}).status_code == 404


@pytest.mark.django_db
def test_a_manifest_without_dependencies_is_audited_at_once(steward, developer, acceptance, media):  # noqa: F811
    submission = submitted(steward, developer, acceptance, "S", [])
    assert submission.state == State.MANIFEST_AUDITED


@pytest.mark.django_db
def test_staff_sign_off_from_the_page_and_see_refusals_naming_the_field(client, a1_submission, governance_user,
                                                                        developer):  # noqa: F811
    url = f"/submissions/{a1_submission.public_id}/sign-offs/"
    client.force_login(governance_user)
    refused = client.post(url, {"dependency_id": "fst", "source_checked": "on"})
    assert refused.status_code == 400
    assert "Check the dependency&#x27;s licence before signing it off." in refused.content.decode()
    assert not DependencySignOff.objects.exists()

    done = client.post(url, {"dependency_id": "fst", "license_checked": "on", "source_checked": "on",
                             "comment": "Pinned."}, follow=True)
    page = done.content.decode()
    assert "Signed off by gov@steward.example" in page and "Waiting for a sign-off: gpt-gateway." in page
    client.force_login(developer)
    assert client.post(url, {"dependency_id": "gpt-gateway", "license_checked": "on",
                             "source_checked": "on"}).status_code == 404
    assert "Dependency sign-offs" not in client.get(f"/submissions/{a1_submission.public_id}/").content.decode()


# A2: the rights holder's permission.

@pytest.mark.django_db
def test_an_a2_method_enters_the_sandbox_only_with_its_rights_holders_permission(a2_submission, governance_user):
    sign_all(a2_submission, governance_user)
    advance(a2_submission, governance_user, State.MANIFEST_AUDITED)
    with pytest.raises(services.TransitionRefused) as refused:
        advance(a2_submission, governance_user, State.AWAITING_SANDBOX)
    assert "needs its rights holder's permission" in str(refused.value) and "missing for: translate-api." in str(
        refused.value)
    permission = services.record_rights_permission(
        actor=governance_user, submission=a2_submission, dependency_id="translate-api",
        rights_holder="Example Translation Inc.", document_reference="Letter of 2026-11-02, archive box 3")
    assert (permission.recorded_by, permission.document_reference) == (
        governance_user, "Letter of 2026-11-02, archive box 3")
    advance(a2_submission, governance_user, State.AWAITING_SANDBOX)
    event = AuditEvent.objects.get(action="submission.rights_permission_recorded")
    assert event.details["dependency"] == "translate-api" and event.details["rights_holder"] == (
        "Example Translation Inc.")
    with pytest.raises(PermissionError):
        permission.delete()


@pytest.mark.django_db
def test_an_a2_method_is_not_transferred_without_the_permission(a2_submission, governance_user, card):
    MethodSubmission.objects.filter(pk=a2_submission.pk).update(state=State.APPROVED, run_card=card)
    a2_submission.refresh_from_db()
    with pytest.raises(services.TransitionRefused, match="missing for: translate-api"):
        services.refuse_untransferable(a2_submission)
    with pytest.raises(services.TransitionRefused, match="missing for: translate-api"):
        submission_decisions.propose_transfer(actor=governance_user, submission=a2_submission)
    with pytest.raises(services.TransitionRefused, match="missing for: translate-api"):
        services.record_ownership_transfer(actor=governance_user, submission=a2_submission)


@pytest.mark.django_db
@pytest.mark.parametrize("fields, field, message", [
    ({"dependency_id": "gpt-gateway"}, "dependency_id", "“gpt-gateway” is not a non-substitutable external "
                                                        "dependency (class A2) of this method; expected one of: "
                                                        "translate-api."),
    ({"rights_holder": "  "}, "rights_holder", "Name the rights holder"),
    ({"document_reference": ""}, "document_reference", "Upload the permission's document or give a reference"),
    ({"document": SimpleUploadedFile("letter.pdf", b"MZ\x90\x00 not a pdf")}, "document",
     "the file's content is not PDF"),
    ({"document": SimpleUploadedFile("letter.exe", b"MZ")}, "document", "a .exe file is not accepted"),
])
def test_a_bad_permission_names_its_field_and_stores_nothing(a2_submission, governance_user, fields, field,
                                                             message, media):  # noqa: F811
    values = {"dependency_id": "translate-api", "rights_holder": "Example Translation Inc.",
              "document_reference": "Letter, archive box 3", **fields}
    if "document" in fields:
        values["document_reference"] = ""
    with pytest.raises(services.SubmissionError) as refused:
        services.record_rights_permission(actor=governance_user, submission=a2_submission, **values)
    assert refused.value.field == field and message in str(refused.value)
    assert not RightsHolderPermission.objects.exists()
    assert not (media / "submissions" / str(a2_submission.organization_id) / "permissions").exists()


@pytest.mark.django_db
def test_staff_record_a_permission_with_its_document_on_the_page(client, a2_submission, governance_user,
                                                                 developer):  # noqa: F811
    client.force_login(governance_user)
    url = f"/submissions/{a2_submission.public_id}/rights-permissions/"
    refused = client.post(url, {"dependency_id": "translate-api", "rights_holder": "Example Translation Inc."})
    assert refused.status_code == 400 and "Upload the permission&#x27;s document" in refused.content.decode()
    page = client.post(url, {"dependency_id": "translate-api", "rights_holder": "Example Translation Inc.",
                             "document": SimpleUploadedFile("letter.pdf", PDF, "application/pdf")},
                       follow=True).content.decode()
    assert "permission of Example Translation Inc., recorded by gov@steward.example" in page
    permission = RightsHolderPermission.objects.get()
    document_url = f"/submissions/{a2_submission.public_id}/rights-permissions/{permission.pk}/document/"
    assert document_url in page
    assert b"".join(client.get(document_url).streaming_content) == PDF
    client.force_login(developer)
    assert client.get(document_url).status_code == 404


# A1: one approval per run on secret sources.

def a1_card(version, method_id="fst-gated", segment="gold_standard"):
    entries = list(Entry.objects.filter(version=version, segment=segment).order_by("position"))
    return make_card(version, entries, model_slug="gpt-x",
                     method_card=method_card(method_id=method_id, dependency_class="A1"),
                     manifest=manifest("A1", [MIRRORED, GATEWAY], method_id=method_id))


@shared_fixture
def secret_version(steward, governance_user):
    entries = gold_entries(12) + [{**entry, "id": entry["id"] + 100, "segment": "held_out"}
                                  for entry in gold_entries(4)]
    version = import_corpus(data=corpus_bytes(entries, id="secret-a1"), organization=steward, actor=None).version
    activate_held_out(version)
    return version


def consent(version, governance_user, uses=tuple(ConsentUse.values)):
    return grant_consent(dataset=version.dataset, uses=list(uses), granted_by_name="Chief and Council",
                         granted_on=version.created, actor=governance_user, document_reference="Resolution 7")


def audited(submission, governance_user):
    sign_all(submission, governance_user)
    advance(submission, governance_user, State.MANIFEST_AUDITED)
    advance(submission, governance_user, State.AWAITING_SANDBOX)
    return submission


@pytest.mark.django_db
def test_an_a1_run_on_secret_sources_is_refused_without_an_approval_and_takes_one_approval(
        a1_submission, governance_user, secret_version, steward):
    consent(secret_version, governance_user)
    operator = sandbox_operator(steward)
    with pytest.raises(RunCardRejected) as refused:
        submit_run_card(body=body(a1_card(secret_version)), actor=operator)
    assert refused.value.kind == ErrorKind.CONFLICT
    assert "needs its own approval by the steward's governance staff (an A1 run approval)" in str(refused.value)
    assert not RunCard.objects.exists()

    audited(a1_submission, governance_user)
    decision = submission_decisions.propose_a1_run(actor=governance_user, submission=a1_submission,
                                                   dataset_version=secret_version, segments=["gold_standard"])
    assert decision.state == DecisionState.EXECUTED  # k = 1: one signature decides
    approval = A1RunApproval.objects.get()
    assert (approval.decision, approval.segments, approval.method_id, approval.run_card) == (
        decision, ["gold_standard"], "fst-gated", None)
    assert approval.submission == a1_submission.public_id

    card = submit_run_card(body=body(a1_card(secret_version)), actor=operator)
    approval.refresh_from_db()
    assert approval.run_card == card and approval.used_at is not None
    assert AuditEvent.objects.filter(action="a1_run.approved").count() == 1
    assert AuditEvent.objects.get(action="a1_run.used").details["run_id"] == card.run_id
    # One approval, one run.
    with pytest.raises(RunCardRejected, match="none is left unused"):
        submit_run_card(body=body(a1_card(secret_version)), actor=operator)
    # Its held-out entries are not what was approved either.
    submission_decisions.propose_a1_run(actor=governance_user, submission=a1_submission,
                                        dataset_version=secret_version, segments=["gold_standard"])
    with pytest.raises(RunCardRejected, match="held_out"):
        submit_run_card(body=body(a1_card(secret_version, segment="held_out")), actor=operator)
    # The attached card carries its approval: the submission is evaluated.
    advance(a1_submission, governance_user, State.EVALUATED, run_card=card)


@pytest.mark.django_db
def test_an_a1_card_without_its_rows_on_a_version_with_secret_entries_is_refused(governance_user, secret_version,
                                                                                  steward):
    from leaderboard.services import accept_card_without_entries

    from .cards import seal

    consent(secret_version, governance_user)
    card = a1_card(secret_version)
    del card["results"]
    with pytest.raises(RunCardRejected) as refused:
        accept_card_without_entries(actor=sandbox_operator(steward), body=body(seal(card)))
    assert refused.value.kind == ErrorKind.CONFLICT and "published with its per-entry rows" in str(refused.value)
    self_contained = a1_card(secret_version)
    del self_contained["results"], self_contained["method"], self_contained["method_card"]
    accepted = accept_card_without_entries(actor=sandbox_operator(steward), body=body(seal(self_contained)))
    assert accepted.status == RunCard.Status.UNVERIFIED


@pytest.mark.django_db
def test_an_a1_run_is_approved_only_under_the_communitys_consent_to_gateway_disclosure(
        a1_submission, governance_user, secret_version, steward):
    record = consent(secret_version, governance_user, uses=[ConsentUse.EVALUATION])
    audited(a1_submission, governance_user)
    with pytest.raises(ApplicationError) as refused:
        submission_decisions.propose_a1_run(actor=governance_user, submission=a1_submission,
                                            dataset_version=secret_version, segments=["gold_standard"])
    assert refused.value.kind == ErrorKind.CONFLICT and "no active consent to A1 gateway disclosure" in str(
        refused.value)
    assert not A1RunApproval.objects.exists()
    # An approval given under consent is not used once the consent is revoked.
    from corpus.services import revoke_consent

    gateway = consent(secret_version, governance_user, uses=[ConsentUse.GATEWAY_DISCLOSURE])
    submission_decisions.propose_a1_run(actor=governance_user, submission=a1_submission,
                                        dataset_version=secret_version, segments=["gold_standard"])
    revoke_consent(actor=governance_user, record=gateway, reason="The council withdrew it.")
    with pytest.raises(RunCardRejected, match="no active consent to A1 gateway disclosure"):
        submit_run_card(body=body(a1_card(secret_version)), actor=sandbox_operator(steward))
    assert record.is_active and A1RunApproval.objects.get().run_card is None


@pytest.mark.django_db
@pytest.mark.parametrize("segments, field", [([], "segments"), (["development"], "segments"),
                                             (["gold_standard", "nope"], "segments")])
def test_a_bad_a1_run_proposal_names_its_field(a1_submission, governance_user, secret_version, segments, field):
    consent(secret_version, governance_user)
    audited(a1_submission, governance_user)
    with pytest.raises(ApplicationError) as refused:
        submission_decisions.propose_a1_run(actor=governance_user, submission=a1_submission,
                                            dataset_version=secret_version, segments=segments)
    assert refused.value.field == field
    with pytest.raises(ApplicationError) as refused:
        submission_decisions.propose_a1_run(actor=governance_user, submission=a1_submission, dataset_version=None,
                                            segments=["gold_standard"])
    assert refused.value.field == "dataset_version"
    assert not A1RunApproval.objects.exists()


@pytest.mark.django_db
def test_only_a1_submissions_past_their_manifest_audit_get_run_approvals(a1_submission, a2_submission,
                                                                         governance_user, secret_version):
    consent(secret_version, governance_user)
    with pytest.raises(services.TransitionRefused, match="once the manifest is audited"):
        submission_decisions.propose_a1_run(actor=governance_user, submission=a1_submission,
                                            dataset_version=secret_version, segments=["gold_standard"])
    with pytest.raises(services.SubmissionError, match="only runs of class A1 methods"):
        submission_decisions.propose_a1_run(actor=governance_user, submission=a2_submission,
                                            dataset_version=secret_version, segments=["gold_standard"])


@pytest.mark.django_db
def test_with_k_2_the_run_is_refused_until_the_decision_executes(a1_submission, governance_user, secret_version,
                                                                 steward, developer):  # noqa: F811
    consent(secret_version, governance_user)
    audited(a1_submission, governance_user)
    DecisionPolicy.objects.create(organization=steward, kind=submission_decisions.A1_RUN, threshold=2,
                                  min_open_hours=0)
    signers = [member(f"gov{n}@steward.example", steward, "governance") for n in (2, 3)]
    member(developer.email, steward, "governance")  # the submitter, in conflict
    decision = submission_decisions.propose_a1_run(actor=governance_user, submission=a1_submission,
                                                   dataset_version=secret_version, segments=["gold_standard"],
                                                   note="One run, model gpt-x.")
    assert decision.state == DecisionState.OPEN and decision.payload["gateway"] == [
        {"id": "gpt-gateway", "source": "gateway:gpt"}]
    operator = sandbox_operator(steward)
    with pytest.raises(RunCardRejected, match="an A1 run approval"):
        submit_run_card(body=body(a1_card(secret_version)), actor=operator)
    with pytest.raises(governance.NotAllowed, match="submitted the method"):
        governance.sign(actor=proven(developer), decision=decision, verdict="approve",
                        payload_hash=decision.payload_hash, checked=["consent"])
    for signer in signers:
        governance.sign(actor=signer, decision=decision, verdict="approve", payload_hash=decision.payload_hash,
                        checked=["consent", "disclosure"])
    decision.refresh_from_db()
    assert decision.state == DecisionState.EXECUTED
    assert A1RunApproval.objects.get().note == "One run, model gpt-x."
    submit_run_card(body=body(a1_card(secret_version)), actor=operator)


@pytest.mark.django_db
def test_an_a1_submission_is_not_evaluated_on_a_secret_card_without_its_approval(a1_submission, governance_user,
                                                                                card):
    audited(a1_submission, governance_user)
    with pytest.raises(services.SubmissionError) as refused:
        advance(a1_submission, governance_user, State.EVALUATED, run_card=card)
    assert refused.value.field == "run_card" and "without an A1 run approval" in str(refused.value)


@pytest.mark.django_db
def test_staff_propose_an_a1_run_from_the_submission_page(client, a1_submission, governance_user, secret_version,
                                                          django_assert_max_num_queries):
    consent(secret_version, governance_user)
    audited(a1_submission, governance_user)
    client.force_login(governance_user)
    url = f"/submissions/{a1_submission.public_id}/a1-runs/"
    refused = client.post(url, {"dataset_version": secret_version.pk})
    assert refused.status_code == 400 and "This field is required." in refused.content.decode()
    page = client.post(url, {"dataset_version": secret_version.pk, "segments": ["gold_standard"]},
                       follow=True).content.decode()
    assert "One A1 run of fst-gated on gold_standard of secret-a1" in page and "not used yet" in page
    with django_assert_max_num_queries(15):
        assert client.get(f"/submissions/{a1_submission.public_id}/").status_code == 200


# The migration: A1 cards on secret segments accepted before keep their place.

@pytest.mark.django_db
def test_the_migration_gives_earlier_a1_secret_cards_a_legacy_approval(monkeypatch, governance_user,
                                                                       secret_version, steward):
    from importlib import import_module

    from django.apps import apps

    from leaderboard.services import intake

    consent(secret_version, governance_user)
    monkeypatch.setattr(intake, "a1_approval_for", lambda *args: None)  # as intake was before
    card = submit_run_card(body=body(a1_card(secret_version)), actor=sandbox_operator(steward))
    migration = import_module("leaderboard.migrations.0012_a1_run_approvals")
    migration.approve_earlier_a1_cards(apps, connection.schema_editor())
    approval = A1RunApproval.objects.get()
    assert (approval.legacy, approval.decision, approval.run_card, approval.segments, approval.method_id) == (
        True, None, card, ["gold_standard"], "fst-gated")
    assert approval.used_at == card.submitted_at



@pytest.mark.django_db
def test_the_staff_submission_page_queries_do_not_grow_with_dependencies_and_approvals(
        client, steward, developer, acceptance, media, governance_user, secret_version):  # noqa: F811
    from django.test.utils import CaptureQueriesContext

    consent(secret_version, governance_user)
    client.force_login(governance_user)

    def page_queries(count: int) -> int:
        mirrored = [{**MIRRORED, "id": f"fst-{number}"} for number in range(count)]
        method_id = f"method-{count}"
        submission = submit(steward, developer, acceptance, zip_bytes(package_files(
            manifest("A1", [*mirrored, GATEWAY], method_id=method_id), method_card(method_id=method_id)))).submission
        sign_all(submission, governance_user)
        advance(submission, governance_user, State.MANIFEST_AUDITED)
        for _ in range(count):
            submission_decisions.propose_a1_run(actor=governance_user, submission=submission,
                                                dataset_version=secret_version, segments=["gold_standard"])
        with CaptureQueriesContext(connection) as queries:
            page = client.get(f"/submissions/{submission.public_id}/")
        assert page.content.decode().count('class="a1-approval"') == count
        return len(queries)

    few, many = page_queries(1), page_queries(5)
    assert many == few and few <= 15, (few, many)


@pytest.mark.django_db
def test_maintainers_read_sign_offs_permissions_and_approvals_in_the_admin(client, maintainer, a2_submission,
                                                                           governance_user, secret_version):
    sign_all(a2_submission, governance_user)
    services.record_rights_permission(actor=governance_user, submission=a2_submission, dependency_id="translate-api",
                                      rights_holder="Example Translation Inc.", document_reference="Letter")
    client.force_login(maintainer)
    for url, text in (("/admin/submissions/dependencysignoff/", "translate-api"),
                      ("/admin/submissions/rightsholderpermission/", "Example Translation Inc."),
                      ("/admin/leaderboard/a1runapproval/", "a1 run approval")):
        response = client.get(url)
        assert response.status_code == 200 and text in response.content.decode(), url
    permission = RightsHolderPermission.objects.get()
    assert client.post(f"/admin/submissions/rightsholderpermission/{permission.pk}/delete/",
                       {"post": "yes"}).status_code == 403
