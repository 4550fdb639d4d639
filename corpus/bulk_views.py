"""Pages of the CSV/XLSX bulk import (upload → dry-run preview → confirm) and of the tabular export.

Thin: reading, validating and writing live in corpus.bulk and corpus.resources; rights come from
views.curated_version (the "dataset.curate" permission) and entries from selectors.visible_entries.
"""


from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from common.downloads import as_download
from common.errors import NotAllowed
from organizations.mfa import mfa_explains_not_found, secret_holder_required
from organizations.models import SECRET_READER_ROLES

from . import bulk, selectors
from .resources import (
    COLUMNS,
    CONTENT_TYPES,
    EXPORT_FORMATS,
    NEW_ENTRY_COLUMNS,
    REQUIRED_COLUMNS,
    export_entries,
)
from .services.errors import FrozenVersionError
from .validation import CorpusFileError, too_large
from .views import curated_version, get_visible_version, gone_when_withdrawn

PREVIEW_ROWS_SHOWN = 500


class BulkImportForm(forms.Form):
    # Empty files reach corpus.resources.read_table, whose message says what the file should hold.
    file = forms.FileField(label=gettext_lazy("Spreadsheet file"),
                           help_text=gettext_lazy("The first row names the columns."), allow_empty_file=True)
    format = forms.ChoiceField(
        label=gettext_lazy("Format"),
        choices=[("csv", gettext_lazy("CSV (UTF-8, comma-separated)")),
                 ("xlsx", gettext_lazy("XLSX (Excel workbook, first sheet)"))],
        initial="csv",
        widget=forms.RadioSelect,
    )


def render_import_page(request, version, *, form=None, preview=None, file_problems=None, total_problems=0,
                       refusal=None, filename="", status=200):
    rows = preview.rows if preview is not None else []
    return render(
        request,
        "corpus/bulk_import.html",
        {
            "version": version,
            "form": form if form is not None else BulkImportForm(),
            "preview": preview,
            "rows_shown": rows[:PREVIEW_ROWS_SHOWN],
            "file_problems": file_problems,
            "total_problems": total_problems,
            "refusal": refusal,
            "filename": filename,
            "columns": COLUMNS,
            "required_columns": REQUIRED_COLUMNS, "new_entry_columns": NEW_ENTRY_COLUMNS,
            "max_bytes": settings.CORPUS_MAX_UPLOAD_BYTES,
        },
        status=status,
    )


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def bulk_import(request, pk: int):
    """Upload step: a dry run whose preview is shown; a valid file is staged for the confirm step."""
    version = curated_version(request, pk)
    if request.method != "POST":
        return render_import_page(request, version)
    form = BulkImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return render_import_page(request, version, form=form, status=400)
    upload = form.cleaned_data["file"]
    try:
        if upload.size > settings.CORPUS_MAX_UPLOAD_BYTES:
            raise CorpusFileError([too_large(upload.size, settings.CORPUS_MAX_UPLOAD_BYTES)])
        preview = bulk.stage_bulk_import(
            actor=request.user,
            version=version,
            data=upload.read(),
            file_format=form.cleaned_data["format"],
            filename=upload.name or "",
        )
    except FrozenVersionError as error:
        return render_import_page(request, version, form=form, refusal=str(error), status=409)
    except CorpusFileError as error:
        return render_import_page(request, version, form=form, file_problems=error.problems,
                                  total_problems=error.total, filename=upload.name or "", status=400)
    return render_import_page(request, version, form=form, preview=preview, status=200 if preview.is_valid else 400)


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
@require_POST
def bulk_import_confirm(request, pk: int, staged_pk: int):
    """Confirm step: apply the staged bytes (validated again), all rows or none."""
    version = curated_version(request, pk)
    staged = bulk.staged_import_for(request.user, version, staged_pk)
    if staged is None:
        messages.error(request, _("This upload has expired or was already applied. Upload the file again."))
        return redirect("corpus:bulk_import", pk=version.pk)
    try:
        preview = bulk.apply_staged_import(actor=request.user, staged=staged)
    except FrozenVersionError as error:
        return render_import_page(request, version, refusal=str(error), status=409)
    except CorpusFileError as error:
        return render_import_page(request, version, file_problems=error.problems, total_problems=error.total,
                                  filename=staged.filename, status=400)
    except bulk.BulkImportRejected as error:
        return render_import_page(request, version, preview=error.preview, status=400)
    except NotAllowed as error:  # the role went away since the page checked it
        raise PermissionDenied(str(error)) from error
    messages.success(request, _("Imported into %(version)s: %(summary)s.")
                     % {"version": version, "summary": preview.summary})
    return redirect("corpus:version", pk=version.pk)


@mfa_explains_not_found(*SECRET_READER_ROLES)
@gone_when_withdrawn
def bulk_export(request, pk: int, file_format: str):
    """The entries the user may see (selectors.visible_entries), one row each, as CSV, XLSX or JSON."""
    if file_format not in EXPORT_FORMATS:
        raise Http404("Unknown export format.")
    version = get_visible_version(request.user, pk)
    entries = selectors.streamed_entries(request.user, version, selectors.visible_entries(request.user, version),
                                         where=request.path)
    content = export_entries(entries, file_format)
    response = HttpResponse(content, content_type=CONTENT_TYPES[file_format])
    return as_download(response, f"{version.dataset.identifier}-{version.version}-entries", file_format)
