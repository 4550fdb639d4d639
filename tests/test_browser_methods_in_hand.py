"""Governance staff take a class A1 method in hand in a real browser: they download its package (the file's SHA-256
is the one the page shows), sign off each declared dependency (a sign-off without its licence checked is refused,
naming it), move the submission to "Manifest audited" and on to the sandbox, and approve one A1 run on the secret
gold_standard entries (k = 1: one signature decides); an A2 method's rights holder's permission is recorded with its
document; the submitter revises the package before the audit and the sign-offs go stale. Each page passes axe.
Screenshots in screenshots/methods-*.png."""

import hashlib
from pathlib import Path

import pytest

from leaderboard.models import A1RunApproval
from submissions.models import DependencySignOff, MethodSubmission, RightsHolderPermission, SubmissionState

from .browser_support import assert_accessible
from .conftest import member
from .test_browser import (  # noqa: F401 - browser and page are fixtures
    PHONE,
    browser,
    expect,
    page,
    screenshot_both,
)
from .test_browser import sign_in_with_form as sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def methods_world(steward, governance_user, settings, tmp_path):
    """An A1 submission and an A2 one, and a dataset of secret gold_standard entries whose community consents to A1
    gateway disclosure."""
    from corpus.services import import_corpus
    from submissions import services as submission_services

    from .conftest import corpus_bytes
    from .review_setup import consent_to_everything, gold_entries
    from .test_submissions import EXTERNAL, GATEWAY, MIRRORED, manifest, package_files, submit, zip_bytes

    settings.MEDIA_ROOT = tmp_path / "media"
    version = import_corpus(data=corpus_bytes(gold_entries(12), id="secret-a1"), organization=steward,
                            actor=None).version
    consent_to_everything(version.dataset, governance_user)
    terms = submission_services.publish_terms(organization=steward, actor=governance_user, version="1",
                                              text="Submit in good faith.", transfer_clause="Ownership transfers.")
    developer = member("dev@methods.example", steward, "speaker")
    acceptance = submission_services.accept_terms(terms=terms, actor=developer)
    a1 = submit(steward, developer, acceptance,
                zip_bytes(package_files(manifest("A1", [MIRRORED, GATEWAY])))).submission
    a2 = submit(steward, developer, acceptance,
                zip_bytes(package_files(manifest("A2", [GATEWAY, EXTERNAL])))).submission
    return {"a1": a1, "a2": a2, "version": version}


def test_staff_download_sign_off_and_approve_one_a1_run(live_server, page, steward, governance_user,  # noqa: F811
                                                        methods_world, tmp_path):
    submission = methods_world["a1"]
    base = live_server.url
    sign_in(page, base, governance_user)
    page.goto(f"{base}/submissions/{submission.public_id}/")
    expect(page.locator("#sign-offs")).to_contain_text("Waiting for sign-offs: fst, gpt-gateway.")
    assert_accessible(page, "submission page with dependencies to sign off")

    # The package, downloaded: its SHA-256 is the one the page shows.
    expect(page.locator("main")).to_contain_text(submission.package_sha256)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the package").click()
    saved = Path(tmp_path / "downloaded.zip")
    download.value.save_as(saved)
    assert hashlib.sha256(saved.read_bytes()).hexdigest() == submission.package_sha256
    assert download.value.suggested_filename == "method.zip"

    # A sign-off without the licence checked is refused, naming it; then each dependency is signed off.
    first = page.locator("#sign-off-1")
    first.get_by_label("I checked its source and pin").check()
    first.get_by_role("button", name="Sign off fst").click()
    expect(page.locator("#sign-off-error")).to_contain_text("Check the dependency's licence before signing it off.")
    assert not DependencySignOff.objects.exists()
    for number, dependency in ((1, "fst"), (2, "gpt-gateway")):
        row = page.locator(f"#sign-off-{number}")
        row.get_by_label("I checked its licence").check()
        row.get_by_label("I checked its source and pin").check()
        row.get_by_label("Comment (optional)").fill(f"{dependency}: licence and pin match the manifest.")
        row.get_by_role("button", name=f"Sign off {dependency}").click()
        expect(page.locator(f"#sign-off-{number}")).to_contain_text("Signed off by gov@steward.example")
    expect(page.locator("#sign-offs")).to_contain_text("Every dependency is signed off")
    screenshot_both(page, "methods-signed-off", phone=PHONE)

    for state in ("Manifest audited", "Awaiting sandbox run"):
        page.get_by_label("Move to").select_option(label=state)
        page.get_by_role("button", name="Move").click()
        expect(page.locator(".submission-summary")).to_contain_text(state)

    # One A1 run on the secret gold_standard entries, approved at once (one signature decides).
    runs = page.locator("#a1-runs")
    expect(runs).to_contain_text("No A1 run of this method is approved.")
    runs.get_by_label("Dataset version").select_option(label="secret-a1 1.0 (EN→CRK)")
    runs.get_by_label("gold_standard").check()
    runs.get_by_label("Note (optional)").fill("One run through the gateway, model gpt-x.")
    runs.get_by_role("button", name="Propose the approval of one run").click()
    expect(page.get_by_role("status").first).to_contain_text("One A1 run of fst-gated on gold_standard")
    expect(page.locator("#a1-runs .a1-approval")).to_contain_text("not used yet")
    screenshot_both(page, "methods-a1-run-approved", phone=PHONE)
    assert_accessible(page, "submission page with an A1 run approved")
    approval = A1RunApproval.objects.get()
    assert (approval.dataset_version, approval.segments, approval.run_card) == (
        methods_world["version"], ["gold_standard"], None)
    assert MethodSubmission.objects.get(pk=submission.pk).state == SubmissionState.AWAITING_SANDBOX


def test_staff_record_an_a2_rights_holders_permission(live_server, page, steward, governance_user,  # noqa: F811
                                                      methods_world):
    submission = methods_world["a2"]
    base = live_server.url
    sign_in(page, base, governance_user)
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/submissions/{submission.public_id}/")
    section = page.locator("#rights-permissions")
    expect(section).to_contain_text("translate-api: no permission recorded")
    section.get_by_label("Rights holder").fill("Example Translation Inc.")
    section.get_by_role("button", name="Record the permission").click()  # no document: refused, naming it
    expect(page.locator("#rights-permissions")).to_contain_text("Upload the permission's document or give a reference")
    assert not RightsHolderPermission.objects.exists()
    section = page.locator("#rights-permissions")
    section.get_by_label("Rights holder").fill("Example Translation Inc.")
    section.get_by_label("Document (optional)", exact=True).set_input_files(files=[
        {"name": "letter.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4\n% permission letter\n"}])
    section.get_by_role("button", name="Record the permission").click()
    expect(page.locator("#rights-permissions")).to_contain_text(
        "permission of Example Translation Inc., recorded by gov@steward.example")
    expect(page.locator("#rights-permissions").get_by_role("link", name="letter.pdf")).to_be_visible()
    screenshot_both(page, "methods-rights-permission", phone=PHONE)
    assert_accessible(page, "submission page with a rights holder's permission")
    assert RightsHolderPermission.objects.get().document_name == "letter.pdf"


def test_the_submitter_revises_the_package_and_its_sign_offs_go_stale(live_server, page, steward,  # noqa: F811
                                                                       governance_user, methods_world):
    from submissions import services as submission_services

    from .test_submissions import GATEWAY, MIRRORED, manifest, package_files, zip_bytes

    submission = methods_world["a1"]
    for dependency in ("fst", "gpt-gateway"):
        submission_services.sign_off_dependency(actor=governance_user, submission=submission, dependency_id=dependency,
                                                license_checked=True, source_checked=True)
    base = live_server.url
    sign_in(page, base, submission.submitter)
    page.goto(f"{base}/submissions/{submission.public_id}/")
    revise = page.locator("#revise")
    revise.get_by_label("Corrected package (.zip or .tar.gz)").set_input_files(files=[
        {"name": "method-1.3.zip", "mimeType": "application/zip",
         "buffer": zip_bytes(package_files(manifest("A1", [{**MIRRORED, "pin": "v1.3.0"}, GATEWAY])))}])
    revise.get_by_role("button", name="Upload the corrected package").click()
    expect(page.get_by_role("status").first).to_contain_text("The package is revised")
    assert_accessible(page, "submission page, as its submitter before the manifest audit")

    sign_in(page, base, governance_user)
    page.goto(f"{base}/submissions/{submission.public_id}/")
    expect(page.locator("#sign-offs")).to_contain_text("Waiting for sign-offs: fst, gpt-gateway.")
    expect(page.locator("#sign-off-1")).to_contain_text("Its sign-off is stale: the manifest changed since.")
    expect(page.locator("main")).to_contain_text("method-1.3.zip")
