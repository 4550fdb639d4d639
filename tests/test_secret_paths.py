"""Secrets stay secret on every path: sessions prove the second factor themselves, API tokens are scoped,
expiring and revoked with the credentials they were made under, review POSTs follow the serving rule, the
admin answers no lookup on secret text and keeps authenticator secrets encrypted, and responses that show
secret text are never cached."""

import datetime
import re

import pytest
from allauth.mfa.models import Authenticator
from django.core import mail
from django.utils import timezone

from accounts.models import ApiToken, User
from accounts.services import TokenRefused, create_api_token
from corpus.models import Entry
from organizations.audit import seal_secret_views
from organizations.models import AuditEvent, Membership
from organizations.services import add_member, invite_member
from review import services as review_services
from review.models import Assignment, Campaign

from . import test_mfa, test_visibility
from .conftest import (
    PASSWORD,
    SECRET_MARK,
    enable_totp,
    member,
    password_only_login,
    shared_fixture,
    totp_code,
)
from .test_mfa import content_of, secret_urls
from .test_visibility import every_response

# Fixtures shared with the files that define them.
secret_world = test_mfa.secret_world
world = test_visibility.world
developer = test_visibility.developer

pytestmark = pytest.mark.django_db


def sees_no_secret(client, urls, **headers) -> None:
    for url in urls:
        response = client.get(url, **headers)
        assert SECRET_MARK.encode() not in content_of(response), url
        assert response.status_code < 500, url


def signed_up_by_invitation(client, steward, governance_user) -> User:
    """A curator who followed an invitation and signed up: allauth logs the new account in directly."""
    invitation = invite_member(
        organization=steward,
        email="newcurator@steward.example",
        role="curator",
        actor=governance_user,
    )
    client.get(f"/invitations/{invitation.token}/")
    response = client.post("/accounts/signup/", {"email": "newcurator@steward.example", "password1": PASSWORD,
                                                 "password2": PASSWORD})
    assert response.status_code == 302
    user = User.objects.get(email="newcurator@steward.example")
    assert Membership.objects.filter(user=user, organization=steward, role="curator").exists()
    assert client.get("/accounts/profile/").status_code == 200  # signed in
    return user


def signed_in_by_email_confirmation(client, steward) -> User:
    """Sign up without an invitation, then follow the e-mailed confirmation link: that logs the session in."""
    client.post("/accounts/signup/", {"email": "confirmer@steward.example", "password1": PASSWORD,
                                      "password2": PASSWORD})
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/[^\s]+/)", mail.outbox[-1].body).group(1)
    assert client.post(link).status_code == 302
    user = User.objects.get(email="confirmer@steward.example")
    assert client.get("/accounts/profile/").status_code == 200
    add_member(email=user.email, organization=steward, role="curator", actor=None)
    return user


# 1. Every session proves the second factor itself.

def test_a_session_opened_by_sign_up_shows_no_secret_once_totp_is_activated_elsewhere(
        client, secret_world, governance_user):
    user = signed_up_by_invitation(client, secret_world["version"].dataset.organization, governance_user)
    enable_totp(user)  # in another browser
    sees_no_secret(client, secret_urls(secret_world))
    page = client.get(f"/datasets/versions/{secret_world['version'].pk}/entries/")
    assert b"has not been confirmed with your authenticator code" in page.content


def test_a_session_opened_by_email_confirmation_shows_no_secret(client, secret_world, steward):
    user = signed_in_by_email_confirmation(client, steward)
    enable_totp(user)
    sees_no_secret(client, secret_urls(secret_world))


def test_a_session_opened_by_password_reset_shows_no_secret(client, secret_world, curator_without_mfa, settings):
    """Reset while the account had no authenticator (with one, allauth asks for its code before logging in);
    the authenticator is activated elsewhere afterwards."""
    settings.ACCOUNT_LOGIN_ON_PASSWORD_RESET = True
    curator = curator_without_mfa
    client.post("/accounts/password/reset/", {"email": curator.email})
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/[^\s]+/)", mail.outbox[-1].body).group(1)
    form_url = client.get(link)["Location"]
    response = client.post(form_url, {"password1": "a new long passphrase 77", "password2": "a new long passphrase 77"})
    assert response.status_code == 302
    assert client.get("/accounts/profile/").status_code == 200  # signed in by the reset
    enable_totp(curator)
    sees_no_secret(client, secret_urls(secret_world))


def test_typing_the_code_in_the_session_proves_it_there(client, secret_world, curator):
    password_only_login(client, curator)
    entries = f"/datasets/versions/{secret_world['version'].pk}/entries/"
    assert SECRET_MARK.encode() not in client.get(entries).content
    client.post("/accounts/2fa/reauthenticate/", {"code": totp_code(curator)})
    assert SECRET_MARK.encode() in client.get(entries).content


def test_a_proof_of_a_removed_authenticator_proves_nothing(client, secret_world, curator):
    """The session proved authenticator A; A is deactivated and B activated elsewhere: the session must prove B."""
    client.force_login(curator)
    entries = f"/datasets/versions/{secret_world['version'].pk}/entries/"
    assert SECRET_MARK.encode() in client.get(entries).content
    Authenticator.objects.filter(user=curator).delete()
    enable_totp(curator)
    assert SECRET_MARK.encode() not in client.get(entries).content


def test_selectors_fail_closed_for_a_user_object_without_proof(steward, curator):
    from organizations.selectors import secret_reader_org_ids

    assert secret_reader_org_ids(curator) == [steward.pk]
    assert secret_reader_org_ids(User.objects.get(pk=curator.pk)) == []  # loaded by a task or a command


# 2. API tokens.

def create_token_page(client, **fields):
    data = {"name": "laptop", "scope": "publish", "lifetime_days": "90"}
    data.update(fields)
    return client.post("/accounts/profile/tokens/", data)


def test_an_unproven_session_creates_no_token(client, curator):
    password_only_login(client, curator)
    for scope in ("read", "publish", "secret"):
        response = create_token_page(client, scope=scope)
        assert response.status_code == 403
        assert b"confirmed with your authenticator code" in response.content
    assert not ApiToken.objects.filter(user=curator).exists()


def test_a_secret_token_needs_a_proven_session(client, developer):
    """An account without two-factor authentication makes public tokens only."""
    client.force_login(developer)
    assert create_token_page(client, scope="secret").status_code == 403
    assert create_token_page(client, scope="publish").status_code == 302
    assert list(ApiToken.objects.filter(user=developer).values_list("scope", flat=True)) == ["publish"]


def test_token_form_rejects_unknown_scope_and_lifetime(client, curator):
    client.force_login(curator)
    response = create_token_page(client, scope="admin", lifetime_days="10000")
    assert response.status_code == 400
    assert b"Select a valid choice. admin is not one of the available choices." in response.content
    assert not ApiToken.objects.exists()


def test_a_proven_session_chooses_the_scope_and_sees_the_expiry(client, curator):
    client.force_login(curator)
    assert create_token_page(client, scope="secret", lifetime_days="30").status_code == 302
    token = ApiToken.objects.get(user=curator)
    assert token.scope == "secret"
    assert abs((token.expires_at - timezone.now()) - datetime.timedelta(days=30)) < datetime.timedelta(minutes=1)
    page = client.get("/accounts/profile/")
    assert token.expires_at.strftime("%Y-%m-%d").encode() in page.content
    assert b"Also read the secret segments" in page.content


def test_only_secret_tokens_read_secrets_and_each_read_is_audited_with_the_token_name(client, secret_world, curator):
    version = secret_world["version"]
    url = f"/api/v1/dataset-versions/{version.pk}/entries/"
    _, public_key = create_api_token(actor=curator, name="publisher", scope="publish")
    response = client.get(url, HTTP_AUTHORIZATION=f"Token {public_key}")
    assert response.status_code == 200 and SECRET_MARK.encode() not in response.content
    token, secret_key = create_api_token(actor=curator, name="nightly export", scope="secret")
    response = client.get(url, HTTP_AUTHORIZATION=f"Token {secret_key}")
    assert response.status_code == 200 and SECRET_MARK.encode() in response.content
    seal_secret_views()
    event = AuditEvent.objects.filter(action="secret_entries.shown").latest("id")
    assert event.details["token"] == f"nightly export ({token.prefix}…)" and event.actor == curator


def test_a_read_token_cannot_write(client, steward, curator):
    _, key = create_api_token(actor=curator, scope="read")
    response = client.post("/api/v1/run-cards/", data=b"{}", content_type="application/json",
                           HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 403 and "read-only" in response.json()["detail"]


def test_an_expired_token_is_refused_with_its_date(client, curator):
    token, key = create_api_token(actor=curator)
    ApiToken.objects.filter(pk=token.pk).update(created_at=timezone.now() - datetime.timedelta(days=91),
                                                expires_at=timezone.now() - datetime.timedelta(seconds=1))
    response = client.get("/api/v1/entries/", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 401 and "expired" in response.json()["detail"]


def test_a_password_change_revokes_every_token(client, curator):
    _, key = create_api_token(actor=curator, scope="secret")
    client.force_login(curator)
    response = client.post("/accounts/password/change/", {"oldpassword": PASSWORD, "password1": "another passphrase 88",
                                                          "password2": "another passphrase 88"})
    assert response.status_code == 302
    assert client.get("/api/v1/entries/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401
    assert ApiToken.objects.get(user=curator).revoked_reason == "password changed"


def test_a_password_reset_revokes_every_token(client, curator):
    _, key = create_api_token(actor=curator)
    client.post("/accounts/password/reset/", {"email": curator.email})
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/[^\s]+/)", mail.outbox[-1].body).group(1)
    form_url = client.get(link)["Location"]
    client.post(form_url, {"password1": "a new long passphrase 77", "password2": "a new long passphrase 77"})
    assert ApiToken.objects.get(user=curator).revoked_at is not None


def test_deactivating_two_factor_revokes_every_token(client, curator):
    _, key = create_api_token(actor=curator, scope="secret")
    client.force_login(curator)
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    response = client.post("/accounts/2fa/totp/deactivate/")
    assert response.status_code == 302 and not Authenticator.objects.filter(user=curator, type="totp").exists()
    assert client.get("/api/v1/entries/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401


def test_the_command_line_makes_no_secret_token(curator):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError):
        call_command("create_api_token", curator.email, "--scope", "secret")
    with pytest.raises(TokenRefused):
        create_api_token(actor=User.objects.get(pk=curator.pk), scope="secret", operator=True)


# 3. Review POSTs follow the serving rule.

@shared_fixture
def speaker_items(steward, governance_user):
    from .review_setup import gold_card, settings_for, speakers

    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 2)
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=4,
                                                                                      ratings_per_item=2),
    )
    assignment = Assignment.objects.filter(campaign=campaign, speaker=pool[0]).first()
    return campaign, assignment, pool[0]


def stop_serving(how: str, campaign, governance_user) -> None:
    from corpus.models import ConsentRecord
    from corpus.services import revoke_consent

    if how == "withdrawn":
        for record in ConsentRecord.objects.filter(dataset=campaign.run_card.dataset_version.dataset):
            revoke_consent(record=record, actor=governance_user, reason="the council withdrew it")
    else:
        review_services.set_campaign_status(campaign=campaign, actor=governance_user, status=how)


@pytest.mark.parametrize("how", ["paused", "closed", "withdrawn"])
@pytest.mark.parametrize("data", [{}, {"value": "nonsense"}, {"value": "excellent", "client_id": "not-a-uuid"},
                                  {"value": "gist", "client_id": "8b0d4c52-9bfb-4f7e-a7f3-7f0fb8b5f0a1"}])
def test_a_post_on_an_item_that_is_not_served_shows_no_item_text(client, speaker_items, governance_user, how, data):
    campaign, assignment, speaker = speaker_items
    stop_serving(how, campaign, governance_user)
    client.force_login(speaker)
    response = client.post(f"/review/items/{assignment.public_id}/", data)
    assert response.status_code == 409
    assert SECRET_MARK.encode() not in response.content and b"OUTPUTTEXT" not in response.content
    assert not assignment.ratings.exists()


# 4. The admin.

def test_the_admin_answers_no_lookup_on_text_or_secrets(client, secret_world, maintainer):
    enable_totp(maintainer)
    client.force_login(maintainer)
    probes = [
        "/admin/leaderboard/runcard/?raw__contains=SECRETTEXT",
        "/admin/leaderboard/runcard/?raw__regex=SECRET",
        "/admin/leaderboard/runcard/?method_config__icontains=x",
        "/admin/leaderboard/runcard/?discrepancies__contains=x",
        "/admin/corpus/entry/?source__startswith=source",
        "/admin/corpus/entry/?reference__contains=SECRET",
        "/admin/corpus/datasetversion/?entries__source__contains=SECRET",
        "/admin/corpus/dataset/?versions__entries__reference__contains=SECRET",
        "/admin/mfa/authenticator/?data__secret__startswith=A",
        "/admin/mfa/authenticator/?data__contains=A",
        "/admin/review/campaign/?run_card__raw__contains=SECRET",
        "/admin/accounts/user/?password__startswith=md5",
        "/admin/accounts/apitoken/?key_hash__startswith=a",
    ]
    for url in probes:
        response = client.get(url)
        assert response.status_code == 400, url  # DisallowedModelAdminLookup
    assert client.get("/admin/corpus/entry/?q=SECRETTEXT").status_code == 200
    assert b"0 entries" in client.get("/admin/corpus/entry/?q=SECRETTEXT").content
    assert client.get("/admin/leaderboard/runcard/?status__exact=verified").status_code == 200


def test_totp_secrets_are_encrypted_at_rest_and_hidden_in_the_admin(client, curator, maintainer):
    from allauth.mfa.utils import decrypt

    authenticator = Authenticator.objects.get(user=curator, type="totp")
    stored = authenticator.data["secret"]
    assert stored.startswith("fernet:") and len(decrypt(stored)) == 32
    client.force_login(maintainer)
    page = client.get(f"/admin/mfa/authenticator/{authenticator.pk}/change/")
    assert page.status_code == 200
    assert decrypt(stored).encode() not in page.content and stored.encode() not in page.content


def test_the_migration_encrypts_secrets_stored_before(curator):
    from importlib import import_module

    from allauth.mfa.utils import decrypt
    from django.apps import apps as global_apps

    authenticator = Authenticator.objects.get(user=curator, type="totp")
    clear = decrypt(authenticator.data["secret"])
    Authenticator.objects.filter(pk=authenticator.pk).update(data={"secret": clear})
    import_module("accounts.migrations.0003_encrypt_authenticator_secrets").encrypt_stored_secrets(global_apps, None)
    authenticator.refresh_from_db()
    assert authenticator.data["secret"].startswith("fernet:") and decrypt(authenticator.data["secret"]) == clear


def test_admin_membership_changes_go_through_the_audited_services(client, steward, governance_user, maintainer):
    speaker = member("someone@steward.example", steward, "curator")
    membership = Membership.objects.get(user=speaker, organization=steward)
    client.force_login(maintainer)
    response = client.post(f"/admin/organizations/membership/{membership.pk}/change/", {"role": "speaker"})
    assert response.status_code == 302
    changed = AuditEvent.objects.filter(action="membership.role_changed").latest("id")
    assert changed.details == {"user": speaker.email, "from": "curator", "to": "speaker"}
    assert changed.actor == maintainer
    response = client.post(f"/admin/organizations/membership/{membership.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not Membership.objects.filter(pk=membership.pk).exists()
    assert AuditEvent.objects.filter(action="membership.removed", actor=maintainer).exists()
    response = client.post("/admin/organizations/membership/add/", {"user": speaker.pk, "organization": steward.pk,
                                                                 "role": "speaker"})
    assert response.status_code == 302
    assert AuditEvent.objects.filter(action="membership.added", actor=maintainer).exists()


def test_governance_staff_remove_a_member_or_change_a_role_from_the_organization_page(client, steward,
                                                                                    governance_user):
    curator = member("c2@steward.example", steward, "curator")
    membership = Membership.objects.get(user=curator, organization=steward)
    client.force_login(governance_user)
    page = client.get("/orgs/steward/")
    assert f"/orgs/steward/members/{membership.pk}/remove/".encode() in page.content
    client.post(f"/orgs/steward/members/{membership.pk}/role/", {"role": "speaker"})
    membership.refresh_from_db()
    assert membership.role == "speaker"
    client.post(f"/orgs/steward/members/{membership.pk}/remove/")
    assert not Membership.objects.filter(pk=membership.pk).exists()
    assert {"membership.role_changed", "membership.removed"} <= set(
        AuditEvent.objects.filter(actor=governance_user).values_list("action", flat=True))
    own = Membership.objects.get(user=governance_user, organization=steward)
    response = client.post(f"/orgs/steward/members/{own.pk}/remove/", follow=True)
    assert b"keeps at least one governance staff member" in response.content
    assert Membership.objects.filter(pk=own.pk).exists()


def test_members_of_other_organizations_are_not_found(client, steward, other_org, governance_user):
    elsewhere = member("x@other.example", other_org, "speaker")
    membership = Membership.objects.get(user=elsewhere)
    client.force_login(governance_user)
    assert client.post(f"/orgs/steward/members/{membership.pk}/remove/").status_code == 404
    assert client.post(f"/orgs/other/members/{membership.pk}/remove/").status_code == 404
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_a_speaker_removed_from_the_organization_hands_back_open_items(steward, governance_user, speaker_items):
    from organizations.services import remove_member

    campaign, assignment, speaker = speaker_items
    open_before = Assignment.objects.filter(campaign=campaign, speaker=speaker, state="open").count()
    assert open_before
    remove_member(
        membership=Membership.objects.get(user=speaker, organization=steward, role="speaker"),
        actor=governance_user,
    )
    assert not Assignment.objects.filter(campaign=campaign, speaker=speaker, state="open").exists()
    assert campaign.pool.get(user=speaker).left_at is not None


# 6f. Responses with secret text are never cached.

def test_responses_with_secret_text_are_private_and_not_stored(client, secret_world, curator):
    client.force_login(curator)
    version = secret_world["version"]
    gold = Entry.objects.get(version=version, segment="gold_standard")
    for url in (f"/datasets/entries/{gold.pk}/", f"/datasets/versions/{version.pk}/entries/",
                f"/api/v1/entries/{gold.pk}/"):
        response = client.get(url)
        assert SECRET_MARK.encode() in content_of(response), url
        assert {"private", "no-store"} <= {part.strip() for part in response["Cache-Control"].split(",")}, url
    public = client.get("/datasets/")
    assert "no-store" not in public.get("Cache-Control", "")


# The visibility walk, as the personas these holes needed.

@pytest.fixture
def walk_as(client, world, steward, governance_user):
    def as_persona(persona: str):
        if persona == "sign_up_session":
            enable_totp(signed_up_by_invitation(client, steward, governance_user))
        elif persona == "email_confirmation_session":
            enable_totp(signed_in_by_email_confirmation(client, steward))
        return client
    return as_persona


@pytest.mark.slow
@pytest.mark.parametrize("persona", ["sign_up_session", "email_confirmation_session"])
def test_walk_sessions_that_never_gave_the_code(walk_as, world, persona):
    client = walk_as(persona)
    checked = 0
    for url, status, content in every_response(client, world):
        assert SECRET_MARK.encode() not in content, f"{persona} saw secret text at {url} ({status})"
        checked += 1
    assert checked > 50


@pytest.mark.slow
def test_walk_a_token_created_before_two_factor(client, world, steward):
    """A publish token made while the account had no authenticator; the account then becomes a curator with
    one. Through the token: nothing secret, anywhere."""
    user = User.objects.create_user("latecomer@steward.example", PASSWORD)
    _, key = create_api_token(actor=user, scope="publish")
    add_member(email=user.email, organization=steward, role="curator", actor=None)
    enable_totp(user)
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {key}"
    checked = 0
    for url, status, content in every_response(client, world):
        assert SECRET_MARK.encode() not in content, f"token saw secret text at {url} ({status})"
        checked += 1
    assert checked > 50


@pytest.mark.slow
@pytest.mark.parametrize("how", ["paused", "closed", "withdrawn"])
def test_walk_a_speaker_of_a_campaign_that_stopped_serving(client, world, speaker, governance_user, how):
    campaign = Campaign.objects.get()
    stop_serving(how, campaign, governance_user)
    client.force_login(speaker)
    for item in world["own_items"]:
        for data in ({}, {"value": "gist"}, {"value": "gist", "client_id": "2d1c9a44-3c55-4d4b-9d0e-0d2f1e6c7b10"}):
            response = client.post(item, data)
            assert SECRET_MARK.encode() not in response.content, item
    for url, _status, content in every_response(client, world):
        assert SECRET_MARK.encode() not in content, f"speaker of a {how} campaign saw secret text at {url}"


@pytest.mark.slow
def test_walk_a_superuser_using_changelist_lookups(client, world, maintainer):
    from django.contrib import admin

    client.force_login(maintainer)
    fields = ("raw", "source", "reference", "method_config", "data", "comment", "correction", "discrepancies",
              "summary", "text", "details")
    checked = 0
    for model in admin.site._registry:
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        for field in fields:
            for lookup in ("contains", "icontains", "regex", "startswith"):
                response = client.get(f"{base}?{field}__{lookup}=SECRET")
                assert SECRET_MARK.encode() not in response.content
                assert response.status_code in (302, 400), f"{base}?{field}__{lookup}"
                checked += 1
    assert checked > 100


# Second review: the factor's own pages, recovery codes, maintainers holding roles, admin edge cases.

def test_a_recovery_code_manages_the_factor_but_shows_no_secret(client, secret_world, curator):
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes

    codes = RecoveryCodes.activate(curator).generate_codes()
    password_only_login(client, curator)
    client.post("/accounts/2fa/reauthenticate/", {"code": codes[0]})
    entries = f"/datasets/versions/{secret_world['version'].pk}/entries/"
    assert SECRET_MARK.encode() not in client.get(entries).content
    assert client.get("/accounts/2fa/recovery-codes/").status_code == 200


@pytest.mark.parametrize("page", ["/accounts/2fa/recovery-codes/", "/accounts/2fa/recovery-codes/generate/",
                                  "/accounts/2fa/totp/deactivate/"])
def test_a_password_alone_neither_reads_recovery_codes_nor_deactivates_the_factor(client, curator, page):
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes

    RecoveryCodes.activate(curator)
    password_only_login(client, curator)
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    for method in (client.get, client.post):
        response = method(page)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/2fa/reauthenticate/")
    assert Authenticator.objects.filter(user=curator, type="totp").exists()


def test_a_maintainer_removing_an_authenticator_removes_its_recovery_codes_and_tokens(client, curator, maintainer):
    from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes

    RecoveryCodes.activate(curator)
    _, key = create_api_token(actor=curator, scope="secret")
    totp = Authenticator.objects.get(user=curator, type="totp")
    client.force_login(maintainer)
    response = client.post(f"/admin/mfa/authenticator/{totp.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Authenticator.objects.filter(user=curator).exists()
    assert client.get("/api/v1/entries/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401


def test_a_maintainer_who_is_also_a_curator_reads_no_secret_in_the_admin(client, secret_world, curator):
    curator.is_staff = curator.is_superuser = True
    curator.save(update_fields=["is_staff", "is_superuser"])
    client.force_login(curator)
    gold = Entry.objects.get(version=secret_world["version"], segment="gold_standard")
    assert SECRET_MARK.encode() not in client.get("/admin/corpus/entry/").content
    assert client.get(f"/admin/corpus/entry/{gold.pk}/change/").status_code == 302  # not in its list: no page
    assert SECRET_MARK.encode() in client.get(f"/datasets/entries/{gold.pk}/").content  # the page, audited


def test_the_entry_edit_page_is_audited_and_not_cached(client, secret_world, curator):
    gold = Entry.objects.get(version=secret_world["version"], segment="gold_standard")
    client.force_login(curator)
    seal_secret_views()
    before = AuditEvent.objects.filter(action="secret_entries.shown").count()
    response = client.get(f"/datasets/entries/{gold.pk}/edit/")
    assert SECRET_MARK.encode() in response.content and "no-store" in response["Cache-Control"]
    seal_secret_views()
    assert AuditEvent.objects.filter(action="secret_entries.shown").count() == before + 1


def test_site_staff_grant_no_secret_reading_role_in_the_admin(client, steward, maintainer):
    client.force_login(maintainer)
    for role in ("governance", "curator"):
        response = client.post("/admin/organizations/membership/add/", {"user": maintainer.pk,
                                                                     "organization": steward.pk, "role": role})
        assert response.status_code == 200  # the form is shown again with its error
        response = client.post("/admin/organizations/invitation/add/", {"organization": steward.pk,
                                                                     "email": maintainer.email, "role": role})
        assert response.status_code == 200
    assert not Membership.objects.filter(user=maintainer).exists()


def test_an_organization_edited_in_the_admin_is_saved_and_audited(client, steward, maintainer):
    client.force_login(maintainer)
    response = client.post(f"/admin/organizations/organization/{steward.pk}/change/", {
        "name": "Steward Nation Council", "languages": '["crk"]', "principles": "OCAP®"})
    assert response.status_code == 302, response.content[:2000]
    steward.refresh_from_db()
    assert steward.name == "Steward Nation Council"
    event = AuditEvent.objects.filter(action="organization.changed").latest("id")
    assert event.details == {"changed": ["name"]} and event.actor == maintainer
    response = client.post("/admin/organizations/organization/add/", {
        "name": "Anishinaabe Council", "slug": "anishinaabe", "languages": '["oj"]', "principles": ""})
    assert response.status_code == 302
    assert AuditEvent.objects.filter(action="organization.created", actor=maintainer,
                                     organization__slug="anishinaabe").exists()


def test_the_last_governance_member_cannot_be_removed_in_the_admin_either(client, steward, governance_user,
                                                                          maintainer):
    membership = Membership.objects.get(user=governance_user, role="governance")
    client.force_login(maintainer)
    response = client.post(f"/admin/organizations/membership/{membership.pk}/delete/", {"post": "yes"}, follow=True)
    assert response.status_code == 200 and b"keeps at least one governance staff member" in response.content
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_list_filters_work_on_related_paths_and_ranges_only_on_dates(client, maintainer):
    client.force_login(maintainer)
    assert client.get("/admin/corpus/consentrecord/?dataset__organization__id__exact=1").status_code == 200
    assert client.get("/admin/corpus/entry/?domain__gte=m").status_code == 400
    assert client.get("/admin/corpus/entry/?segment__exact=development").status_code == 200


def test_disabling_password_sign_in_revokes_tokens_and_a_rehash_does_not(curator):
    token, _ = create_api_token(actor=curator)
    curator.password = "md5$rehashed$0123"  # what Django's check_password stores when it upgrades a hash
    curator.save(update_fields=["password"])
    token.refresh_from_db()
    assert token.revoked_at is None
    curator.set_unusable_password()
    curator.save()
    token.refresh_from_db()
    assert token.revoked_reason == "password changed"


def test_secrets_encrypted_under_an_earlier_key_still_decrypt(settings):
    from accounts.mfa_adapter import decrypt_secret, encrypt_secret

    settings.MFA_ENCRYPTION_KEY = "first key"
    stored = encrypt_secret("JBSWY3DPEHPK3PXP")
    settings.MFA_ENCRYPTION_KEY, settings.MFA_ENCRYPTION_KEY_FALLBACKS = "second key", ["first key"]
    assert decrypt_secret(stored) == "JBSWY3DPEHPK3PXP"
    settings.MFA_ENCRYPTION_KEY_FALLBACKS = []
    with pytest.raises(ValueError, match="cannot decrypt"):
        decrypt_secret(stored)


def test_production_without_an_mfa_encryption_key_is_warned_about(settings):
    from django.core.checks.registry import registry

    from config import checks

    settings.PRODUCTION, settings.MFA_ENCRYPTION_KEY = True, ""
    assert [w.id for w in checks.mfa_encryption_key_in_production(None)] == ["champollion.W002"]
    settings.MFA_ENCRYPTION_KEY = "a long random key"
    assert checks.mfa_encryption_key_in_production(None) == []
    assert checks.mfa_encryption_key_in_production in registry.get_checks(include_deployment_checks=True)


def test_the_account_holder_is_told_when_the_password_or_the_second_factor_changes(client, curator):
    client.force_login(curator)
    client.post("/accounts/reauthenticate/", {"password": PASSWORD})
    client.post("/accounts/2fa/totp/deactivate/")
    client.post("/accounts/password/change/", {"oldpassword": PASSWORD, "password1": "another passphrase 88",
                                               "password2": "another passphrase 88"})
    subjects = [message.subject for message in mail.outbox if message.to == [curator.email]]
    assert any("deactivated" in subject.lower() for subject in subjects), subjects
    assert any("password changed" in subject.lower() for subject in subjects), subjects
