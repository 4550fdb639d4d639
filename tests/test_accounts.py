"""Accounts, roles, management commands and personal API tokens."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import ApiToken, User
from organizations.models import Membership, Organization

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_create_org_is_idempotent_and_says_what_it_did(capsys):
    call_command("create_org", "nehiyaw", "--name", "Nêhiyaw Council", "--language", "crk", "--language", "crk-Cans")
    call_command("create_org", "nehiyaw", "--name", "Nêhiyaw Council", "--language", "crk")
    out = capsys.readouterr().out
    assert "Created organization nehiyaw (Nêhiyaw Council); languages: crk, crk-Cans" in out
    assert "Updated organization nehiyaw" in out
    assert Organization.objects.get(slug="nehiyaw").languages == ["crk"]


def test_an_organization_name_that_turns_the_page_around_is_refused_everywhere_it_is_set(admin_client, steward):
    """A right-to-left override (or an invisible character) in a name shown inside every page's sentences: refused
    by the command, the service and the admin's form, naming the character; nothing changes."""
    from common.errors import ApplicationError
    from organizations.services import update_organization

    with pytest.raises(CommandError, match="U\\+202E"):
        call_command("create_org", "reversed", "--name", "Council\u202e of the lake")
    with pytest.raises(ApplicationError, match="U\\+2068"):
        update_organization(actor=None, organization=steward, name="\u2068Steward")
    answer = admin_client.post(f"/admin/organizations/organization/{steward.pk}/change/",
                               {"name": "Steward\u200bNation", "languages": "[]", "principles": ""})
    assert answer.status_code == 200 and "U+200B" in answer.content.decode()
    assert not Organization.objects.filter(slug="reversed").exists()
    steward.refresh_from_db()
    assert steward.name == "Steward Nation"


def test_add_member_creates_verified_user_and_is_idempotent(steward, capsys):
    call_command("add_member", "New.Person@Example.org", "--org", "steward", "--role", "speaker",
                 "--password", PASSWORD)
    call_command("add_member", "new.person@example.org", "--org", "steward", "--role", "speaker")
    call_command("add_member", "new.person@example.org", "--org", "steward", "--role", "curator")
    out = capsys.readouterr().out
    assert "Created user New.Person@example.org" in out
    assert "already is speaker of steward; nothing changed" in out
    assert "Added New.Person@example.org as curator of steward" in out
    user = User.objects.get()
    assert user.check_password(PASSWORD)
    assert EmailAddress.objects.get(user=user).verified
    assert sorted(Membership.objects.filter(user=user).values_list("role", flat=True)) == ["curator", "speaker"]


def test_add_member_refuses_unknown_org_and_role(steward):
    with pytest.raises(CommandError, match="No organization with slug 'nope'"):
        call_command("add_member", "a@b.example", "--org", "nope", "--role", "speaker")
    with pytest.raises(CommandError, match="invalid choice: 'chief'"):
        call_command("add_member", "a@b.example", "--org", "steward", "--role", "chief")


def test_create_api_token_prints_a_working_key(curator, client, capsys):
    call_command("create_api_token", curator.email)
    key = capsys.readouterr().out.strip()
    assert len(key) == 40
    token = ApiToken.objects.get(user=curator)
    assert token.key_hash != key and key.startswith(token.prefix)
    response = client.get("/api/v1/datasets/", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 200
    with pytest.raises(CommandError, match="No user"):
        call_command("create_api_token", "ghost@example.org")


def test_profile_shows_memberships_and_manages_tokens(client, curator, steward):
    client.force_login(curator)
    page = client.get("/accounts/profile/")
    assert b"Steward Nation" in page.content and b"Corpus curator" in page.content
    created = client.post("/accounts/profile/tokens/", {"name": "laptop", "scope": "publish", "lifetime_days": "90"},
                          follow=True)
    key = created.context["new_key"]
    assert key and key.encode() in created.content
    assert created["Cache-Control"] == "private, no-store", "the key shown once is kept by no cache or Back button"
    assert client.get("/accounts/profile/").context["new_key"] is None, "a key is shown only once"
    assert client.get("/api/v1/entries/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    token = ApiToken.objects.get(user=curator)
    client.post(f"/accounts/profile/tokens/{token.pk}/revoke/")
    assert client.get("/api/v1/entries/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401


def test_a_user_cannot_revoke_someone_elses_token(client, curator, speaker):
    from accounts.services import create_api_token

    token, key = create_api_token(actor=curator)
    client.force_login(speaker)
    assert client.post(f"/accounts/profile/tokens/{token.pk}/revoke/").status_code == 404
    token.refresh_from_db()
    assert token.is_active


def test_login_by_email_through_allauth(client, speaker):
    response = client.post("/accounts/login/", {"login": speaker.email, "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/accounts/profile/").status_code == 200


def test_login_of_a_secret_holder_asks_for_the_totp_code(client, curator):
    from .conftest import totp_code

    response = client.post("/accounts/login/", {"login": curator.email, "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/accounts/2fa/authenticate/"
    assert client.get("/accounts/profile/").status_code == 302, "not signed in before the code"
    assert client.post("/accounts/2fa/authenticate/", {"code": "000000"}).status_code == 200
    response = client.post("/accounts/2fa/authenticate/", {"code": totp_code(curator)})
    assert response.status_code == 302
    assert client.get("/accounts/profile/").status_code == 200


def test_failed_logins_are_rate_limited(client, curator):
    pages = [client.post("/accounts/login/", {"login": curator.email, "password": "wrong"}).content
             for _ in range(6)]
    assert b"Too many failed login attempts" not in pages[0]
    assert b"Too many failed login attempts" in pages[-1]
    blocked = client.post("/accounts/login/", {"login": curator.email, "password": PASSWORD})
    assert blocked.status_code != 302, "the right password is refused too while the limit holds"


def test_profile_requires_login(client):
    response = client.get("/accounts/profile/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_only_governance_can_invite(client, steward, curator, governance_user):
    client.force_login(curator)
    assert client.post(f"/orgs/{steward.slug}/", {"email": "x@y.example", "role": "speaker"}).status_code == 403
    client.force_login(governance_user)
    page = client.get(f"/orgs/{steward.slug}/")
    assert b"Invite a speaker or curator" in page.content
    bad = client.post(f"/orgs/{steward.slug}/", {"email": "not-an-email", "role": "governance"})
    assert bad.status_code == 400
    assert b"Enter a valid email address" in bad.content and b"Select a valid choice" in bad.content


def test_password_reset_sends_a_link_that_sets_a_new_password(client, curator, mailoutbox):
    response = client.post("/accounts/password/reset/", {"email": curator.email})
    assert response.status_code == 302
    assert len(mailoutbox) == 1 and mailoutbox[0].to == [curator.email]
    link = re.search(r"https?://[^/]+(/accounts/password/reset/key/\S+)", mailoutbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    new_password = "a brand new passphrase 77"
    client.post(form_page.redirect_chain[-1][0] if form_page.redirect_chain else link,
                {"password1": new_password, "password2": new_password})
    curator.refresh_from_db()
    assert curator.check_password(new_password)


def test_mfa_setup_page_is_available_to_signed_in_users(client, governance_user):
    client.force_login(governance_user)
    response = client.get("/accounts/2fa/")
    assert response.status_code == 200 and b"Authenticator" in response.content


def test_inviting_twice_reuses_the_open_invitation_and_survives_a_broker_outage(
    steward, governance_user, monkeypatch, django_capture_on_commit_callbacks
):
    from organizations import tasks
    from organizations.models import Invitation
    from organizations.services import invite_member

    def broker_down(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(tasks.send_invitation_email, "delay", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        first = invite_member(organization=steward, email="Speaker@Example.org", role="speaker", actor=governance_user)
    with django_capture_on_commit_callbacks(execute=True):
        second = invite_member(
            organization=steward,
            email="speaker@example.org ",
            role="speaker",
            actor=governance_user,
        )
    assert first.pk == second.pk and Invitation.objects.count() == 1
    assert first.email == "speaker@example.org"


def test_public_names_are_compared_by_unicode_case_folding_on_every_database():
    """Folded in Python, not by the database's LOWER() (ASCII letters only on SQLite): a name in other capitals, with
    its accents typed as separate marks, or with ß written ss is the name another account already uses."""
    from accounts.services import PublicNameRefused, set_public_name

    first, second = User.objects.create_user("first@example.org"), User.objects.create_user("second@example.org")
    set_public_name(actor=first, name="Kîsik Straße")
    for name in ("KÎSIK STRASSE", "ki\u0302sik strasse"):
        with pytest.raises(PublicNameRefused):
            set_public_name(actor=second, name=name)
    assert set_public_name(actor=first, name="KÎSIK STRASSE").public_name == "KÎSIK STRASSE"  # one's own, recapitalised
    assert User.objects.get(pk=first.pk).public_name_key == "kîsik strasse"
    set_public_name(actor=first, name="")
    assert set_public_name(actor=second, name="Kîsik").public_name_key == "kîsik"


def test_the_migration_keys_chosen_names_and_gives_a_duplicate_back_its_pseudonym():
    """Names stored before the key, which SQLite's LOWER() let two accounts share: the first chooser keeps it."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("accounts.migrations.0006_user_public_name_key")
    for local, name in (("a", "Kîsik"), ("b", "KÎSIK"), ("c", "Other")):
        User.objects.create_user(f"{local}@example.org", public_name=name)
    migration.fill_public_name_keys(apps, None)
    stored = {user.email: (user.public_name, user.public_name_key) for user in User.objects.all()}
    assert stored == {"a@example.org": ("Kîsik", "kîsik"), "b@example.org": ("", ""),
                      "c@example.org": ("Other", "other")}
