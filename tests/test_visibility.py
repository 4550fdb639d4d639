"""Secret segments never leak: every URL the project defines, requested as each kind of user."""

import re

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.services import create_api_token
from corpus.models import Entry
from leaderboard.services import submit_run_card
from organizations.services import invite_member

from .cards import body, make_card
from .conftest import SECRET_MARK, activate_held_out, corpus_bytes, entry, member

pytestmark = pytest.mark.django_db

# Matches the secret entries' texts without containing SECRET_MARK, so an echoed query is no false alarm.
SECRET_PROBE = "TEXT-gold"
PLACEHOLDER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>|\(\?P<(?P<group>[^>]+)>[^)]*\)")


def walk(resolver=None, prefix="^"):
    """Every URL pattern as a route string with its placeholders, resolvers flattened."""
    resolver = resolver or get_resolver()
    for pattern in resolver.url_patterns:
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from walk(pattern, prefix + route.lstrip("^"))
        elif isinstance(pattern, URLPattern):
            yield prefix + route.lstrip("^")


def concrete_urls(route: str, values: dict[str, list[str]]) -> list[str]:
    """Every URL the route yields with each candidate value per placeholder (no URL if one is unknown)."""
    urls = [route]
    for match in PLACEHOLDER.finditer(route):
        name = match.group("name") or match.group("group")
        if name not in values:
            return []
        urls = [url.replace(match.group(0), value, 1) for url in urls for value in values[name]]
    cleaned = []
    for url in urls:
        url = url.replace("^", "").replace("$", "").replace("\\.", ".").replace("/?", "/")
        cleaned.append("/" + url.lstrip("/"))
    return cleaned


@pytest.fixture
def world(steward, other_org, governance_user, curator, speaker, outsider, maintainer):
    """A public dataset with all four segments, a non-public one, and an invitation: things to ask for."""
    from corpus.services import import_corpus

    from .conftest import publish

    public = import_corpus(
        data=corpus_bytes([
            entry(1, "development", domain="medical"), entry(2, "diagnostic"),
            entry(3, "gold_standard", domain="medical"), entry(4, "held_out"),
        ]),
        organization=steward,
        actor=None,
    ).version
    publish(public.dataset)
    private = import_corpus(
        data=corpus_bytes([entry(11, "gold_standard"), entry(12, "development")],
                                             id="private-set"),
        organization=steward,
        actor=None,
    ).version
    invitation = invite_member(organization=steward, email="new@person.example", role="speaker", actor=governance_user)
    public_entries = list(Entry.objects.filter(version=public, segment="development"))
    activate_held_out(public)
    secret_entries = list(Entry.objects.filter(version=public, segment__in=["gold_standard", "held_out"]))
    cards = [
        submit_run_card(body=body(make_card(public, public_entries, model_slug="open")), actor=speaker),
        submit_run_card(
            body=body(make_card(public, secret_entries, model_slug="sandboxed",
                                           predict=lambda e: f"output {SECRET_MARK} {e.entry_id}")),
            actor=governance_user,
        ),
    ]
    from review.models import Assignment
    from review.services import open_campaign

    from .review_setup import settings_for

    second_speaker = member("speaker2@steward.example", steward, "speaker")
    campaign = open_campaign(
        run_card=cards[1],
        actor=governance_user,
        values=settings_for([speaker, second_speaker], sample_size=2,
                                                                         ratings_per_item=2),
    )
    assignments = list(Assignment.objects.filter(campaign=campaign))
    entries = list(Entry.objects.all())
    token, _ = create_api_token(actor=curator, name="ci")
    pks = [str(e.pk) for e in entries] + [str(public.pk), str(private.pk), str(token.pk)]
    values = {
        "pk": sorted(set(pks)),
        "identifier": [public.dataset.identifier, private.dataset.identifier],
        "slug": [steward.slug],
        "token": [invitation.token],
        "token_id": [str(token.pk)],
        "format": ["json"],
        "app_label": ["corpus", "organizations", "submissions", "accounts", "leaderboard", "ledger", "review"],
        "object_id": sorted({str(e.pk) for e in entries} | {str(card.pk) for card in cards}),
        "content_type_id": [str(ContentType.objects.get_for_model(Entry).pk)],
        "path": ["static/css/app.css"],
        "public_id": [str(card.public_id) for card in cards] + [str(campaign.public_id)]
        + [str(assignment.public_id) for assignment in assignments],
        "file_format": ["csv"],
    }
    own_items = {f"/review/items/{a.public_id}/" for a in assignments if a.speaker_id == speaker.pk}
    return {"public": public, "private": private, "values": values, "own_items": own_items}


def every_response(client, world):
    routes = sorted(set(walk()))
    urls = sorted({url for route in routes for url in concrete_urls(route, world["values"])})
    assert any("/api/v1/entries/" in url for url in urls) and any("/admin/corpus/entry/" in url for url in urls)
    for url in urls:
        for query in ("", f"?q={SECRET_PROBE}&search={SECRET_PROBE}&segment=gold_standard&format=json"):
            response = client.get(url + query)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            yield url + query, response.status_code, body


@pytest.fixture
def developer(db):
    """A method developer: signed in, no role in any organization."""
    from accounts.models import User

    return User.objects.create_user("developer@methods.example", "correct horse battery staple 42")


@pytest.mark.slow
@pytest.mark.parametrize("persona", ["anonymous", "developer", "speaker", "outsider", "maintainer"])
def test_no_secret_text_reaches_anyone_but_the_steward(client, world, persona, request):
    user = None if persona == "anonymous" else request.getfixturevalue(persona)
    if user is not None:
        client.force_login(user)
    checked = 0
    # An assigned speaker sees the secret items given to them, item by item, and nothing else secret.
    allowed = world["own_items"] if persona == "speaker" else set()
    seen_own = set()
    for url, status, content in every_response(client, world):
        if url.split("?")[0] in allowed:
            seen_own.add(url.split("?")[0])
            continue
        assert SECRET_MARK.encode() not in content, f"{persona} saw secret text at {url} ({status})"
        assert b"private-set" not in content or url.startswith("/admin/"), f"{persona} saw the private dataset at {url}"
        checked += 1
    assert checked > 50
    assert seen_own == allowed


@pytest.mark.slow
@pytest.mark.parametrize("persona", ["curator_without_mfa", "governance_user_without_mfa"])
def test_steward_staff_without_two_factor_see_no_secret_text(client, world, persona, request):
    """The steward's own curators and governance staff, before they set up two-factor authentication: every
    URL, and no secret text anywhere; where their role would show it, the page says how to set it up."""
    client.force_login(request.getfixturevalue(persona))
    told, checked = [], 0
    for url, status, content in every_response(client, world):
        assert SECRET_MARK.encode() not in content, f"{persona} saw secret text at {url} ({status})"
        assert status < 500, url
        if status == 403 and b"Set up two-factor authentication" in content:
            told.append(url)
        checked += 1
    assert checked > 50
    assert any(url.startswith(f"/datasets/versions/{world['private'].pk}/") for url in told)
    assert any(url.startswith("/datasets/import/") for url in told)
    if persona == "governance_user_without_mfa":
        assert any(url.startswith("/orgs/steward/audit/") for url in told)


@pytest.mark.slow
@pytest.mark.parametrize("persona", ["curator", "governance_user"])
def test_steward_staff_see_secret_segments(client, world, persona, request):
    """The same staff with two-factor authentication (the fixtures' default) see their secrets."""
    client.force_login(request.getfixturevalue(persona))
    seen_at = [url for url, status, body in every_response(client, world) if SECRET_MARK.encode() in body]
    assert any(url.startswith(f"/datasets/versions/{world['public'].pk}/entries/") for url in seen_at)
    assert any(url.startswith("/api/v1/entries/") for url in seen_at)
    assert any("/export" in url for url in seen_at)
    if persona == "governance_user":
        assert any(url.startswith("/leaderboard/cards/") for url in seen_at)
        assert any(url.startswith("/api/v1/run-cards/") and "/results/" in url for url in seen_at)


@pytest.mark.parametrize("persona", ["anonymous", "outsider"])
def test_search_counts_do_not_reveal_secret_matches(client, world, persona, request):
    if persona != "anonymous":
        client.force_login(request.getfixturevalue(persona))
    version = world["public"]
    page = client.get(f"/datasets/versions/{version.pk}/entries/", {"q": SECRET_PROBE})
    assert b"0 entries" in page.content
    api = client.get(f"/api/v1/dataset-versions/{version.pk}/entries/", {"q": SECRET_PROBE}).json()
    assert api["count"] == 0
    filtered = client.get(f"/api/v1/dataset-versions/{version.pk}/entries/", {"domain": "medical"}).json()
    assert filtered["count"] == 1


def test_secret_entry_by_id_is_a_plain_404(client, world, outsider):
    secret = Entry.objects.get(entry_id="3")
    for user in (None, outsider):
        if user:
            client.force_login(user)
        for url in (f"/datasets/entries/{secret.pk}/", f"/api/v1/entries/{secret.pk}/"):
            response = client.get(url)
            assert response.status_code == 404 and SECRET_MARK.encode() not in response.content


def test_private_dataset_is_invisible_to_others(client, world, speaker):
    client.force_login(speaker)
    assert client.get(f"/datasets/versions/{world['private'].pk}/").status_code == 404
    assert client.get("/datasets/d/private-set/").status_code == 404
    assert client.get("/api/v1/datasets/private-set/").status_code == 404
    identifiers = [d["id"] for d in client.get("/api/v1/datasets/").json()["results"]]
    assert identifiers == ["test-en-crk"]


def test_token_authentication_sees_what_the_user_sees(client, world, curator):
    _, key = create_api_token(actor=curator, scope="secret")
    response = client.get("/api/v1/entries/", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 200 and SECRET_MARK.encode() in response.content
    assert client.get("/api/v1/entries/", HTTP_AUTHORIZATION="Token not-a-key").status_code == 401
