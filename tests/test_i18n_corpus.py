"""The corpus, organization and account pages in French (Canada) (issue 12, part 4): headings, form labels, the
located problems of a refused import, translated role and token-scope names, and invitation e-mails written in the
invited person's language."""

from html import unescape

import pytest
from django.conf import settings
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import User
from organizations.models import Invitation
from organizations.tasks import email_language, send_invitation_email

from .conftest import corpus_bytes, entry, grant_all_consents

pytestmark = pytest.mark.django_db

FRENCH = {"HTTP_ACCEPT_LANGUAGE": "fr-ca"}
NBSP = "\u00a0"


def page(client, url: str, status: int = 200) -> str:
    response = client.get(url, **FRENCH)
    assert response.status_code == status, url
    return unescape(response.content.decode())


def test_the_dataset_list_speaks_french(client, public_version):
    html = page(client, "/datasets/")
    assert "<h1>Jeux de données</h1>" in html
    assert "Organisation gardienne" in html and "Paire de langues" in html
    assert ">Datasets<" not in html and ">Steward<" not in html


def test_a_refused_import_locates_each_problem_in_french(client, curator, steward):
    client.force_login(curator)
    data = corpus_bytes([entry(1), {"id": 2, "reference": "r"}])
    response = client.post("/datasets/import/", {"organization": steward.slug,
                                                 "file": SimpleUploadedFile("corpus.json", data)}, **FRENCH)
    html = unescape(response.content.decode())
    assert response.status_code == 400
    assert "1 problème trouvé — rien n’a été importé" in html
    assert f"entrée nº 1, identifiant 2, champ «{NBSP}source{NBSP}»{NBSP}: le champ obligatoire est absent" in html
    assert "Téléverser le fichier corrigé" in html and "Fichier de corpus (JSON)" in html


def test_the_consent_page_speaks_french(client, governance_user, public_version):
    grant_all_consents(public_version.dataset, recorded_by=governance_user)
    client.force_login(governance_user)
    html = page(client, f"/datasets/d/{public_version.dataset.identifier}/consent/")
    assert "Consentement de la communauté" in html and "Consigner un nouveau consentement" in html
    assert "Usages couverts par ce consentement" in html and "Date d’octroi" in html
    assert "Record a new consent" not in html


def test_the_profile_names_roles_and_token_scopes_in_french(client, speaker):
    client.force_login(speaker)
    html = page(client, "/accounts/profile/")
    assert "<h1>Mon compte</h1>" in html and "Jetons d’API personnels" in html
    assert "Personne locutrice" in html and "Lire seulement les données publiques" in html
    assert "90 jours" in html
    assert "Speaker" not in html and "Read public data only" not in html


def test_an_invitation_e_mail_follows_the_invited_persons_language(steward, governance_user, speaker):
    """The invited person's own interface language first (when they already have an account), then the
    inviter's; a language without a shipped catalog falls back to the default."""
    invitation = Invitation.objects.create(organization=steward, email="new@example.org", role="speaker",
                                           invited_by=governance_user)
    assert email_language(invitation, "fr-ca") == "fr-ca"
    assert email_language(invitation, "") == settings.LANGUAGE_CODE
    User.objects.create_user(email="New@Example.org", interface_language="fr-ca")
    assert email_language(invitation, "en") == "fr-ca"
    User.objects.filter(email__iexact="new@example.org").update(interface_language="crk")
    assert email_language(invitation, "en") == "en"


def test_an_invitation_e_mail_is_written_in_the_inviters_language(steward, governance_user):
    invitation = Invitation.objects.create(organization=steward, email="new@example.org", role="speaker",
                                           invited_by=governance_user)
    send_invitation_email(invitation.pk, language="fr-ca")
    [message] = mail.outbox
    assert message.subject.endswith("Invitation de Steward Nation")
    assert message.body.startswith("Bonjour,")
    assert f"avec le rôle «{NBSP}personne locutrice{NBSP}»" in message.body
