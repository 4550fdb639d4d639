"""Security headers on every response, and pages that need no inline script or style to work."""

import re

import pytest

from .test_deploy import production_env, run

pytestmark = pytest.mark.django_db

INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
STYLE_ATTRIBUTE = re.compile(rb"<[^>]+\sstyle=", re.IGNORECASE)
EVENT_HANDLER = re.compile(rb"<[^>]+\son[a-z]+=", re.IGNORECASE)


def test_pages_carry_the_security_headers(client):
    response = client.get("/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy and "'unsafe-inline'" not in policy
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("persona", ["anonymous", "governance_user"])
def test_no_page_relies_on_inline_script_or_style(client, public_version, persona, request):
    """What the policy would block must not be there: every script is a file, every style in app.css."""
    if persona != "anonymous":
        client.force_login(request.getfixturevalue(persona))
    urls = ["/", "/datasets/", f"/datasets/versions/{public_version.pk}/", "/leaderboard/", "/api/v1/docs/"]
    if persona == "anonymous":
        urls += ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]
    else:
        urls += ["/accounts/profile/", "/review/", "/review/campaigns/",
                 f"/orgs/{public_version.dataset.organization.slug}/", "/accounts/2fa/"]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert not INLINE_SCRIPT.search(response.content), f"inline <script> at {url}"
        assert not STYLE_ATTRIBUTE.search(response.content), f"style attribute at {url}"
        assert not EVENT_HANDLER.search(response.content), f"inline event handler at {url}"


@pytest.mark.slow  # a Python process of its own serves two requests in production mode (1.5 s)
def test_production_sends_hsts_and_redirects_to_https():
    script = ("from django.test import Client; "
              "r = Client().get('/api/v1/schema/', HTTP_HOST='review.example.org', secure=True); "
              "print(r.headers.get('Strict-Transport-Security')); "
              "print(Client().get('/', HTTP_HOST='review.example.org').status_code)")
    result = run(["-c", f"import django; django.setup(); {script}"], production_env(DATABASE_URL="sqlite:///:memory:"))
    assert result.returncode == 0, result.stderr
    hsts, plain_status = result.stdout.strip().splitlines()[-2:]
    assert "max-age=31536000" in hsts and "includeSubDomains" in hsts and "preload" in hsts
    assert plain_status == "301"
