"""The translator's pages: the next source, the translate page and its post (JSON for elicit.js), a skip, the sources
ahead as data, and the page's offline shell (what it reloads as without a connection, `shared.service_worker`)."""

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.addresses import address
from common.errors import ApplicationError
from common.responses import private, wants_json
from languages.directions import text_direction

from ..forms import SkipForm, TranslationForm, shown_token
from ..models import MAX_TEXT_LENGTH, Batch, Source, Translation
from ..selectors.access import may_hold_on_device, qualification_problem, record_shown_source, working_source
from ..selectors.translating import UPCOMING, revision_details, to_revise, to_translate, upcoming_work
from ..services.errors import NotQualified, NotServing
from ..services.translating import skip_source, submit_translation
from .shared import not_serving, working_batch_or_404


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


def source_item(source: Source, revision: tuple[str, list[str]] | None = None) -> dict:
    """What the translate page and its JSON show of a source: the source, its context, the guideline, and for a
    revision the translator's own text and the verifier's notes (`revision_details`). Never any machine
    output."""
    return {"id": str(source.public_id), "url": address("elicitation:translate", source.public_id),
            "skip_url": address("elicitation:skip", source.public_id),
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
        "may_hold": may_hold_on_device(source),
        "done": Translation.objects.filter(source__batch=batch, translator=request.user).count()}), status=status))


def translate_context(request, batch: Batch, item: dict, form: TranslationForm, more: dict) -> dict:
    return {"batch": batch, "item": item, "form": form, "skip_form": SkipForm(initial={"client_id": uuid.uuid4()}),
            "target_dir": text_direction(batch.target_language), "source_dir": text_direction(batch.source_language),
            "limit": MAX_TEXT_LENGTH, **more}


@login_required
def offline_shell(request, public_id):
    """The translate page without a source: elicit.js stores it under the addresses of the sources it holds, and fills
    it with the held source when the page is reloaded without a connection (`shared.service_worker`)."""
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
    items = [source_item(t.source, details[t.pk]) for t in revisions] + [source_item(source) for source in sources]
    return private(JsonResponse({"items": items[:UPCOMING]}))
