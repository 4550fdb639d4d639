"""What the elicitation pages share: private responses, JSON wanted, the curated batch or dataset, the
batch a person works in and the answer when it takes no work, and the service
worker the translate and verify pages reload with without a connection."""


from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from common import offline
from common.addresses import address_pattern
from common.responses import wants_json
from corpus.models import ConsentUse, Dataset
from corpus.selectors import has_consent
from organizations.models import SECRET_READER_ROLES
from organizations.permissions import permitted
from organizations.selectors import org_ids_with_roles

from ..models import Batch
from ..selectors.access import qualification_problem, working_batch


def curated_batch(request, public_id) -> Batch:
    batch = get_object_or_404(Batch.objects.select_related("dataset", "organization"), public_id=public_id)
    if not permitted(request.user, "dataset.curate", batch.dataset):
        raise Http404(_("No such batch among yours."))
    return batch


def curated_datasets(request):
    return Dataset.objects.filter(organization_id__in=org_ids_with_roles(request.user, SECRET_READER_ROLES))


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


OFFLINE_CACHE = "champollion-elicit-v1"  # elicit.js's CACHE


def service_worker(request):
    """elicit.js's service worker (common.offline), served under /elicit/ so that its scope covers the translate and
    verify pages: one worker for both, since a page reloaded without a connection is answered with the shell elicit.js
    stored under that page's own address (the translate page's shell under a source's, the verify page's under a
    translation's). It holds no data of its own (elicit.js decides what is stored)."""
    item_pages = [address_pattern("elicitation:translate"), address_pattern("elicitation:verify")]
    return offline.service_worker(request, cache=OFFLINE_CACHE, item_page="|".join(item_pages),
                                  submission="|".join([*item_pages, address_pattern("elicitation:skip")]))
