"""The corpus's background work: keeping Local Contexts labels in step with the Hub when an API key is configured
(docs/labels.md). Tasks only call services."""

from celery import shared_task

from . import label_services, local_contexts
from .models import LocalContextsProject


@shared_task
def sync_hub_project(project_id: int) -> str:
    """Sync one project's labels from the Hub; the cached labels stay when the Hub cannot be read."""
    return label_services.sync_hub_project(project_id=project_id)


@shared_task
def sync_hub_projects() -> int:
    """Beat: sync every imported project (nothing without an API key). Returns how many were synced."""
    if not local_contexts.hub_configured():
        return 0
    outcomes = [label_services.sync_hub_project(project_id=pk)
                for pk in LocalContextsProject.objects.order_by("pk").values_list("pk", flat=True)]
    return outcomes.count("synced")
