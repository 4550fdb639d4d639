"""What a speaker takes back of their own elicitation work: translations no frozen version holds leave every batch
and the draft versions they were added to (config.services.withdraw_everything calls it with review's own step)."""

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from corpus.services import remove_entries

from ..models import ElicitedEntry, Translation


@transaction.atomic
def withdraw_elicited_work(*, actor: User) -> dict[str, int]:
    """The speaker's translations that are in no frozen version leave every batch (kept, marked withdrawn) and the
    unfrozen versions they were added to; what is in a frozen version stays, as every frozen version does."""
    frozen = set(ElicitedEntry.objects.filter(translation__translator=actor, version__frozen_at__isnull=False)
                 .values_list("translation_id", flat=True))
    translations = list(Translation.objects.select_for_update().filter(translator=actor).exclude(
        status=Translation.Status.WITHDRAWN).exclude(pk__in=frozen))
    removed = 0
    links = list(ElicitedEntry.objects.filter(translation__in=translations).select_related("version", "entry"))
    by_version: dict[int, list] = {}
    for link in links:
        by_version.setdefault(link.version_id, []).append(link)
    for held in by_version.values():
        removed += remove_entries(actor=None, version=held[0].version, entries=[link.entry for link in held],
                                  reason="elicited work withdrawn by its translator")
    Translation.objects.filter(pk__in=[t.pk for t in translations]).update(status=Translation.Status.WITHDRAWN,
                                                                            decided_at=timezone.now())
    return {"withdrawn": len(translations), "entries_removed": removed, "kept_in_frozen_versions": len(frozen)}
