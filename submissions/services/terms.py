"""Participation terms: published versions (never edited: acceptances point at the exact text) and their
acceptance, which a submission needs in its current version."""

import re

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from common.problems import FieldProblem
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require

from ..models import ParticipationTerms, TermsAcceptance
from ..selectors import current_terms
from .errors import NotAllowed, SubmissionError

VERSION_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")


@transaction.atomic
def publish_terms(*, actor: User, organization: Organization, version: str, text: str,
                  transfer_clause: str) -> ParticipationTerms:
    """Publish a new version (never an edit of an old one: acceptances point at the exact text)."""
    require(actor, "organization.govern", organization, error=NotAllowed)
    version = version.strip()
    if not VERSION_LABEL.match(version):
        raise SubmissionError(_("A version label is 1 to 40 letters, digits, dots, hyphens or underscores, "
                                "starting with a letter or digit (e.g. 1, 2026-1, 1.1)."), "version")
    if not text.strip():
        raise SubmissionError(_("Write the terms a submitter accepts."), "text")
    if not transfer_clause.strip():
        raise SubmissionError(_("The terms must include the ownership-transfer clause (SPEC §5)."),
                              "transfer_clause")
    if ParticipationTerms.objects.filter(organization=organization, version=version).exists():
        raise SubmissionError(_("Version %(version)s is already published; published terms are never edited, "
                                "publish a new version instead.") % {"version": version}, "version")
    terms = ParticipationTerms.objects.create(organization=organization, version=version, text=text.strip(),
                                              transfer_clause=transfer_clause.strip(), published_by=actor)
    record_event(AuditAction.TERMS_PUBLISHED, actor=actor, organization=organization, obj=terms,
                 details={"version": version})
    return terms


@transaction.atomic
def accept_terms(*, actor: User, terms: ParticipationTerms) -> TermsAcceptance:
    """Record that `actor` accepts this exact version; accepting it again changes nothing."""
    if not actor.is_authenticated:
        raise NotAllowed(_("Sign in to accept participation terms."))
    acceptance, created = TermsAcceptance.objects.get_or_create(terms=terms, user=actor)
    if created:
        record_event(AuditAction.TERMS_ACCEPTED, actor=actor, organization=terms.organization, obj=acceptance,
                     details={"version": terms.version, "user": actor.email})
    return acceptance


def check_terms(organization: Organization, submitter, acceptance: TermsAcceptance | None) -> list[FieldProblem]:
    """The submitter must have accepted the organization's current terms version."""
    current = current_terms(organization)
    if current is None:
        return [FieldProblem("terms", _("%(organization)s has not published participation terms yet; submissions "
                                        "open once it does") % {"organization": organization.name})]
    if acceptance is None or acceptance.user_id != submitter.pk or acceptance.terms.organization_id != organization.pk:
        return [FieldProblem("terms", _("accept %(organization)s's participation terms (version %(version)s) before "
                                        "submitting") % {
            "organization": organization.name, "version": current.version})]
    if acceptance.terms_id != current.pk:
        return [FieldProblem("terms", _("you accepted version %(accepted)s, which version %(current)s replaced; "
                                        "accept the current version") % {
            "accepted": acceptance.terms.version, "current": current.version})]
    return []
