"""Governance staff attach a Local Contexts label in a real browser (its markup refused first, with why), everyone
sees it on the dataset's page, the public's export of the restrictive label's data is refused with the label and
the decision it waits for, and the release decision opens it. Screenshots in screenshots/labels-*.png."""

import pytest

from corpus.models import CulturalLabel

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


def test_governance_attaches_a_label_and_the_public_export_waits_for_its_release(
        live_server, page, browser, public_version, governance_user):  # noqa: F811
    sign_in(page, live_server.url, governance_user)
    page.goto(f"{live_server.url}/datasets/versions/{public_version.pk}/")
    page.get_by_role("link", name="Manage labels").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Local Contexts labels and notices")
    page.get_by_label("Label or notice", exact=True).select_option("tk_secret_sacred")
    page.get_by_label("Name, as the community wrote it (optional)").fill("TK Secret / Sacred")
    page.get_by_label("The community's text").fill("Ceremonial <b>songs</b> stay with the community.")
    page.get_by_label("Community (optional)").fill("Steward Nation")
    page.get_by_role("button", name="Attach", exact=True).click()
    expect(page.locator("#label-refusal")).to_contain_text("label text is plain text")
    assert not CulturalLabel.objects.exists()
    screenshot_both(page, "labels-markup-refused", phone=SMALL_PHONE)

    page.get_by_label("The community's text").fill("Ceremonial songs stay with the community & its keepers.")
    page.get_by_role("button", name="Attach", exact=True).click()
    article = page.locator("article.lc-label-item")
    expect(article.get_by_role("heading", level=3)).to_contain_text("TK Secret / Sacred")
    expect(article).to_contain_text("Ceremonial songs stay with the community & its keepers.")
    expect(page.locator("#release-state")).to_contain_text("public export and release wait for")
    screenshot_both(page, "labels-attached", phone=SMALL_PHONE)
    assert_accessible(page, "labels page")

    visitor = browser.new_page()
    visitor.goto(f"{live_server.url}/datasets/versions/{public_version.pk}/")
    labels = visitor.locator("#lc-labels").locator("..")
    expect(labels).to_contain_text("TK Secret / Sacred")
    expect(labels).to_contain_text("Ceremonial songs stay with the community & its keepers.")
    expect(visitor.locator("#label-block")).to_contain_text("“TK Secret / Sacred”")
    assert_accessible(visitor, "version page with a label")
    response = visitor.goto(f"{live_server.url}/datasets/versions/{public_version.pk}/export.json")
    assert response is not None and response.status == 403
    expect(visitor.locator("#label-blocked")).to_contain_text(
        "“TK Secret / Sacred”")
    expect(visitor.locator("#label-blocked")).to_contain_text("Release a dataset under its restrictive labels")
    screenshot_both(visitor, "labels-export-blocked", phone=SMALL_PHONE)
    assert_accessible(visitor, "blocked export")

    page.get_by_role("button", name="Propose the release decision for these labels").click()
    expect(page.locator("#release-state")).to_contain_text("Released under the current restrictive labels")
    response = visitor.request.get(f"{live_server.url}/datasets/versions/{public_version.pk}/export.json")
    assert response.status == 200 and b'"sovereignty"' in response.body()
    visitor.close()
