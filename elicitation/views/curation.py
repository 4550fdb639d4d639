"""The curator's pages of a batch: creating it, its coverage against readiness, what speakers sent back, adding
sources (from a file or typed), its status and guideline, accepted translations into a draft version and that
version's dataset card."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from common.downloads import as_download
from common.errors import ApplicationError
from common.responses import private
from corpus.models import ConsentUse, DatasetVersion
from corpus.selectors import has_consent
from corpus.validation import CorpusFileError
from organizations.mfa import secret_holder_required
from organizations.models import SECRET_READER_ROLES
from organizations.permissions import permitted

from ..card import dataset_card
from ..forms import BatchForm, IntoCorpusForm, SourceForm, SourcesFileForm
from ..models import Batch, Source
from ..selectors.access import is_serving
from ..selectors.curation import batch_progress, coverage_matrix, held_sources
from ..services.batches import add_sources, create_batch, release_source, set_batch_status, update_guideline
from ..services.into_corpus import add_accepted_to_version
from ..sources import MAX_UPLOAD_BYTES, SourceFileError, SourceProblem, checked_rows, read_csv, read_json
from .shared import curated_batch, curated_datasets


def read_sources_file(upload) -> list[tuple[str, dict]]:
    if upload.size > MAX_UPLOAD_BYTES:
        raise SourceFileError([SourceProblem("", "", _("the file is %(size)d bytes; at most %(limit)d are taken")
                                             % {"size": upload.size, "limit": MAX_UPLOAD_BYTES})])
    data = upload.read()
    is_json = upload.name.lower().endswith(".json") or data.lstrip()[:1] in (b"[", b"{")
    return read_json(data) if is_json else read_csv(data)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def batch_new(request):
    datasets = curated_datasets(request)
    if not datasets.exists():
        raise Http404(_("You curate no dataset."))
    form = BatchForm(request.POST or None, request.FILES or None, datasets=datasets)
    problems = []
    if request.method == "POST" and form.is_valid():
        try:
            rows = None
            if form.cleaned_data["sources"]:
                rows = checked_rows(read_sources_file(form.cleaned_data["sources"]), set())
            batch = create_batch(actor=request.user, dataset=form.cleaned_data["dataset"], values=form.values(),
                                 rows=rows)
        except SourceFileError as error:
            problems = error.problems
        except ApplicationError as error:
            form.add_error(error.field if error.field in form.fields else None, error.message)
        else:
            messages.success(request, _("The batch is created."))
            return redirect("elicitation:batch", public_id=batch.public_id)
    status = 400 if request.method == "POST" else 200
    return render(request, "elicitation/batch_new.html", {"form": form, "problems": problems}, status=status)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def batch_detail(request, public_id):
    """The curator's page of a batch: its coverage against readiness, what speakers sent back, adding sources,
    and accepted translations into a draft version."""
    batch = curated_batch(request, public_id)
    return batch_page(request, batch)


def batch_page(request, batch, *, file_form=None, source_form=None, problems=None, corpus_form=None, status=200):
    drafts = batch.dataset.versions.filter(frozen_at__isnull=True).order_by("-imported_at")
    return private(render(request, "elicitation/batch_detail.html", {
        "batch": batch, "matrix": coverage_matrix(batch), "held": held_sources(batch),
        "progress": batch_progress(batch), "serving": is_serving(batch),
        "consented": has_consent(batch.dataset, ConsentUse.CORPUS_CREATION),
        "file_form": file_form or SourcesFileForm(), "source_form": source_form or SourceForm(),
        "problems": problems or [],
        "corpus_form": corpus_form or IntoCorpusForm(versions=drafts, initial={"version": drafts.first()}),
        "has_drafts": drafts.exists(), "statuses": Batch.Status,
    }, status=status))


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
@require_POST
def batch_sources(request, public_id):
    """Sources from a file, or one typed on the page: all of them or none, every problem named with its row."""
    batch = curated_batch(request, public_id)
    file_form, source_form = SourcesFileForm(), SourceForm()
    try:
        if "sources" in request.FILES:
            file_form = SourcesFileForm(request.POST, request.FILES)
            if not file_form.is_valid():
                return batch_page(request, batch, file_form=file_form, status=400)
            rows = read_sources_file(file_form.cleaned_data["sources"])
        else:
            source_form = SourceForm(request.POST)
            if not source_form.is_valid():
                return batch_page(request, batch, source_form=source_form, status=400)
            rows = [(_("this source"), {name: source_form.cleaned_data[name] for name in source_form.fields})]
        added = add_sources(actor=request.user, batch=batch, raw_rows=rows)
    except SourceFileError as error:
        return batch_page(request, batch, file_form=file_form, source_form=source_form, problems=error.problems,
                          status=400)
    except ApplicationError as error:
        messages.error(request, error.message)
        return redirect("elicitation:batch", public_id=batch.public_id)
    messages.success(request, ngettext("%(count)d source added.", "%(count)d sources added.", len(added))
                     % {"count": len(added)})
    return redirect("elicitation:batch", public_id=batch.public_id)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
@require_POST
def batch_status(request, public_id):
    batch = curated_batch(request, public_id)
    try:
        set_batch_status(actor=request.user, batch=batch, status=request.POST.get("status", ""))
    except ApplicationError as error:
        messages.error(request, error.message)
    return redirect("elicitation:batch", public_id=batch.public_id)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
@require_POST
def batch_guideline(request, public_id):
    batch = curated_batch(request, public_id)
    try:
        batch = update_guideline(actor=request.user, batch=batch, guideline=request.POST.get("guideline", ""))
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Guideline version %(version)d is in force.")
                         % {"version": batch.guideline_version})
    return redirect("elicitation:batch", public_id=batch.public_id)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
@require_POST
def source_release(request, public_id):
    source = get_object_or_404(Source.objects.select_related("batch__dataset"), public_id=public_id)
    if not permitted(request.user, "dataset.curate", source.batch.dataset):
        raise Http404(_("No such source among yours."))
    release_source(actor=request.user, source=source, retire=request.POST.get("action") == "retire")
    return redirect("elicitation:batch", public_id=source.batch.public_id)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
@require_POST
def batch_into_corpus(request, public_id):
    batch = curated_batch(request, public_id)
    drafts = batch.dataset.versions.filter(frozen_at__isnull=True)
    form = IntoCorpusForm(request.POST, versions=drafts)
    if not form.is_valid():
        return batch_page(request, batch, corpus_form=form, status=400)
    try:
        links = add_accepted_to_version(actor=request.user, batch=batch, version=form.cleaned_data["version"],
                                        segment=form.cleaned_data["segment"])
    except (ApplicationError, CorpusFileError) as error:
        form.add_error(None, str(error))
        return batch_page(request, batch, corpus_form=form, status=409)
    messages.success(request, ngettext("%(count)d accepted translation added to version %(version)s.",
                                       "%(count)d accepted translations added to version %(version)s.", len(links))
                     % {"count": len(links), "version": form.cleaned_data["version"].version})
    return redirect("elicitation:batch", public_id=batch.public_id)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def version_card(request, public_id, pk: int):
    """The dataset card of a version holding the batch's entries (Markdown): licence, attribution, language codes
    and how the entries were elicited, from the batch's real figures."""
    batch = curated_batch(request, public_id)
    version = get_object_or_404(DatasetVersion, pk=pk, dataset=batch.dataset)
    response = HttpResponse(dataset_card(version), content_type="text/markdown; charset=utf-8")
    return private(as_download(response, f"{version.dataset.identifier}-{version.version}-card", "md"))
