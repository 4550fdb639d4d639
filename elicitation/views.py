"""The elicitation pages. Curators: batches, their sources and coverage, the dashboard, accepted translations into a
version. Speakers: translating and verifying, one item per round trip, as plain form posts that elicit.js turns into
a queue kept on the device. Thin: every rule is in services and selectors."""

import csv
import io
import re
import uuid
from collections.abc import Callable
from decimal import Decimal

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from common import offline
from common.downloads import as_download
from common.errors import ApplicationError
from corpus.models import PUBLIC_SEGMENTS, ConsentUse, DatasetVersion
from corpus.selectors import has_consent
from corpus.validation import CorpusFileError
from languages.directions import text_direction
from ledger.forms import PaymentForm
from ledger.selectors import payments_for
from ledger.services import record_payment
from organizations.mfa import secret_holder_required
from organizations.models import SECRET_READER_ROLES, Role
from organizations.permissions import permitted
from organizations.selectors import org_ids_with_roles

from .card import dataset_card
from .forms import (
    AnalysisCheckForm,
    BatchForm,
    IntoCorpusForm,
    SkipForm,
    SourceForm,
    SourcesFileForm,
    TranslationForm,
    VerificationForm,
    shown_token,
)
from .models import MAX_TEXT_LENGTH, Batch, Source, Translation, TranslationVersion
from .selectors.access import (
    batches_for,
    is_serving,
    qualification_problem,
    record_shown_source,
    working_batch,
    working_source,
    working_translation,
)
from .selectors.curation import batch_progress, coverage_matrix, held_sources
from .selectors.figures import (
    batch_cost,
    batch_rate,
    flagged_versions,
    repeatedly_flagged,
    skip_counts,
    speaker_figures,
)
from .selectors.own_work import speaker_batch_pay, work_counts
from .selectors.translating import UPCOMING, current_version, revision_details, to_revise, to_translate, upcoming_work
from .selectors.verifying import next_to_verify, upcoming_to_verify
from .services.batches import add_sources, create_batch, release_source, set_batch_status, update_guideline
from .services.errors import NotQualified, NotServing
from .services.into_corpus import add_accepted_to_version
from .services.own_work import withdraw_elicited_work
from .services.translating import skip_source, submit_translation
from .services.verifying import check_analysis, declare_verification_conflict, verify_translation
from .sources import MAX_UPLOAD_BYTES, SourceFileError, SourceProblem, checked_rows, read_csv, read_json


def private(response):
    patch_cache_control(response, private=True, no_store=True)
    return response


def wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


# Curators.


def curated_batch(request, public_id) -> Batch:
    batch = get_object_or_404(Batch.objects.select_related("dataset", "organization"), public_id=public_id)
    if not permitted(request.user, "dataset.curate", batch.dataset):
        raise Http404(_("No such batch among yours."))
    return batch


def curated_datasets(request):
    from corpus.models import Dataset

    return Dataset.objects.filter(organization_id__in=org_ids_with_roles(request.user, SECRET_READER_ROLES))


@login_required
def home(request):
    """Elicitation's start page: the batches the person translates and verifies in, and the ones they curate."""
    curated = Batch.objects.filter(dataset__in=curated_datasets(request)).select_related("dataset").annotate(
        source_count=Count("sources", distinct=True))
    batches = batches_for(request.user)
    counts = work_counts(request.user, batches)
    rows = [{"batch": batch, **counts[batch.pk]} for batch in batches]
    return private(render(request, "elicitation/home.html", {
        "rows": rows, "curated": [batch for batch in curated if permitted(request.user, "dataset.curate",
                                                                         batch.dataset)],
        "may_create": curated_datasets(request).exists()}))


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
def dashboard(request, public_id):
    batch = curated_batch(request, public_id)
    rate = batch_rate(batch)
    figures = speaker_figures(batch, rate)
    return private(render(request, "elicitation/dashboard.html", {
        "batch": batch, "rate": rate, "progress": batch_progress(batch), "figures": figures,
        "flagged_people": repeatedly_flagged(figures), "flagged": flagged_versions(batch)[:50],
        "cost": batch_cost(figures), "skips": skip_counts(batch),
        "can_pay": permitted(request.user, "organization.govern", batch.organization)}))


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def dashboard_export(request, public_id):
    """Per person, the dashboard's figures as CSV (labels as credited, anonymous otherwise; no text)."""
    batch = curated_batch(request, public_id)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["person", "translated", "accepted", "rejected", "flagged_machine_like", "verified",
                     "verification_agreement", "seconds", "owed", "paid", "currency"])
    rate = batch_rate(batch)
    for row in speaker_figures(batch, rate):
        writer.writerow([row.label, row.translated, row.accepted, row.rejected, row.flagged, row.verified,
                         "" if row.agreement is None else f"{row.agreement:.2f}", row.seconds,
                         "" if row.owed is None else row.owed, row.paid, rate.currency])
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    return private(as_download(response, f"elicitation-{batch.public_id}", "csv"))


@login_required
@secret_holder_required(Role.GOVERNANCE)
def batch_pay(request, public_id):
    """Governance staff's pay page for a batch: each person's time, accepted translations, what they are owed and
    were paid; recording a payment or a correction (a reversal is a negative correction, recorded here only)."""
    batch = get_object_or_404(Batch.objects.select_related("organization", "dataset"), public_id=public_id)
    if not permitted(request.user, "organization.govern", batch.organization):
        raise Http404(_("No such batch in your organizations."))
    rate = batch_rate(batch)
    figures = speaker_figures(batch, rate)
    payments = list(payments_for(batch))
    labels = {row.user_id: row.label for row in figures}
    form = PaymentForm(request.POST or None, speakers=[(row.user_id, row.label) for row in figures], payments=[
        (p.pk, f"#{p.pk} · {labels.get(p.speaker_id, '')} · {p.amount} {p.currency} · {p.paid_on.isoformat()}")
        for p in payments])
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            record_payment(actor=request.user, work_done=batch,
                           speaker=get_object_or_404(get_user_model(), pk=data["speaker"]), amount=data["amount"],
                           paid_on=data["paid_on"], reference=data["reference"], note=data["note"],
                           corrects=next((p for p in payments if p.pk == data["corrects"]), None))
        except ApplicationError as error:
            form.add_error(error.field if error.field in form.fields else None, error.message)
        else:
            messages.success(request, _("Payment recorded."))
            return redirect("elicitation:batch_pay", public_id=batch.public_id)
    return private(render(request, "elicitation/pay.html", {
        "batch": batch, "rate": rate, "figures": figures, "form": form,
        "payments": [(payment, labels.get(payment.speaker_id, "")) for payment in payments],
        "cost": batch_cost(figures), "paid": sum((row.paid for row in figures), start=Decimal("0.00")),
    }, status=400 if form.errors else 200))


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def version_card(request, public_id, pk: int):
    """The dataset card of a version holding the batch's entries (Markdown): licence, attribution, language codes
    and how the entries were elicited, from the batch's real figures."""
    batch = curated_batch(request, public_id)
    version = get_object_or_404(DatasetVersion, pk=pk, dataset=batch.dataset)
    response = HttpResponse(dataset_card(version), content_type="text/markdown; charset=utf-8")
    return private(as_download(response, f"{version.dataset.identifier}-{version.version}-card", "md"))


# Translators and verifiers.


def working_batch_or_404(request, public_id) -> Batch:
    """A batch the person may work in (a member of its organization, qualified), with `serving_when_read`; 404 for
    anyone else."""
    batch = working_batch(public_id)
    if batch is None or qualification_problem(request.user, batch) is not None:
        raise Http404(_("No such batch among yours."))
    return batch


def not_serving(request, batch: Batch):
    if wants_json(request):
        return JsonResponse({"error": not_serving_message(batch), "code": "not_serving"}, status=409)
    return render(request, "elicitation/not_serving.html", {"batch": batch, "message": not_serving_message(batch)},
                  status=409)


def not_serving_message(batch: Batch) -> str:
    if not has_consent(batch.dataset, ConsentUse.CORPUS_CREATION):
        return _("This batch is paused: its community's consent to corpus creation is no longer in force. Nothing "
                 "more is taken; what waits on this device is discarded.")
    return _("This batch is not taking work at the moment.")


ANY_ITEM = uuid.UUID(int=0)


def address_maker(route: str) -> Callable[[uuid.UUID], str]:
    """The address of any item of `route` from one `reverse` (the addresses differ only in the item's id): the items
    ahead need two each."""
    template, placeholder = reverse(route, args=[ANY_ITEM]), str(ANY_ITEM)
    return lambda public_id: template.replace(placeholder, str(public_id))


@login_required
def translate_start(request, public_id):
    """The speaker's next source: a revision asked of them first, then the batch's order."""
    batch = working_batch_or_404(request, public_id)
    if not batch.serving_when_read:
        return not_serving(request, batch)
    revision = to_revise(request.user, batch).first()
    source = revision.source if revision else to_translate(request.user, batch).first()
    if source is None:
        return private(render(request, "elicitation/done.html", {"batch": batch, "mode": "translate"}))
    return redirect("elicitation:translate", public_id=source.public_id)


def source_item(source: Source, revision: tuple[str, list[str]] | None = None, *,
                url: str = "", skip_url: str = "") -> dict:
    """What the translate page and its JSON show of a source: the source, its context, the guideline, and for a
    revision the translator's own text and the verifier's notes (`revision_details`). Never any machine
    output."""
    return {"id": str(source.public_id), "url": url or reverse("elicitation:translate", args=[source.public_id]),
            "skip_url": skip_url or reverse("elicitation:skip", args=[source.public_id]),
            "source": source.text, "context": source.context, "shown": shown_token(source.public_id),
            "revision": None if revision is None else {"text": revision[0], "notes": revision[1]}}


def translation_item(user, source: Source) -> tuple[dict | None, Translation | None]:
    translation = Translation.objects.filter(source=source, translator=user).first()
    if translation is not None and translation.status != Translation.Status.REVISION:
        return None, translation
    details = revision_details([translation]) if translation is not None else {}
    return source_item(source, details.get(getattr(translation, "pk", None))), translation


def working_source_or_404(request, public_id) -> Source:
    """A source of a batch the person may work in, with its batch (`serving_when_read`); 404 for anyone else."""
    source = working_source(public_id)
    if source is None or qualification_problem(request.user, source.batch) is not None:
        raise Http404(_("No such source among yours."))
    return source


@login_required
def translate(request, public_id):
    if request.method == "POST":
        return translate_post(request, public_id)
    source = working_source_or_404(request, public_id)
    batch = source.batch
    if not batch.serving_when_read:
        return not_serving(request, batch)
    item, translation = translation_item(request.user, source)
    if item is None:
        return redirect("elicitation:translate_start", public_id=batch.public_id)
    return translate_page(request, source, item, TranslationForm(initial={
        "client_id": uuid.uuid4(), "text": (item["revision"] or {}).get("text", "")}))


def translate_page(request, source: Source, item: dict, form: TranslationForm, status: int = 200):
    batch = source.batch
    record_shown_source(request.user, source, request.path)
    form.fields["shown"].initial = item["shown"]
    return private(render(request, "elicitation/translate.html", translate_context(request, batch, item, form, {
        "may_hold": source.segment in PUBLIC_SEGMENTS,
        "done": Translation.objects.filter(source__batch=batch, translator=request.user).count()}), status=status))


def translate_context(request, batch: Batch, item: dict, form: TranslationForm, more: dict) -> dict:
    return {"batch": batch, "item": item, "form": form, "skip_form": SkipForm(initial={"client_id": uuid.uuid4()}),
            "target_dir": text_direction(batch.target_language), "source_dir": text_direction(batch.source_language),
            "limit": MAX_TEXT_LENGTH, **more}


OFFLINE_CACHE = "champollion-elicit-v1"  # elicit.js's CACHE


def service_worker(request):
    """elicit.js's service worker (common.offline), served under /elicit/ so that its scope covers the translate
    pages: a translate page reloaded without a connection is answered with its shell. It holds no data of its own
    (elicit.js decides what is stored)."""
    def pattern(route: str, suffix: str = "") -> str:
        return "^" + re.escape(reverse(route, args=[ANY_ITEM])).replace(re.escape(str(ANY_ITEM)), "[0-9a-f-]+") + suffix

    translate_page_ = pattern("elicitation:translate") + "$"
    return offline.service_worker(request, cache=OFFLINE_CACHE, item_page=translate_page_, submission="|".join([
        translate_page_, pattern("elicitation:skip") + "$", pattern("elicitation:verify") + "$"]))


@login_required
def offline_shell(request, public_id):
    """The translate page without a source: elicit.js stores it under the addresses of the sources it holds, and fills
    it with the held source when the page is reloaded without a connection (`service_worker`)."""
    batch = working_batch_or_404(request, public_id)
    if not batch.serving_when_read:
        return not_serving(request, batch)
    empty = {"id": "", "url": "", "skip_url": "", "source": "", "context": "", "shown": "", "revision": None}
    return private(render(request, "elicitation/translate.html", translate_context(
        request, batch, empty, TranslationForm(initial={"client_id": uuid.uuid4()}), {"shell": True, "done": 0})))


def translate_post(request, public_id):
    """A translation, stored once: JSON for elicit.js (the next source is the one the phone holds), else a redirect to
    the next source. The service checks who may translate, in the transaction that stores it."""
    form = TranslationForm(request.POST)
    if not form.is_valid():
        source = working_source_or_404(request, public_id)
        if wants_json(request):
            return JsonResponse({"error": _("The translation was not saved."), "code": "invalid",
                                 "fields": {k: [str(e) for e in v] for k, v in form.errors.items()}}, status=400)
        item, _translation = translation_item(request.user, source)
        return translate_page(request, source, item or source_item(source), form, 400)
    source = working_source(public_id)
    if source is None:
        raise Http404(_("No such source among yours."))
    try:
        version, created = submit_translation(actor=request.user, source=source,
                                              submission=form.submission(source.public_id))
    except NotQualified:
        raise Http404(_("No such source among yours.")) from None
    except NotServing:
        return not_serving(request, source.batch)
    except ApplicationError as error:
        if wants_json(request):
            return JsonResponse({"error": error.message, "field": error.field, "code": error.kind},
                                status=error.http_status)
        form.add_error(error.field if error.field in form.fields else None, error.message)
        item, _translation = translation_item(request.user, source)
        return translate_page(request, source, item or source_item(source), form, error.http_status)
    if wants_json(request):
        return JsonResponse({"saved": True, "duplicate": not created, "suspected": version.suspected},
                            status=201 if created else 200)
    messages.success(request, _("Saved. Thank you."))
    return redirect("elicitation:translate_start", public_id=source.batch.public_id)


@login_required
@require_POST
def skip(request, public_id):
    source = get_object_or_404(Source.objects.select_related("batch__dataset", "batch__organization"),
                               public_id=public_id)
    if qualification_problem(request.user, source.batch) is not None:
        raise Http404(_("No such source among yours."))
    form = SkipForm(request.POST)
    if not form.is_valid():
        if wants_json(request):
            return JsonResponse({"error": _("Choose why you skip it."), "code": "invalid"}, status=400)
        messages.error(request, _("Choose why you skip it."))
        return redirect("elicitation:translate", public_id=source.public_id)
    try:
        _skip, created = skip_source(actor=request.user, source=source, client_id=form.cleaned_data["client_id"],
                                     reason=form.cleaned_data["reason"], note=form.cleaned_data["note"])
    except NotServing:
        return not_serving(request, source.batch)
    except ApplicationError as error:
        if wants_json(request):
            return JsonResponse({"error": error.message, "code": error.kind}, status=error.http_status)
        messages.error(request, error.message)
        return redirect("elicitation:translate_start", public_id=source.batch.public_id)
    if wants_json(request):
        return JsonResponse({"saved": True, "duplicate": not created}, status=201 if created else 200)
    return redirect("elicitation:translate_start", public_id=source.batch.public_id)


@login_required
def upcoming(request, public_id):
    """The speaker's next sources as data, for elicit.js to show the next one at once and to keep translating
    without a connection (a constant number of queries). Only sources of the public segments: a phone never holds a
    gold_standard or held_out source, which is shown by its own page, on the server's answer."""
    batch = working_batch_or_404(request, public_id)
    if not batch.serving_when_read:
        return private(not_serving(request, batch))
    revisions, sources = upcoming_work(request.user, batch)
    details = revision_details(revisions)
    url, skip_url = address_maker("elicitation:translate"), address_maker("elicitation:skip")
    items = [source_item(t.source, details[t.pk], url=url(t.source.public_id), skip_url=skip_url(t.source.public_id))
             for t in revisions]
    items += [source_item(source, url=url(source.public_id), skip_url=skip_url(source.public_id))
              for source in sources]
    return private(JsonResponse({"items": items[:UPCOMING]}))


@login_required
def verify_start(request, public_id):
    batch = working_batch_or_404(request, public_id)
    if not batch.serving_when_read:
        return not_serving(request, batch)
    translation = next_to_verify(request.user, batch)
    if translation is None:
        return private(render(request, "elicitation/done.html", {"batch": batch, "mode": "verify"}))
    return redirect("elicitation:verify", public_id=translation.public_id)


def verification_item(translation: Translation, version: TranslationVersion, *, url: str = "",
                      conflict_url: str = "") -> dict:
    """What the verify page shows: the source, its context and the translation's current version, with the flag a
    suspected machine output carries (the system's name, never its text)."""
    source = translation.source
    return {"id": str(translation.public_id),
            "url": url or reverse("elicitation:verify", args=[translation.public_id]),
            "conflict_url": conflict_url or reverse("elicitation:declare_conflict", args=[translation.public_id]),
            "source": source.text, "context": source.context, "text": version.text, "version": version.number,
            "analysis": version.morphological_analysis, "suspected": version.suspected_system,
            "suspected_chrf": version.suspected_chrf, "segment": source.segment, "pasted": bool(version.pasted),
            "shown": shown_token(translation.public_id)}


@login_required
def verify(request, public_id):
    translation = working_translation(public_id)
    if translation is None:
        raise Http404(_("No such translation among yours."))
    batch = translation.source.batch
    if request.method == "POST" and translation.translator_id != request.user.pk:
        return verify_post(request, translation)
    if qualification_problem(request.user, batch) is not None:
        raise Http404(_("No such translation among yours."))
    if translation.translator_id == request.user.pk:
        return private(render(request, "elicitation/own_work.html", {"batch": batch}, status=403))
    if not batch.serving_when_read:
        return not_serving(request, batch)
    version = current_version(translation)
    return verify_page(request, translation, version, VerificationForm(initial={"version": version.number,
                                                                                "client_id": uuid.uuid4()}))


def verify_page(request, translation, version, form, status: int = 200):
    batch = translation.source.batch
    record_shown_source(request.user, translation.source, request.path)
    item = verification_item(translation, version)
    form.fields["shown"].initial = item["shown"]
    return private(render(request, "elicitation/verify.html", {
        "batch": batch, "item": item, "form": form, "translation": translation, "version": version,
        "analysis_form": AnalysisCheckForm() if version.morphological_analysis and not version.analysis_checks.filter(
            checked_by=request.user).exists() else None,
        "target_dir": text_direction(batch.target_language), "source_dir": text_direction(batch.source_language),
        "needed": batch.verifications_needed(translation.source.segment),
        "waiting": translation.status == Translation.Status.SUBMITTED}, status=status))


def verify_post(request, translation: Translation):
    """A verdict, stored once: JSON for elicit.js (the next translation is the one the phone holds), else a redirect
    to the next translation. The service checks who may verify, in the transaction that stores it."""
    form = VerificationForm(request.POST)
    if not form.is_valid():
        if qualification_problem(request.user, translation.source.batch) is not None:
            raise Http404(_("No such translation among yours."))
        if wants_json(request):
            return JsonResponse({"error": _("The verification was not saved."), "code": "invalid",
                                 "fields": {k: [str(e) for e in v] for k, v in form.errors.items()}}, status=400)
        return verify_page(request, translation, current_version(translation), form, 400)
    try:
        verification, created = verify_translation(
            actor=request.user, translation=translation, submission=form.submission(translation.public_id))
    except NotQualified:
        raise Http404(_("No such translation among yours.")) from None
    except NotServing:
        return not_serving(request, translation.source.batch)
    except ApplicationError as error:
        if wants_json(request):
            return JsonResponse({"error": error.message, "field": error.field, "code": error.kind},
                                status=error.http_status)
        form.add_error(error.field if error.field in form.fields else None, error.message)
        return verify_page(request, translation, current_version(translation), form, error.http_status)
    if wants_json(request):
        return JsonResponse({"saved": True, "duplicate": not created, "outcome": verification.outcome},
                            status=201 if created else 200)
    messages.success(request, _("Saved. Thank you."))
    return redirect("elicitation:verify_start", public_id=translation.source.batch.public_id)


@login_required
def verify_upcoming(request, public_id):
    batch = working_batch_or_404(request, public_id)
    if not batch.serving_when_read:
        return private(not_serving(request, batch))
    url, conflict_url = address_maker("elicitation:verify"), address_maker("elicitation:declare_conflict")
    return private(JsonResponse({"items": [
        verification_item(translation, version, url=url(translation.public_id),
                          conflict_url=conflict_url(translation.public_id))
        for translation, version in upcoming_to_verify(request.user, batch)]}))


@login_required
@require_POST
def analysis_check(request, pk: int):
    version = get_object_or_404(TranslationVersion.objects.select_related("translation__source__batch"), pk=pk)
    form = AnalysisCheckForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Confirm or dispute it, and say how you checked it."))
    else:
        try:
            check_analysis(actor=request.user, version=version, **form.cleaned_data)
        except ApplicationError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, _("Your check of the analysis is recorded."))
    return redirect("elicitation:verify", public_id=version.translation.public_id)


@login_required
@require_POST
def declare_conflict(request, public_id):
    translation = get_object_or_404(Translation.objects.select_related("source__batch__organization"),
                                    public_id=public_id)
    batch = translation.source.batch
    if qualification_problem(request.user, batch) is not None:
        raise Http404(_("No such translation among yours."))
    try:
        declare_verification_conflict(actor=request.user, translation=translation,
                                      reason=request.POST.get("reason", ""))
    except ApplicationError as error:
        messages.error(request, error.message)
        return redirect("elicitation:verify", public_id=translation.public_id)
    messages.success(request, _("Recorded: this translator's work goes to other verifiers."))
    return redirect("elicitation:verify_start", public_id=batch.public_id)


@login_required
def my_work(request):
    """The speaker's own elicited work and pay per batch, and taking back what no frozen version holds."""
    translations = (Translation.objects.filter(translator=request.user).select_related("source__batch")
                    .annotate(frozen=Count("entries", filter=Q(entries__version__frozen_at__isnull=False)))
                    .order_by("-created_at")[:200])
    return private(render(request, "elicitation/my_work.html", {
        "translations": translations, "pay": speaker_batch_pay(request.user)}))


@login_required
@require_POST
def withdraw(request):
    outcome = withdraw_elicited_work(actor=request.user)
    messages.success(request, ngettext(
        "%(withdrawn)d translation withdrawn and %(removed)d entries taken out of draft versions; %(kept)d stay in "
        "frozen versions, which never change.",
        "%(withdrawn)d translations withdrawn and %(removed)d entries taken out of draft versions; %(kept)d stay in "
        "frozen versions, which never change.", outcome["withdrawn"]) % {"withdrawn": outcome["withdrawn"],
                                                   "removed": outcome["entries_removed"],
                                                   "kept": outcome["kept_in_frozen_versions"]})
    return redirect("elicitation:my_work")
