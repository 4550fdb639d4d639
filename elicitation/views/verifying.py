"""The verifier's pages: the next translation, the verify page and its post (JSON for elicit.js), the translations
ahead as data, the page's offline shell (what it reloads as without a connection, `shared.service_worker`), an
analysis check and a declared conflict of interest."""

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

from ..forms import AnalysisCheckForm, VerificationForm, shown_token
from ..models import Batch, Translation, TranslationVersion
from ..selectors.access import may_hold_on_device, qualification_problem, record_shown_source, working_translation
from ..selectors.translating import current_version
from ..selectors.verifying import next_to_verify, upcoming_to_verify
from ..services.errors import NotQualified, NotServing
from ..services.verifying import check_analysis, declare_verification_conflict, verify_translation
from .shared import not_serving, working_batch_or_404


@login_required
def verify_start(request, public_id):
    batch = working_batch_or_404(request, public_id)
    if not batch.serving_when_read:
        return not_serving(request, batch)
    translation = next_to_verify(request.user, batch)
    if translation is None:
        return private(render(request, "elicitation/done.html", {"batch": batch, "mode": "verify"}))
    return redirect("elicitation:verify", public_id=translation.public_id)


def verification_item(translation: Translation, version: TranslationVersion, batch: Batch) -> dict:
    """What the verify page shows: the source, its context and the translation's current version, with the flag a
    suspected machine output carries (the system's name, never its text), and how many accepts it needs."""
    source = translation.source
    return {"id": str(translation.public_id),
            "url": address("elicitation:verify", translation.public_id),
            "conflict_url": address("elicitation:declare_conflict", translation.public_id),
            "source": source.text, "context": source.context, "text": version.text, "version": version.number,
            "analysis": version.morphological_analysis, "suspected": version.suspected_system,
            "suspected_chrf": version.suspected_chrf, "segment": source.segment, "pasted": bool(version.pasted),
            "shown": shown_token(translation.public_id),
            "needed": batch.verifications_needed(source.segment)}


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
    item = verification_item(translation, version, batch)
    form.fields["shown"].initial = item["shown"]
    return private(render(request, "elicitation/verify.html", verify_context(batch, item, form, {
        "translation": translation, "version": version, "may_hold": may_hold_on_device(translation.source),
        "analysis_form": AnalysisCheckForm() if version.morphological_analysis and not version.analysis_checks.filter(
            checked_by=request.user).exists() else None,
        "waiting": translation.status == Translation.Status.SUBMITTED}), status=status))


def verify_context(batch: Batch, item: dict, form: VerificationForm, more: dict) -> dict:
    return {"batch": batch, "item": item, "form": form, "target_dir": text_direction(batch.target_language),
            "source_dir": text_direction(batch.source_language), **more}


@login_required
def verify_shell(request, public_id):
    """The verify page without a translation, as the translate page has its shell (`translating.offline_shell`):
    elicit.js stores it under the addresses of the translations it holds, and fills it with the held translation
    when the page is reloaded without a connection (`shared.service_worker`). The device holds translations of the
    public segments only, which all need the batch's usual number of accepts."""
    batch = working_batch_or_404(request, public_id)
    if not batch.serving_when_read:
        return not_serving(request, batch)
    empty = {"id": "", "url": "", "conflict_url": "", "source": "", "context": "", "text": "", "version": "",
             "suspected": "", "pasted": False, "needed": batch.verifications_per_translation}
    return private(render(request, "elicitation/verify.html", verify_context(
        batch, empty, VerificationForm(initial={"client_id": uuid.uuid4()}),
        {"shell": True})))


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
    return private(JsonResponse({"items": [verification_item(translation, version, batch)
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
