"""Corpus pages. Entries are always read through corpus.selectors.visible_entries."""

from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import BooleanField, ExpressionWrapper
from django.http import FileResponse, Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from common.downloads import as_download
from common.errors import ApplicationError, NotAllowed
from common.responses import private
from common.text import hidden_characters
from governance.models import DecisionState
from organizations.mfa import mfa_explains_not_found, secret_holder_required
from organizations.models import SECRET_READER_ROLES, Role
from organizations.permissions import permitted

from . import decisions, label_selectors, selectors, services
from .forms import (
    ConsentForm,
    CorpusUploadForm,
    EntryFilterForm,
    EntryForm,
    NextVersionForm,
    RevokeConsentForm,
    RotationForm,
)
from .label_selectors import LabelReleaseRequired
from .labels import choice_label
from .models import ConsentRecord, Dataset, Segment
from .validation import CorpusFileError, too_large


class DatasetWithdrawn(Http404):
    """Visibility found nothing because the community withdrew public release. A 404 wherever it is not
    caught (so nothing is revealed by accident); `gone_when_withdrawn` views answer 410 with a clear page."""

    def __init__(self, withdrawal: selectors.Withdrawal):
        super().__init__(withdrawal.message)
        self.withdrawal = withdrawal


def withdrawn_response(request, withdrawal: selectors.Withdrawal) -> HttpResponse:
    """The 410 page of every withdrawn dataset, version, entry or run card."""
    return render(request, "corpus/withdrawn.html", {
        "dataset": withdrawal.dataset, "message": withdrawal.message, "use_label": withdrawal.use_label,
    }, status=410)


def gone_when_withdrawn(view):
    """Public pages and downloads of a withdrawn dataset say so (410 Gone) instead of a bare 404."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except DatasetWithdrawn as withdrawn:
            return withdrawn_response(request, withdrawn.withdrawal)

    return wrapper


def dataset_list(request):
    versions = selectors.visible_versions(request.user).order_by("dataset__identifier", "-imported_at").annotate(
        released=ExpressionWrapper(selectors.publicly_released("dataset"), output_field=BooleanField()))
    can_import = selectors.curating_organizations(request.user).exists()
    return render(request, "corpus/dataset_list.html", {"versions": versions, "can_import": can_import})


def get_visible_version(user, pk: int):
    version = selectors.visible_versions(user).filter(pk=pk).first()
    if version is None:
        withdrawn = selectors.withdrawal_matching(versions__pk=pk)
        raise DatasetWithdrawn(withdrawn) if withdrawn else Http404("No such dataset version.")
    return version


def get_visible_entry(user, pk: int):
    entry = selectors.visible_entries(user).select_related("version__dataset").filter(pk=pk).first()
    if entry is None:
        withdrawn = selectors.entry_withdrawal(pk)
        raise DatasetWithdrawn(withdrawn) if withdrawn else Http404("No such entry.")
    return entry


@mfa_explains_not_found(*SECRET_READER_ROLES)
@gone_when_withdrawn
def dataset_detail(request, identifier: str):
    dataset = selectors.visible_datasets(request.user).filter(identifier=identifier).first()
    if dataset is None:
        withdrawn = selectors.withdrawal_matching(identifier=identifier)
        raise DatasetWithdrawn(withdrawn) if withdrawn else Http404("No such dataset.")
    latest = dataset.versions.order_by("-imported_at").first()
    if latest is None:
        raise Http404("This dataset has no versions.")
    return redirect("corpus:version", pk=latest.pk)


def labelled(rows: list[tuple[str, int]], field: str) -> list[tuple[str, int]]:
    """A distribution's values as the reader's language names them."""
    return [(choice_label(field, value), count) for value, count in rows]


def segment_rows(counts: dict[str, int]) -> list[tuple[str, str, int]]:
    """Every segment with its name in the reader's language and its number of entries, for the rotation page."""
    return [(segment, choice_label("segment", segment), counts.get(segment, 0)) for segment in Segment.values]


@mfa_explains_not_found(*SECRET_READER_ROLES)
@gone_when_withdrawn
def version_detail(request, pk: int):
    version = get_visible_version(request.user, pk)
    entries = selectors.visible_entries(request.user, version)
    can_curate = permitted(request.user, "dataset.curate", version.dataset)
    is_governance = permitted(request.user, "dataset.govern", version.dataset)
    segments = selectors.segment_counts(version)
    labels = label_selectors.version_labels(request.user, version, governs=is_governance)
    context = {
        "version": version,
        "dataset": version.dataset,
        "other_versions": version.dataset.versions.exclude(pk=version.pk).order_by("-imported_at"),
        "readiness": selectors.readiness(version),
        "visible_count": entries.count(),
        "distributions": [
            (_("Segment"), labelled(selectors.distribution(entries, "segment"), "segment")),
            (_("Difficulty"), selectors.distribution(entries, "difficulty")),
            (_("Register"), labelled(selectors.distribution(entries, "register"), "register")),
            (_("Domain"), labelled(selectors.distribution(entries, "domain"), "domain")),
        ],
        "can_curate": can_curate,
        "can_see_secret": permitted(request.user, "dataset.see_secret", version.dataset),
        "version_hash": selectors.version_hash(request.user, version),
        "public_download_hash": selectors.public_download_hash(version),
        "is_governance": is_governance,
        "can_manage": permitted(request.user, "organization.manage", version.dataset.organization),
        "consented_uses": selectors.covered_uses(version.dataset) if can_curate else None,
        "next_version_form": NextVersionForm(),
        "note": selectors.version_note(version),
        "held_out_count": segments.get(Segment.HELD_OUT, 0),
        "labels": labels.labels,
        "hub_projects": version.dataset.hub_projects.order_by("unique_id"),
        "label_block": labels.export_block,
        "label_release_block": labels.release_block,
    }
    return render(request, "corpus/version_detail.html", context)


@mfa_explains_not_found(*SECRET_READER_ROLES)
@gone_when_withdrawn
def entry_list(request, pk: int):
    version = get_visible_version(request.user, pk)
    form = EntryFilterForm(request.GET or None)
    form.is_valid()  # an invalid filter is shown with its error; the valid ones still apply
    filters = form.cleaned_data if form.is_bound else {}
    entries = selectors.filter_entries(selectors.visible_entries(request.user, version), filters)
    page = Paginator(entries.select_related("version__dataset").order_by("position"), 50).get_page(
        request.GET.get("page")
    )
    page.object_list = selectors.shown_entries(request.user, page.object_list, where=request.path)
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "corpus/entry_list.html",
        {
            "version": version,
            "form": form,
            "page": page,
            "query_string": query.urlencode(),
            "can_curate": permitted(request.user, "dataset.curate", version.dataset),
        },
    )


@mfa_explains_not_found(*SECRET_READER_ROLES)
@gone_when_withdrawn
def entry_detail(request, pk: int):
    [entry] = selectors.shown_entries(request.user, [get_visible_entry(request.user, pk)], where=request.path)
    can_curate = permitted(request.user, "dataset.curate", entry.version.dataset)
    # Curators see what the page cannot show: a right-to-left override turning "evil" into "live", a zero-width space.
    hidden = [(label, found) for label, text in ((_("Source"), entry.source), (_("Reference"), entry.reference),
                                                 (_("Morphological analysis"), entry.morphological_analysis),
                                                 (_("Notes"), entry.notes))
              if can_curate and (found := hidden_characters(text or ""))]
    return render(
        request,
        "corpus/entry_detail.html",
        {"entry": entry, "version": entry.version, "can_curate": can_curate, "hidden": hidden},
    )


@mfa_explains_not_found(*SECRET_READER_ROLES)
@gone_when_withdrawn
def export_version(request, pk: int):
    """The corpus file with the entries the reader may see (optionally some segments); with `?public=1`, the
    version's public download: its public segments only, the same bytes for everyone who may see the version and
    every time, pinned by selectors.public_download_hash (shown on the version page)."""
    version = get_visible_version(request.user, pk)
    try:
        if request.GET.get("public") == "1":
            response = StreamingHttpResponse(selectors.public_download_chunks(request.user, version),
                                             content_type="application/json; charset=utf-8")
            return as_download(response, f"{version.dataset.identifier}-{version.version}-public", "json")
        segments = [s for s in request.GET.getlist("segment") if s in Segment.values]
        suffix = "-" + "-".join(segments) if segments else ""
        chunks = selectors.shown_export_chunks(request.user, version, segments or None, where=request.path)
    except LabelReleaseRequired as blocked:
        return render(request, "corpus/label_blocked.html", {
            "version": version, "dataset": version.dataset, "message": blocked.message,
            "is_governance": permitted(request.user, "dataset.govern", version.dataset)}, status=blocked.http_status)
    response = StreamingHttpResponse(chunks, content_type="application/json; charset=utf-8")
    return as_download(response, f"{version.dataset.identifier}-{version.version}{suffix}", "json")


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def import_corpus(request):
    organizations = list(selectors.curating_organizations(request.user))
    if not organizations:
        raise PermissionDenied(_("Only curators and governance staff of an organization import corpora."))
    form = CorpusUploadForm(request.POST or None, request.FILES or None, organizations=organizations)
    problems = None
    total_problems = 0
    status = 200
    if request.method == "POST" and form.is_valid():
        organization = form.organizations[form.cleaned_data["organization"]]
        upload = form.cleaned_data["file"]
        try:
            if upload.size > settings.CORPUS_MAX_UPLOAD_BYTES:
                raise CorpusFileError([too_large(upload.size, settings.CORPUS_MAX_UPLOAD_BYTES)])
            outcome = services.import_corpus(data=upload.read(), organization=organization, actor=request.user,
                                             supplied=form.supplied())
        except CorpusFileError as error:
            problems, total_problems, status = error.problems, error.total, 400
            form.require_missing(error.problems)
        else:
            messages.success(request, outcome.message)
            for warning in outcome.warnings:
                messages.warning(request, warning)
            return redirect("corpus:version", pk=outcome.version.pk)
    elif request.method == "POST":
        status = 400
    return render(
        request,
        "corpus/import.html",
        {"form": form, "problems": problems, "total_problems": total_problems},
        status=status,
    )


def curated_version(request, pk: int):
    version = get_visible_version(request.user, pk)
    if not permitted(request.user, "dataset.curate", version.dataset):
        raise PermissionDenied(_("Only curators and governance staff of the steward organization edit this corpus."))
    return version


def entry_form_view(request, version, entry=None):
    initial = None
    if entry is not None:
        initial = {name: getattr(entry, name) for name in EntryForm.base_fields if name != "entry_id"}
        initial.update(entry_id=entry.entry_id, difficulty=entry.difficulty or "")
        [entry] = selectors.shown_entries(request.user, [entry], where=request.path)
    form = EntryForm(request.POST or None, initial=initial)
    problems = None
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                if entry is None:
                    saved = services.add_entry(actor=request.user, version=version, data=form.entry_data())
                else:
                    saved = services.update_entry(actor=request.user, entry=entry, changes=form.entry_changes())
            except CorpusFileError as error:
                problems = error.problems
            except services.FrozenVersionError as error:
                problems = [str(error)]
            except NotAllowed as error:  # the role went away since the page checked it
                raise PermissionDenied(str(error)) from error
            else:
                messages.success(request, _("Entry %(id)s saved.") % {"id": saved.entry_id})
                return redirect("corpus:entry", pk=saved.pk)
    return render(
        request,
        "corpus/entry_form.html",
        {"form": form, "version": version, "entry": entry, "problems": problems},
        status=status,
    )


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def entry_create(request, pk: int):
    return entry_form_view(request, curated_version(request, pk))


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def entry_edit(request, pk: int):
    entry = get_object_or_404(selectors.visible_entries(request.user).select_related("version__dataset"), pk=pk)
    return entry_form_view(request, curated_version(request, entry.version_id), entry)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
@require_POST
def freeze(request, pk: int):
    """A curator freezes a version by hand (a release; run cards freeze the versions they reference): it never
    changes again."""
    version = curated_version(request, pk)
    services.freeze_version(actor=request.user, version=version)
    messages.success(request, _("%(version)s is frozen: it never changes again; create the next version to change "
                                "entries.") % {"version": version})
    return redirect("corpus:version", pk=version.pk)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
@require_POST
def next_version(request, pk: int):
    version = curated_version(request, pk)
    form = NextVersionForm(request.POST)
    if form.is_valid():
        try:
            successor = services.create_next_version(
                version=version,
                new_version=form.cleaned_data["new_version"],
                actor=request.user,
            )
        except services.VersionRefused as error:
            messages.error(request, str(error))
        else:
            messages.success(request, _("Created %(new)s from %(old)s.") % {"new": successor, "old": version})
            return redirect("corpus:version", pk=successor.pk)
    else:
        messages.error(request, _("Give the new version a name, e.g. 1.1."))
    return redirect("corpus:version", pk=version.pk)


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def set_public(request, pk: int):
    version = get_visible_version(request.user, pk)
    if not permitted(request.user, "dataset.govern", version.dataset):
        raise PermissionDenied(_("Only governance staff of the steward organization decide publication."))
    try:
        decision = decisions.propose_publication(
            dataset=version.dataset,
            is_public=request.POST.get("is_public") == "1",
            actor=request.user,
        )
    except ApplicationError as refusal:
        messages.error(request, refusal.message)
    else:
        if decision.state != DecisionState.EXECUTED:
            messages.success(request, _("Proposed: the release waits for %(k)s signatures of other governance staff "
                                        "and its least open time.") % {"k": decision.threshold})
            return redirect("governance:decision", public_id=decision.public_id)
        messages.success(request, _("Publication setting saved."))
    return redirect("corpus:version", pk=version.pk)


def governed_version(request, pk: int):
    """The version, for governance staff of its steward with the second factor proven in this request (the
    `organization.manage` permission of governance pages); 403 for anyone else who may see the version."""
    version = get_visible_version(request.user, pk)
    if not permitted(request.user, "organization.manage", version.dataset.organization):
        raise PermissionDenied(_("Only governance staff of the steward organization, with two-factor authentication, "
                                 "decide the segments of its corpora."))
    return version


@login_required
@secret_holder_required(Role.GOVERNANCE)
def activate_held_out(request, pk: int):
    """Confirm, then make the version's held_out entries scorable by run cards (corpus.services.activate_held_out)."""
    version = governed_version(request, pk)
    refusal = None
    status = 200
    if request.method == "POST":
        try:
            services.activate_held_out(actor=request.user, version=version)
        except services.VersionRefused as error:
            refusal, status = str(error), error.http_status
        except NotAllowed as error:  # the role went away since the page checked it
            raise PermissionDenied(str(error)) from error
        else:
            messages.success(request, _("The held_out segment of %(version)s is active: run cards may score its "
                                        "entries from now on.") % {"version": version})
            return redirect("corpus:version", pk=version.pk)
    return render(request, "corpus/held_out_activate.html", {
        "version": version,
        "dataset": version.dataset,
        "held_out_count": selectors.segment_counts(version).get(Segment.HELD_OUT, 0),
        "refusal": refusal,
    }, status=status)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def rotate_segments(request, pk: int):
    """Move entries between segments into a new version (corpus.services.rotate_segments): the list of moves, every
    problem beside its field with the typed text kept."""
    version = governed_version(request, pk)
    form = RotationForm(request.POST or None, version=version)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                successor = services.rotate_segments(actor=request.user, version=version,
                                                     new_version=form.cleaned_data["new_version"],
                                                     moves=form.moves_by_entry())
            except services.VersionRefused as error:  # changed since the form checked it
                for name, problems in error.problems.items():
                    form.add_error(name if name in form.fields else None, problems)
            except NotAllowed as error:
                raise PermissionDenied(str(error)) from error
            else:
                moved = len(form.listed)
                messages.success(request, ngettext(
                    "Created %(new)s from %(old)s with %(count)s entry moved to another segment. Its note says only "
                    "that segments were rotated.",
                    "Created %(new)s from %(old)s with %(count)s entries moved to other segments. Its note says only "
                    "that segments were rotated.", moved) % {"new": successor, "old": version, "count": moved})
                return redirect("corpus:version", pk=successor.pk)
    return render(request, "corpus/rotate_segments.html", {
        "version": version,
        "dataset": version.dataset,
        "form": form,
        "segments": segment_rows(selectors.segment_counts(version)),
    }, status=status)


def governed_dataset(request, identifier: str) -> Dataset:
    """The dataset, for governance staff of its steward organization; a 404 for everyone else, so the
    consent pages reveal nothing (not even that a private dataset exists)."""
    dataset = Dataset.objects.select_related("organization").filter(identifier=identifier).first()
    if dataset is None or not permitted(request.user, "dataset.govern", dataset):
        raise Http404("No such dataset.")
    return dataset


def add_service_errors(form, error: ValidationError) -> None:
    """Show a service's ValidationError next to the field it names (or above the form)."""
    for name, field_messages in error.message_dict.items():
        form.add_error(name if name in form.fields else None, field_messages)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def consent(request, identifier: str):
    """The dataset's consent records (active and revoked) and the form that records a new one."""
    dataset = governed_dataset(request, identifier)
    form = ConsentForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                record = services.grant_consent(
                    dataset=dataset,
                    uses=data["uses"],
                    granted_by_name=data["granted_by_name"],
                    granted_on=data["granted_on"],
                    actor=request.user,
                    document=data["document"] or None,
                    document_reference=data["document_reference"],
                    notes=data["notes"],
                )
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, _("Consent recorded for %(uses)s. It takes effect on the next request.")
                                 % {"uses": selectors.uses_text(record.uses)})
                return redirect("corpus:consent", identifier=dataset.identifier)
    records = list(selectors.consent_records(dataset))
    return render(request, "corpus/consent.html", {
        "dataset": dataset,
        "latest_version": dataset.versions.order_by("-imported_at").first(),
        "records": records,
        "overview": selectors.consent_overview(records),
        "form": form,
        "use_choices": form.use_choices(),
    }, status=status)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def consent_revoke(request, identifier: str, pk: int):
    """Confirm a revocation: what will stop on the next request, and why (the reason is required)."""
    dataset = governed_dataset(request, identifier)
    record = get_object_or_404(ConsentRecord.objects.select_related("recorded_by", "revoked_by"),
                               dataset=dataset, pk=pk)
    form = RevokeConsentForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.revoke_consent(record=record, actor=request.user, reason=form.cleaned_data["reason"])
            except ValidationError as error:
                add_service_errors(form, error)
                status = 409 if NON_FIELD_ERRORS in error.message_dict else 400
            else:
                messages.success(request, _("Consent #%(number)s revoked. Whatever only it covered (%(uses)s) stops "
                                            "from the next request; nothing was deleted.")
                                 % {"number": record.pk, "uses": selectors.uses_text(record.uses)})
                return redirect("corpus:consent", identifier=dataset.identifier)
    return render(request, "corpus/consent_revoke.html", {
        "dataset": dataset,
        "record": record,
        "form": form,
        "consequences": selectors.revocation_consequences(record),
    }, status=status)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def consent_document(request, identifier: str, pk: int):
    """A consent record's supporting document, for the steward's governance staff only (never under
    MEDIA_URL), as a download that no shared cache keeps."""
    dataset = governed_dataset(request, identifier)
    record = get_object_or_404(ConsentRecord.objects.exclude(document=""), dataset=dataset, pk=pk)
    try:
        handle = record.document.open("rb")
    except FileNotFoundError:
        raise Http404("The document file is missing from storage.") from None
    return private(FileResponse(handle, as_attachment=True, filename=record.document_name or record.document.name))
