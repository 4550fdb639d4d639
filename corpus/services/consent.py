"""A community's consent to uses of its dataset, its supporting document, and the public release it allows."""

import datetime
from pathlib import PurePath

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from organizations.audit import record_event
from organizations.models import AuditAction

from ..label_selectors import LabelReleaseRequired, release_block
from ..models import CONSENT_DOCUMENT_EXTENSIONS, ConsentRecord, ConsentUse, Dataset
from ..selectors.consent import has_consent
from ..validation import too_large
from .errors import ConsentRequired


@transaction.atomic
def set_dataset_public(*, actor: User | None, dataset: Dataset, is_public: bool) -> Dataset:
    """Release the public segments to everyone, or withdraw them from public view. Releasing needs an
    active consent covering public release, and the release decision of its restrictive Local Contexts labels
    when it carries some (docs/labels.md); withdrawing is always possible."""
    if is_public and not dataset.is_public and not has_consent(dataset, ConsentUse.PUBLIC_RELEASE):
        raise ConsentRequired(
            gettext("%(dataset)s cannot be released publicly: no active consent record covers public release of "
                    "its development and diagnostic segments. Record the community's consent first.")
            % {"dataset": dataset.identifier})
    block = release_block(dataset) if is_public and not dataset.is_public else None
    if block is not None:
        raise LabelReleaseRequired(block.message, "labels")
    if dataset.is_public != is_public:
        dataset.is_public = is_public
        dataset.save(update_fields=["is_public"])
        record_event(AuditAction.DATASET_PUBLISHED if is_public else AuditAction.DATASET_WITHDRAWN, actor=actor,
                     organization=dataset.organization, obj=dataset, details={"dataset": dataset.identifier})
    return dataset


# The signatures of the accepted document types: a renamed executable is not a PDF.
DOCUMENT_SIGNATURES = {
    "pdf": (b"%PDF-",),
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpg": (b"\xff\xd8\xff",),
    "jpeg": (b"\xff\xd8\xff",),
    "docx": (b"PK\x03\x04",),
}


def document_problem(document: UploadedFile) -> str | None:
    """Why an uploaded supporting document is refused, or None: size, type (by extension) and content."""
    limit = settings.CONSENT_DOCUMENT_MAX_BYTES
    assert document.size is not None  # Django's upload handlers (and SimpleUploadedFile) always set the size
    if document.size > limit:
        return too_large(document.size, limit).message
    extension = PurePath(document.name or "").suffix.lower().lstrip(".")
    if extension not in CONSENT_DOCUMENT_EXTENSIONS:
        if not extension:
            return gettext("a file without an extension is not accepted; upload PDF, PNG, JPEG, plain text (.txt) "
                           "or Word (.docx)")
        return gettext("a .%(extension)s file is not accepted; upload PDF, PNG, JPEG, plain text (.txt) or Word "
                       "(.docx)") % {"extension": extension}
    document.seek(0)
    head = document.read(2048)
    document.seek(0)
    if extension == "txt":
        if b"\x00" in head:
            return gettext("this .txt file is not plain text")
        return None
    if not head.startswith(DOCUMENT_SIGNATURES[extension]):
        return gettext("the file's content is not %(format)s; upload the document in the format its name says") % {
            "format": extension.upper()}
    return None


def consent_problems(uses, granted_by_name: str, granted_on, document, document_reference: str) -> dict[str, str]:
    """Every problem of a consent to be recorded, by field name."""
    problems: dict[str, str] = {}
    uses = list(uses or [])
    unknown = [str(use) for use in uses if use not in ConsentUse.values]
    if unknown:
        problems["uses"] = gettext("unknown use(s) %(unknown)s; expected: %(uses)s") % {
            "unknown": ", ".join(unknown), "uses": ", ".join(ConsentUse.values)}
    elif not uses:
        problems["uses"] = gettext("choose at least one use the community consented to")
    name_limit = ConsentRecord._meta.get_field("granted_by_name").max_length
    reference_limit = ConsentRecord._meta.get_field("document_reference").max_length
    # Both are CharFields, which always have a max_length
    assert name_limit is not None and reference_limit is not None
    if not (granted_by_name or "").strip():
        problems["granted_by_name"] = gettext("name the person or body who granted consent on the community's "
                                              "behalf")
    elif len(granted_by_name.strip()) > name_limit:
        problems["granted_by_name"] = gettext("at most %(limit)s characters") % {"limit": name_limit}
    if not isinstance(granted_on, datetime.date):
        problems["granted_on"] = gettext("give the date the consent was granted")
    elif granted_on > timezone.localdate():
        problems["granted_on"] = gettext("a consent cannot be granted in the future")
    if len((document_reference or "").strip()) > reference_limit:
        problems["document_reference"] = gettext("at most %(limit)s characters") % {"limit": reference_limit}
    if document is not None:
        problem = document_problem(document)
        if problem:
            problems["document"] = problem
    elif not (document_reference or "").strip():
        problems["document_reference"] = gettext("upload the supporting document or give a reference to it (URL or "
                                                 "archive)")
    return problems


@transaction.atomic
def grant_consent(*, actor: User, dataset: Dataset, uses, granted_by_name: str, granted_on: datetime.date,
                  document: UploadedFile | None = None, document_reference: str = "", notes: str = "") -> ConsentRecord:
    """Record a community's consent for uses of `dataset`. The caller has checked that `actor` is
    governance staff of the steward. Takes effect on the next request; ValidationError names each field."""
    problems = consent_problems(uses, granted_by_name, granted_on, document, document_reference)
    if problems:
        raise ValidationError({name: [message] for name, message in problems.items()})
    record = ConsentRecord(
        dataset=dataset,
        granted_by_name=granted_by_name.strip(),
        granted_on=granted_on,
        document_reference=document_reference.strip(),
        notes=notes.strip(),
        recorded_by=actor,
        **{use: use in uses for use in ConsentUse.values},
    )
    if document is not None:
        # document_problem (via consent_problems above) refuses a document without a name: no extension
        assert document.name is not None
        record.document_name = PurePath(document.name).name[:255]
        record.document.save(document.name, document, save=False)
    try:
        record.save()
    except Exception:
        if record.document:
            record.document.delete(save=False)
        raise
    record_event(AuditAction.CONSENT_GRANTED,
                 actor=actor, organization=dataset.organization, obj=record, details={
        "dataset": dataset.identifier, "uses": [use.value for use in record.uses],
        "granted_by": record.granted_by_name, "granted_on": granted_on.isoformat(),
        "document": record.document_name, "document_reference": record.document_reference,
    })
    return record


@transaction.atomic
def revoke_consent(*, actor: User, record: ConsentRecord, reason: str) -> ConsentRecord:
    """Revoke a consent record; it stays, with who, when and why. Every use it alone covered stops on the
    next request (nothing else is touched: re-granting restores it). The caller checked the role."""
    locked = ConsentRecord.objects.select_for_update().select_related("dataset__organization").get(pk=record.pk)
    if locked.revoked_at is not None:
        raise ValidationError({NON_FIELD_ERRORS: [gettext("this consent was already revoked on %(date)s")
                                                   % {"date": f"{locked.revoked_at:%Y-%m-%d}"}]})
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": [gettext("say why the consent is revoked; the reason is kept with the "
                                                  "record")]})
    locked.revoked_at = timezone.now()
    locked.revoked_by = actor
    locked.revocation_reason = reason
    locked.save(update_fields=["revoked_at", "revoked_by", "revocation_reason"])
    record_event(AuditAction.CONSENT_REVOKED,
                 actor=actor, organization=locked.dataset.organization, obj=locked, details={
        "dataset": locked.dataset.identifier, "uses": [use.value for use in locked.uses], "reason": reason,
    })
    return locked
