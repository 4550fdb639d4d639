"""A person's own pages: elicitation's start page (the batches they work in and those they curate), their work and
pay per batch, and taking back what no frozen version holds."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import BooleanField, Count, ExpressionWrapper, Q
from django.shortcuts import redirect, render
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from common.responses import private
from corpus.models import ConsentUse
from corpus.selectors import consent_filter
from organizations.permissions import permitted

from ..models import Batch, Translation
from ..selectors.access import batches_for
from ..selectors.own_work import speaker_batch_pay, work_counts
from ..services.own_work import withdraw_elicited_work
from .shared import curated_datasets


@login_required
def home(request):
    """Elicitation's start page: the batches the person translates and verifies in, and the ones they curate."""
    # `consented`: an open batch of a dataset whose consent to corpus creation was revoked takes no work; its row
    # says so instead of "Open".
    curated = Batch.objects.filter(dataset__in=curated_datasets(request)).select_related("dataset").annotate(
        source_count=Count("sources", distinct=True),
        consented=ExpressionWrapper(consent_filter(ConsentUse.CORPUS_CREATION, "dataset"), BooleanField()))
    batches = batches_for(request.user)
    counts = work_counts(request.user, batches)
    rows = [{"batch": batch, **counts[batch.pk]} for batch in batches]
    return private(render(request, "elicitation/home.html", {
        "rows": rows, "curated": [batch for batch in curated if permitted(request.user, "dataset.curate",
                                                                         batch.dataset)],
        "may_create": curated_datasets(request).exists()}))


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
