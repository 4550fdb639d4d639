"""Governance staff decide a corpus's segments in a real browser: a rotation refused line by line and then made, and the
held-out segment activated after its confirmation; each page fits a phone and passes axe at phone and desktop widths.
Screenshots in screenshots/segments-*.png."""

import pytest

from corpus.models import DatasetVersion

from .browser_support import assert_accessible
from .test_browser import (  # noqa: F401 - browser and page are fixtures
    SMALL_PHONE,
    browser,
    expect,
    page,
    screenshot_both,
)
from .test_browser import sign_in_with_form as sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_governance_rotates_segments_then_activates_held_out(live_server, page, public_version,  # noqa: F811
                                                             governance_user):
    sign_in(page, live_server.url, governance_user)
    page.goto(f"{live_server.url}/datasets/versions/{public_version.pk}/")
    page.get_by_role("link", name="Rotate segments…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Rotate segments into a new version")

    page.get_by_label("New version").fill("1.1")
    page.get_by_label("Moves").fill("1 held_out\n99 development\nnot-a-move")
    page.get_by_role("button", name="Create the rotated version").click()
    errors = page.locator("#id_moves ~ ul.errorlist > li")
    expect(errors).to_have_text(["line 3: expected “<entry id> <segment>”, found 'not-a-move'",
                                 "line 2: no entry has the id 99 in test-en-crk 1.0"])
    expect(page.get_by_label("Moves")).to_have_value("1 held_out\n99 development\nnot-a-move")
    screenshot_both(page, "segments-rotation-errors", phone=SMALL_PHONE)
    assert_accessible(page, "rotation page with errors")

    page.get_by_label("Moves").fill("1 held_out\n4 development")
    page.get_by_role("button", name="Create the rotated version").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("version 1.1")
    expect(page.locator("#version-note")).to_have_text(
        "Entries were rotated between segments when this version was made: some moved from one segment to another. "
        "Which ones is not published.")
    screenshot_both(page, "segments-rotated-version", phone=SMALL_PHONE)
    assert_accessible(page, "version page after a rotation")

    page.get_by_role("link", name="Activate the held-out segment…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Activate the held-out segment")
    screenshot_both(page, "segments-held-out-confirmation", phone=SMALL_PHONE)
    assert_accessible(page, "held-out activation confirmation")
    page.get_by_role("button", name="Activate the held-out segment").click()
    expect(page.locator("#held-out-status")).to_contain_text("active since")
    assert DatasetVersion.objects.get(version="1.1").held_out_active
