"""A 2-of-3 method approval in a real browser: governance staff set k = 2 for approvals (one signature decides a
change of k while its own k is 1), the proposer moves a submission to "Approved" and lands on the decision, the
member in conflict sees why they cannot sign, two others sign from their dashboard, and the method is approved
once. Each page passes axe at phone width. Screenshots in screenshots/decision-*.png."""

import pytest

from governance.models import Decision
from submissions.models import MethodSubmission, SubmissionState

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
def approval_world(steward, governance_user, settings, tmp_path):
    """A submission in community review whose campaign approved it; four governance staff besides the sandbox
    operator (who uploaded the run card: in conflict)."""
    from review import services as review_services
    from submissions import services as submission_services

    from .review_setup import gold_card, settings_for, speakers
    from .test_submissions import package_files, submit, zip_bytes

    settings.MEDIA_ROOT = tmp_path / "media"
    card = gold_card(steward, governance_user)
    terms = submission_services.publish_terms(organization=steward, actor=governance_user, version="1",
                                              text="Submit in good faith.", transfer_clause="Ownership transfers.")
    developer = member("dev@methods.example", steward, "speaker")
    acceptance = submission_services.accept_terms(terms=terms, actor=developer)
    submission = submit(steward, developer, acceptance, zip_bytes(package_files())).submission
    for to_state, extra in ((SubmissionState.AWAITING_SANDBOX, {}), (SubmissionState.EVALUATED, {"run_card": card})):
        submission_services.advance_submission(actor=governance_user, submission=submission, to_state=to_state,
                                               **extra)
    campaign = review_services.open_campaign(run_card=card, actor=governance_user,
                                             values=settings_for(speakers(steward, 4)))
    submission_services.advance_submission(actor=governance_user, submission=submission,
                                           to_state=SubmissionState.IN_REVIEW)
    review_services.record_decision(campaign=campaign, actor=governance_user, outcome="approve",
                                    rationale="The panel found it usable, on fewer items than the policy asks.",
                                    against_recommendation=True)
    signers = [member(f"gov{n}@steward.example", steward, "governance") for n in (2, 3, 4)]
    from django.contrib.auth import get_user_model

    sandbox = get_user_model().objects.get(email="sandbox@steward.example")
    return {"submission": submission, "signers": signers, "sandbox": sandbox}


def test_a_method_approval_signed_2_of_3(live_server, page, steward, governance_user, approval_world):  # noqa: F811
    submission, signers, sandbox = (approval_world["submission"], approval_world["signers"],
                                    approval_world["sandbox"])
    base = live_server.url

    # k = 2 for approvals, no waiting time: a change of k, decided at once while k of changes of k is 1.
    sign_in(page, base, governance_user)
    page.goto(f"{base}/orgs/steward/decisions/")
    page.get_by_label("Kind of decision").select_option(label="Approve a method submission")
    page.get_by_label("k (signatures needed)").fill("2")
    page.get_by_label("Least open time in hours (empty: the kind's default)").fill("0")
    page.get_by_role("button", name="Propose").click()
    expect(page.locator("#decision-state")).to_have_text("Executed")
    expect(page.get_by_role("status").first).to_contain_text("now needs 2 signatures")

    # The proposer moves the submission to "Approved": a decision opens instead.
    page.goto(f"{base}/submissions/{submission.public_id}/")
    page.get_by_label("Move to").select_option(label="Approved")
    page.get_by_label("Note to the submitter").fill("Approved by the council.")
    page.get_by_role("button", name="Move").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Approve FST-gated pipeline")
    expect(page.locator("#decision-count")).to_have_text("0 of the 2 needed (3 may sign)")
    expect(page.locator("#excluded")).to_contain_text("sandbox@steward.example — submitted the run card")
    expect(page.locator("#excluded")).to_contain_text("gov@steward.example — proposed the decision")
    expect(page.locator("#sign-form")).to_have_count(0)
    screenshot_both(page, "decision-proposed", phone=PHONE)
    assert_accessible(page, "decision page, as its proposer")
    decision = Decision.objects.get(kind="submissions.approve")

    # The member in conflict sees why, and no form.
    sign_in(page, base, sandbox)
    page.goto(f"{base}/decisions/{decision.public_id}/")
    expect(page.locator("main")).to_contain_text("You may not sign it: you submitted the run card.")
    expect(page.locator("#sign-form")).to_have_count(0)

    # Two others sign from their dashboard.
    for number, signer in enumerate(signers[:2], start=1):
        sign_in(page, base, signer)
        page.set_viewport_size(PHONE)
        page.goto(f"{base}/orgs/steward/dashboard/")
        page.get_by_role("link", name="Approve FST-gated pipeline").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Approve FST-gated pipeline")
        if number == 1:
            page.get_by_role("button", name="Reject").click()  # no comment: refused, nothing signed
            expect(page.get_by_role("alert")).to_contain_text("Write why you reject it")
            assert_accessible(page, "decision page with a refused signature")
        page.get_by_label("I read the community review and its decision in force").check()
        page.get_by_label("I read the run card and its scores").check()
        page.get_by_role("button", name="Approve").click()
        if number == 1:
            expect(page.locator("#decision-count")).to_have_text("1 of the 2 needed (3 may sign)")
            expect(page.get_by_role("status").first).to_contain_text("Your signature is recorded.")
            screenshot_both(page, "decision-one-signature", phone=PHONE)
    expect(page.locator("#decision-state")).to_have_text("Executed")
    expect(page.get_by_role("status").first).to_contain_text("FST-gated pipeline is approved.")
    screenshot_both(page, "decision-executed", phone=PHONE)
    assert_accessible(page, "executed decision")
    assert MethodSubmission.objects.get(pk=submission.pk).state == SubmissionState.APPROVED
    assert decision.signatures.count() == 2
