"""Two-factor authentication before secrets (django-allauth MFA, TOTP), and the governance dashboard.

Governance staff and curators without an active TOTP authenticator see nothing secret anywhere (pages,
exports, API, run-card results, campaign evidence) and get a page telling them how to set it up; once they
have one they see their community's secrets, and signing in asks for the code. Speakers never need it."""

import datetime
import io
import re
import uuid

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import User
from accounts.services import create_api_token
from corpus.models import ConsentUse, Entry
from corpus.services import grant_consent, import_corpus, revoke_consent
from leaderboard.services import submit_run_card
from organizations.audit import record_event
from organizations.demo import DEMO_PASSWORD, DEMO_TOTP_SECRETS
from organizations.models import AuditAction, AuditEvent
from organizations.selectors import (
    account_has_totp,
    governance_org_ids,
    mfa_enabled,
    needs_mfa_for_secrets,
    org_ids_with_roles,
    secret_reader_org_ids,
)
from organizations.services import add_member
from review import services as review_services
from review.models import Assignment, Campaign, Decision
from submissions import services as submission_services

from .cards import body, make_card
from .conftest import (
    PASSWORD,
    SECRET_MARK,
    activate_held_out,
    corpus_bytes,
    current_totp_code,
    enable_totp,
    entry,
    member,
    password_only_login,
    proven,
    totp_code,
)
from .review_setup import gold_card, rate_everything, settings_for, speakers
from .review_setup import submit as rate
from .test_submissions import COST_REPORT, package_files, zip_bytes

CHANGED = AuditAction.ORGANIZATION_CHANGED  # any action the log knows

pytestmark = pytest.mark.django_db

MFA_PAGE_HEADING = b"Set up two-factor authentication to continue"
ACTIVATE_URL = "/accounts/2fa/totp/activate/"
BANNER = b"once two-factor authentication is set up"


@pytest.fixture
def secret_world(steward, governance_user, public_version):
    """A public dataset with secret entries, a run card scoring its secret entries (outputs carry SECRET_MARK),
    and a campaign on that card with one commented rating (its texts show on the decision page)."""
    activate_held_out(public_version)
    secret_entries = list(Entry.objects.filter(version=public_version, segment__in=["gold_standard", "held_out"]))
    card = submit_run_card(
        body=body(make_card(public_version, secret_entries, model_slug="sandboxed",
                                              predict=lambda e: f"output {SECRET_MARK} {e.entry_id}")),
        actor=governance_user,
    )
    pool = speakers(steward, 2)
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=2,
                                                                                      ratings_per_item=1),
    )
    assignment = Assignment.objects.filter(campaign=campaign).select_related("speaker", "item").first()
    rate(assignment, "gist", comment="the verb is wrong")
    return {"version": public_version, "card": card, "campaign": campaign, "pool": pool}


def secret_urls(world) -> list[str]:
    version, card, campaign = world["version"], world["card"], world["campaign"]
    gold = Entry.objects.get(version=version, segment="gold_standard")
    return [
        f"/datasets/versions/{version.pk}/entries/", f"/datasets/versions/{version.pk}/export.json",
        f"/datasets/versions/{version.pk}/export/entries.csv", f"/datasets/entries/{gold.pk}/",
        "/api/v1/entries/", f"/api/v1/dataset-versions/{version.pk}/entries/",
        f"/api/v1/dataset-versions/{version.pk}/export/", f"/api/v1/entries/{gold.pk}/",
        f"/leaderboard/cards/{card.public_id}/", f"/api/v1/run-cards/{card.public_id}/results/",
        f"/review/campaigns/{campaign.public_id}/decision/",
        f"/review/campaigns/{campaign.public_id}/ratings.csv",
    ]


def content_of(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


# The rule: one place, organizations.selectors.

def test_the_selectors_answer_nothing_secret_until_totp_is_active(steward, governance_user_without_mfa,
                                                                  curator_without_mfa, speaker):
    governance, curator = governance_user_without_mfa, curator_without_mfa
    assert secret_reader_org_ids(governance) == [] and governance_org_ids(governance) == []
    assert secret_reader_org_ids(curator) == []
    assert org_ids_with_roles(governance, ["governance"]) == [steward.pk]  # the role itself stays
    assert needs_mfa_for_secrets(governance) and needs_mfa_for_secrets(curator)
    assert not needs_mfa_for_secrets(speaker) and not mfa_enabled(speaker)

    enable_totp(governance)
    assert not mfa_enabled(governance)  # the account's authenticator alone proves nothing: the request must
    proven(governance)
    assert mfa_enabled(governance) and not needs_mfa_for_secrets(governance)
    assert secret_reader_org_ids(governance) == [steward.pk] and governance_org_ids(governance) == [steward.pk]
    enable_totp(curator)
    proven(curator)
    assert secret_reader_org_ids(curator) == [steward.pk] and governance_org_ids(curator) == []


def test_recovery_codes_alone_are_not_two_factor(governance_user_without_mfa):
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes

    RecoveryCodes.activate(governance_user_without_mfa)
    assert not mfa_enabled(governance_user_without_mfa)


# Without TOTP: nothing secret anywhere, and the governance pages say how to set it up.

@pytest.mark.parametrize("persona", ["governance_user_without_mfa", "curator_without_mfa"])
def test_role_holders_without_totp_see_no_secret_text_anywhere(client, secret_world, persona, request):
    user = request.getfixturevalue(persona)
    _, key = create_api_token(actor=user)
    client.force_login(user)
    statuses = {}
    for url in secret_urls(secret_world):
        response = client.get(url, HTTP_AUTHORIZATION=f"Token {key}" if url.startswith("/api/") else "")
        assert SECRET_MARK.encode() not in content_of(response), f"{persona} saw secret text at {url}"
        assert response.status_code < 500, url
        statuses[url] = response.status_code
    version = secret_world["version"]
    # Public parts stay readable: the entry list shows the two public entries only.
    assert statuses[f"/datasets/versions/{version.pk}/entries/"] == 200
    page = client.get(f"/datasets/versions/{version.pk}/entries/")
    assert page.context["page"].paginator.count == 2
    api = client.get(f"/api/v1/dataset-versions/{version.pk}/entries/", HTTP_AUTHORIZATION=f"Token {key}").json()
    assert api["count"] == 2
    results = client.get(f"/api/v1/run-cards/{secret_world['card'].public_id}/results/",
                         HTTP_AUTHORIZATION=f"Token {key}")
    assert results.status_code == 200 and results.json()["count"] == 0
    gold = Entry.objects.get(version=version, segment="gold_standard")
    # The secret entry's page tells them why they cannot see it (403), it does not pretend to be missing.
    assert statuses[f"/datasets/entries/{gold.pk}/"] == 403
    assert statuses[f"/api/v1/entries/{gold.pk}/"] == 404
    expected_decision = 403 if persona == "governance_user_without_mfa" else 404
    assert statuses[f"/review/campaigns/{secret_world['campaign'].public_id}/decision/"] == expected_decision


GOVERNANCE_PAGES = ["/orgs/steward/dashboard/", "/orgs/steward/audit/", "/orgs/steward/submissions/",
                    "/review/campaigns/", "/review/orgs/steward/gate/", "/datasets/d/test-en-crk/consent/"]
CURATOR_PAGES = ["/datasets/import/", "/datasets/versions/{pk}/entries/new/", "/datasets/versions/{pk}/bulk-import/"]


def test_governance_pages_tell_staff_without_totp_how_to_set_it_up(client, secret_world,
                                                                    governance_user_without_mfa):
    client.force_login(governance_user_without_mfa)
    campaign = secret_world["campaign"]
    pages = GOVERNANCE_PAGES + [f"/review/campaigns/{campaign.public_id}/",
                                f"/review/campaigns/{campaign.public_id}/decision/",
                                f"/review/campaigns/new/{secret_world['card'].public_id}/"]
    pages += [url.format(pk=secret_world["version"].pk) for url in CURATOR_PAGES]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 403, url
        assert MFA_PAGE_HEADING in response.content, url
        assert f'href="{ACTIVATE_URL}"'.encode() in response.content
        assert b"Governance staff of Steward Nation" in response.content  # which role asks for it
    page = client.get("/orgs/steward/dashboard/").content.decode()
    for step in ("Install an authenticator app", "My account → Two-factor authentication → Activate",
                 "Scan the QR code", "recovery codes", "asked for the current code"):
        assert step in page
    # A governance action posted without TOTP is refused with the same page, and changes nothing.
    response = client.post(f"/review/campaigns/{campaign.public_id}/status/", {"status": "paused", "reason": "x"})
    assert response.status_code == 403 and MFA_PAGE_HEADING in response.content
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.OPEN
    invite = client.post("/orgs/steward/", {"email": "new@person.example", "role": "speaker"})
    assert invite.status_code == 403 and MFA_PAGE_HEADING in invite.content


def test_curator_pages_tell_curators_without_totp_how_to_set_it_up(client, steward, curator_without_mfa):
    private = import_corpus(
        data=corpus_bytes([entry(1, "gold_standard"), entry(2)], id="private-set"),
        organization=steward,
        actor=None,
    ).version
    client.force_login(curator_without_mfa)
    for url in [url.format(pk=private.pk) for url in CURATOR_PAGES] + [
            f"/datasets/versions/{private.pk}/", "/datasets/d/private-set/"]:
        response = client.get(url)
        assert response.status_code == 403 and MFA_PAGE_HEADING in response.content, url
        assert b"Corpus curator of Steward Nation" in response.content
    # Governance-only pages are not theirs even with TOTP: a plain 404, as before.
    assert client.get("/datasets/d/private-set/consent/").status_code == 404
    assert client.get("/orgs/steward/dashboard/").status_code == 404


def test_api_import_without_totp_is_a_clear_403(client, steward, curator_without_mfa):
    _, key = create_api_token(actor=curator_without_mfa)
    response = client.post("/api/v1/corpus-imports/?org=steward", data=corpus_bytes([entry(1)]),
                           content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 403
    assert "two-factor authentication" in response.json()["detail"]
    enable_totp(curator_without_mfa)  # a token made before proves nothing: a secret token made after does
    response = client.post("/api/v1/corpus-imports/?org=steward", data=corpus_bytes([entry(1)]),
                           content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 403
    _, key = create_api_token(actor=proven(curator_without_mfa), scope="secret")
    response = client.post("/api/v1/corpus-imports/?org=steward", data=corpus_bytes([entry(1)]),
                           content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 201


def test_speakers_never_need_totp_even_when_curator_elsewhere(client, steward, other_org, governance_user):
    """A speaker rates the secret items assigned to them item by item; being a curator of another
    organization without two-factor authentication changes nothing about that."""
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 1)
    member_elsewhere = pool[0]
    add_member(email=member_elsewhere.email, organization=other_org, role="curator", actor=None)
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=3,
                                                                                      ratings_per_item=1),
    )
    client.force_login(member_elsewhere)
    start = client.get(f"/review/c/{campaign.public_id}/")
    assert start.status_code == 302
    page = client.get(start["Location"])
    assert page.status_code == 200 and SECRET_MARK.encode() in page.content
    assert BANNER in page.content  # the banner still asks them, as a curator elsewhere, to set it up


def test_the_banner_shows_only_to_role_holders_without_totp(client, curator, curator_without_mfa, speaker):
    client.force_login(curator_without_mfa)
    page = client.get("/datasets/").content
    assert BANNER in page and f'href="{ACTIVATE_URL}">Set it up now'.encode() in page
    assert BANNER not in client.get("/accounts/2fa/").content  # not on the set-up pages themselves
    for user in (curator, speaker):
        client.force_login(user)
        assert BANNER not in client.get("/datasets/").content


# With TOTP: secrets, and the login asks for the code.

def activate_totp_through_the_page(client) -> str:
    """Activate an authenticator as a person does under My account → Two-factor authentication (allauth
    announces it once the transaction commits: the test using this must commit, `transaction=True`)."""
    from allauth.mfa.totp.internal.auth import SECRET_SESSION_KEY

    client.post("/accounts/reauthenticate/", {"password": PASSWORD})  # allauth asks for it before activation
    page = client.get("/accounts/2fa/totp/activate/")
    assert page.status_code == 200
    secret = client.session[SECRET_SESSION_KEY]
    client.post("/accounts/2fa/totp/activate/", {"code": current_totp_code(secret)})
    return secret


@pytest.mark.django_db(transaction=True)
def test_after_activating_totp_the_same_user_sees_secrets(client, secret_world, governance_user_without_mfa):
    """Activating the authenticator in a session proves it there (the code was typed in it)."""
    user = governance_user_without_mfa
    client.force_login(user)
    url = f"/leaderboard/cards/{secret_world['card'].public_id}/"
    assert SECRET_MARK.encode() not in client.get(url).content
    activate_totp_through_the_page(client)
    assert SECRET_MARK.encode() in client.get(url).content
    version = secret_world["version"]
    assert client.get(f"/datasets/versions/{version.pk}/entries/").context["page"].paginator.count == 4
    decision = client.get(f"/review/campaigns/{secret_world['campaign'].public_id}/decision/")
    assert decision.status_code == 200 and SECRET_MARK.encode() in decision.content
    assert b"the verb is wrong" in decision.content
    assert client.get("/orgs/steward/dashboard/").status_code == 200
    assert BANNER not in client.get("/datasets/").content


def test_signing_in_through_the_form_asks_for_the_totp_code(client, public_version, curator):
    response = client.post("/accounts/login/", {"login": curator.email, "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/accounts/2fa/authenticate/"
    gold = Entry.objects.get(version=public_version, segment="gold_standard")
    assert client.get(f"/datasets/entries/{gold.pk}/").status_code == 404  # not signed in yet

    asked = client.get("/accounts/2fa/authenticate/").content.decode()
    # A phone offers its number pad for the code, and the page says a recovery code works too.
    assert re.search(r'<input[^>]*name="code"[^>]*inputmode="numeric"', asked)
    assert "or one of your unused recovery codes" in asked
    wrong = client.post("/accounts/2fa/authenticate/", {"code": "000000" if totp_code(curator) != "000000"
                                                        else "111111"})
    assert wrong.status_code == 200 and b"Incorrect code" in wrong.content
    signed_in = client.post("/accounts/2fa/authenticate/", {"code": totp_code(curator)})
    assert signed_in.status_code == 302 and signed_in["Location"] == reverse("accounts:profile")
    entry_page = client.get(f"/datasets/entries/{gold.pk}/")
    assert entry_page.status_code == 200 and SECRET_MARK.encode() in entry_page.content
    again = client.get("/accounts/2fa/reauthenticate/")
    assert again.status_code == 200
    assert re.search(r'<input[^>]*name="code"[^>]*inputmode="numeric"', again.content.decode())


def test_signing_in_without_totp_goes_straight_in_and_shows_the_banner(client, curator_without_mfa):
    response = client.post("/accounts/login/", {"login": curator_without_mfa.email, "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("accounts:profile")
    assert BANNER in client.get(response["Location"]).content


# The governance dashboard.

@pytest.fixture
def dashboard_world(steward, governance_user, settings, tmp_path):
    """Three datasets (consented, never consented, consent revoked), a waiting submission and one moved
    past the staff, a campaign ready for a decision, one decided, and audit events."""
    settings.MEDIA_ROOT = tmp_path / "media"
    import_corpus(data=corpus_bytes([entry(1)], id="no-consent-set"), organization=steward, actor=None)
    revoked = import_corpus(
        data=corpus_bytes([entry(1)], id="revoked-set"),
        organization=steward,
        actor=None,
    ).version.dataset
    record = grant_consent(
        dataset=revoked,
        uses=[ConsentUse.EVALUATION],
        granted_by_name="Council",
        granted_on=datetime.date(2026, 1, 1),
        actor=governance_user,
        document_reference="binder 3",
    )
    revoke_consent(record=record, actor=governance_user, reason="The council withdrew it.")
    developer = member("dev@methods.example", steward, "speaker")
    terms = submission_services.publish_terms(
        organization=steward,
        actor=governance_user,
        version="1",
        text="Terms.",
        transfer_clause="Transfer clause.",
    )
    acceptance = submission_services.accept_terms(terms=terms, actor=developer)
    waiting = submission_services.submit_method(
        organization=steward,
        actor=developer,
        terms_acceptance=acceptance,
        package=io.BytesIO(zip_bytes(package_files())),
        package_name="method.zip",
        cost_report=COST_REPORT,
    ).submission
    rejected = submission_services.submit_method(
        organization=steward,
        actor=developer,
        terms_acceptance=acceptance,
        package=io.BytesIO(zip_bytes(package_files())),
        package_name="method.zip",
        cost_report=COST_REPORT,
    ).submission
    submission_services.advance_submission(
        submission=rejected,
        actor=governance_user,
        to_state="rejected",
        note="Out of scope.",
    )
    pool = speakers(steward, 2)
    card = gold_card(steward, governance_user, count=12)
    ready = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, title="Clinic phrases",
                                                                                  sample_size=4, ratings_per_item=1),
    )
    rate_everything(ready)
    review_services.refresh_summary(ready.pk)
    decided = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, title="Already decided",
                                                                                    sample_size=2, ratings_per_item=1),
    )
    rate_everything(decided)
    review_services.record_decision(
        campaign=decided,
        actor=governance_user,
        outcome="reject",
        rationale="Too few items to judge.",
    )
    return {"waiting": waiting, "rejected": rejected, "ready": ready, "decided": decided}


def test_the_dashboard_shows_consent_submissions_campaigns_and_events(client, dashboard_world, governance_user):
    client.force_login(governance_user)
    response = client.get("/orgs/steward/dashboard/")
    assert response.status_code == 200
    board = response.context["board"]
    assert [(row.dataset.identifier, row.state) for row in board.datasets] == [
        ("no-consent-set", "none"), ("revoked-set", "revoked"), ("test-en-crk", "active")]
    no_consent, revoked, consented = board.datasets
    assert consented.covered == ["public release", "evaluation", "human review", "A1 gateway disclosure",
                                 "corpus creation"]
    assert (consented.active_records, consented.revoked_records) == (1, 0)
    assert (revoked.active_records, revoked.revoked_records) == (0, 1)
    assert (no_consent.active_records, no_consent.revoked_records) == (0, 0)
    assert board.datasets_without_consent == 2

    assert [row.submission for row in board.submissions] == [dashboard_world["waiting"]]
    assert board.submissions_waiting == 1
    assert board.submissions[0].next_step == "Send it to the sandbox, or reject it"

    assert [row.campaign for row in board.campaigns] == [dashboard_world["ready"]]
    ready = board.campaigns[0]
    assert ready.fully_covered and (ready.covered_items, ready.item_count) == (4, 4)
    assert board.campaigns_ready == 1

    assert len(board.events) == 10
    assert board.events[0].event == AuditEvent.objects.filter(organization__slug="steward").order_by("-id").first()
    html = response.content.decode()
    for text in ("No consent recorded", "All consent revoked", "FST-gated pipeline", "Clinic phrases",
                 "Send it to the sandbox, or reject it", "ready for a decision", "The full audit log"):
        assert text in html, text
    assert "Already decided" not in html
    assert f'href="/review/campaigns/{dashboard_world["ready"].public_id}/decision/"' in html
    assert 'href="/datasets/d/no-consent-set/consent/">Record consent' in html
    assert SECRET_MARK not in html


def test_dashboard_consent_labels(client, steward, governance_user):
    """Hand-checked: one record covering evaluation and human review, another (revoked) public release."""
    dataset = import_corpus(
        data=corpus_bytes([entry(1)], id="two-records"),
        organization=steward,
        actor=None,
    ).version.dataset
    grant_consent(
        dataset=dataset,
        uses=[ConsentUse.EVALUATION, ConsentUse.HUMAN_REVIEW],
        granted_by_name="Council",
        granted_on=datetime.date(2026, 2, 1),
        actor=governance_user,
        document_reference="binder 1",
    )
    released = grant_consent(
        dataset=dataset,
        uses=[ConsentUse.PUBLIC_RELEASE],
        granted_by_name="Council",
        granted_on=datetime.date(2026, 2, 2),
        actor=governance_user,
        document_reference="binder 2",
    )
    revoke_consent(record=released, actor=governance_user, reason="Not public after all.")
    client.force_login(governance_user)
    (row,) = client.get("/orgs/steward/dashboard/").context["board"].datasets
    assert (row.state, row.active_records, row.revoked_records) == ("active", 1, 1)
    assert row.covered == ["evaluation", "human review"]
    assert row.not_covered == ["public release", "A1 gateway disclosure", "corpus creation"]


@pytest.mark.parametrize("persona", ["curator", "speaker", "outsider", "maintainer"])
def test_the_dashboard_is_404_for_everyone_but_the_governance_staff(client, steward, persona, request):
    client.force_login(request.getfixturevalue(persona))
    assert client.get("/orgs/steward/dashboard/").status_code == 404


def test_the_dashboard_is_404_for_governance_staff_of_another_organization(client, steward, other_org):
    client.force_login(member("chief@other.example", other_org, "governance"))
    assert client.get("/orgs/steward/dashboard/").status_code == 404
    assert client.get("/orgs/other/dashboard/").status_code == 200


def test_the_navigation_and_the_organization_page_link_the_dashboard(client, steward, governance_user, curator):
    client.force_login(governance_user)
    home = client.get("/").content.decode()
    assert '<a href="/orgs/steward/dashboard/">Governance</a>' in home
    assert 'href="/orgs/steward/dashboard/">Governance dashboard</a>' in client.get("/orgs/steward/").content.decode()
    client.force_login(curator)
    assert "/orgs/steward/dashboard/" not in client.get("/").content.decode()


def test_dashboard_queries_do_not_grow_with_data(client, steward, governance_user, django_assert_max_num_queries):
    def add_data(count: int):
        for index in range(count):
            dataset = import_corpus(
                data=corpus_bytes([entry(1)], id=f"set-{uuid.uuid4().hex[:8]}"),
                organization=steward,
                actor=None,
            ).version.dataset
            grant_consent(
                dataset=dataset,
                uses=[ConsentUse.EVALUATION],
                granted_by_name="Council",
                granted_on=datetime.date(2026, 1, 1),
                actor=governance_user,
                document_reference=f"binder {index}",
            )
            record_event(CHANGED, actor=governance_user, organization=steward, details={"n": index})
            submission_services.submit_method(
                organization=steward,
                actor=developer,
                terms_acceptance=acceptance,
                package=io.BytesIO(zip_bytes(package_files())),
                package_name="method.zip",
                cost_report=COST_REPORT,
            )
            review_services.open_campaign(
                run_card=card,
                actor=governance_user,
                values=settings_for(pool, sample_size=2,
                                                                                  ratings_per_item=1),
            )

    developer = member("dev@methods.example", steward, "speaker")
    terms = submission_services.publish_terms(
        organization=steward,
        actor=governance_user,
        version="1",
        text="Terms.",
        transfer_clause="Transfer clause.",
    )
    acceptance = submission_services.accept_terms(terms=terms, actor=developer)
    pool = speakers(steward, 2)
    card = gold_card(steward, governance_user, count=12)
    client.force_login(governance_user)
    counts = []
    for count in (11, 10):  # more than the ten waiting submissions shown both times: their count is asked both times
        add_data(count)
        # 13: one of them asks whether secret views wait to be chained into the log it shows (seal_secret_views).
        with django_assert_max_num_queries(13) as captured:
            response = client.get("/orgs/steward/dashboard/")
        assert response.status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]
    board = response.context["board"]
    assert board.submissions_waiting == 21 and len(board.submissions) == 10
    assert len(board.campaigns) == 21
    assert Decision.objects.count() == 0


# The demo.

def test_load_demo_gives_governance_and_curator_a_documented_authenticator(client, capsys):
    call_command("load_demo")
    call_command("load_demo")  # idempotent: the same key, the same recovery codes
    out = capsys.readouterr().out
    assert out.count("two-factor key (add it to an authenticator app): DEMOGOVERNANCESTAFFLOCALUSE2FA23") == 2
    assert ("otpauth://totp/Champollion%20Review%3Acurator%40demo.example?secret=DEMOCORPUSCURATORLOCALUSEONLY234"
            in out)
    codes = [line.split(": ")[1].split() for line in out.splitlines() if "recovery codes" in line]
    # Three secret holders (two governance staff, the curator), twice.
    assert len(codes) == 6 and codes[0] == codes[3] and len(codes[0]) == 10
    assert "two-factor key (add it to an authenticator app): DEMOSANDBOXOPERATORLOCALUSEONLY5" in out
    governance = User.objects.get(email="governance@demo.example")
    assert account_has_totp(governance) and not account_has_totp(User.objects.get(email="speaker@demo.example"))
    assert not mfa_enabled(governance)  # the account's authenticator alone: sign in with its code below

    client.post("/accounts/login/", {"login": governance.email, "password": DEMO_PASSWORD})
    client.post("/accounts/2fa/authenticate/", {"code": current_totp_code(DEMO_TOTP_SECRETS["governance"])})
    gold = Entry.objects.get(version__dataset__identifier="demo-en-crk", segment="gold_standard")
    page = client.get(f"/datasets/entries/{gold.pk}/")
    assert page.status_code == 200 and "niwâpamâw atim" in page.content.decode()


def test_a_secret_card_from_staff_without_totp_says_why_its_dataset_is_unknown(steward, governance_user_without_mfa):
    from leaderboard.services import RunCardRejected

    from .conftest import grant_all_consents

    version = import_corpus(
        data=corpus_bytes([entry(1, "gold_standard")], id="sandbox-set"),
        organization=steward,
        actor=None,
    ).version
    grant_all_consents(version.dataset)
    card = make_card(version, list(Entry.objects.filter(version=version)))
    with pytest.raises(RunCardRejected) as refused:
        submit_run_card(body=body(card), actor=governance_user_without_mfa)
    assert "two-factor authentication" in refused.value.problems[0].message


def test_a_session_signed_in_without_the_code_shows_no_secret_even_when_the_account_has_totp(
        client, secret_world, governance_user):
    """Two-factor authentication is judged per session: a password-only sign-in (for instance from before
    the authenticator was activated) keeps secrets hidden until the user signs in again with the code."""
    password_only_login(client, governance_user)
    for url in secret_urls(secret_world):
        assert SECRET_MARK.encode() not in content_of(client.get(url)), url
    page = client.get(f"/review/campaigns/{secret_world['campaign'].public_id}/decision/")
    assert page.status_code == 403 and b"Confirm this session with your authenticator code" in page.content
    assert b"has not been confirmed with your authenticator code" in client.get("/").content

    client.logout()
    response = client.post("/accounts/login/", {"login": governance_user.email, "password": PASSWORD})
    assert response["Location"] == "/accounts/2fa/authenticate/"
    client.post("/accounts/2fa/authenticate/", {"code": totp_code(governance_user)})
    assert SECRET_MARK.encode() in content_of(client.get(f"/datasets/versions/{secret_world['version'].pk}/entries/"))


def test_the_admin_login_goes_through_the_second_factor(client, maintainer):
    response = client.get("/admin/login/?next=/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
