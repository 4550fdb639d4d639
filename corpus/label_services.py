"""Writes of Local Contexts labels (docs/labels.md): governance staff of a dataset's steward attach labels and
notices with their community's own text, add the community's translations, mark labels restrictive, import a Hub
project's labels from its JSON, and the worker syncs them from the Hub when an API key is configured. Every write is
atomic and audited; a change of the restrictive labels closes any open release decision (it names other labels)
and so reopens the block of public export and release."""

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from common.errors import ApplicationError, Conflict, ErrorKind, NotAllowed
from governance import services as governance
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require

from . import local_contexts
from .label_selectors import (
    LABEL_RELEASE_KIND,
    label_set,
    label_set_sha256,
    release_subject,
    restrictive_labels,
)
from .local_contexts import (
    LANGUAGE_MAX_LENGTH,
    NAME_MAX_LENGTH,
    TEXT_MAX_LENGTH,
    HubProject,
    HubUnavailable,
    LabelError,
    label_type,
    plain_text,
)
from .models import (
    CulturalLabel,
    CulturalLabelTranslation,
    Dataset,
    DatasetVersion,
    LabelRelease,
    LocalContextsProject,
)


@dataclass(frozen=True)
class TranslationInput:
    language: str
    text: str
    name: str = ""
    language_name: str = ""


def _language(value: Any, field: str, *, required: bool) -> str:
    language = plain_text(value, field, label=_("The language"), limit=LANGUAGE_MAX_LENGTH, required=required)
    if language and not all(part.isalnum() for part in language.replace("_", "-").split("-")):
        raise LabelError(_("“%(language)s” is not a language tag; write a BCP 47 tag such as crk, fr or fr-CA.") % {
            "language": language}, field)
    return language


def _audit(actor: User | None, dataset: Dataset, change: str, label: CulturalLabel | None = None, **details) -> None:
    if label is not None:
        details = {"label": str(label.public_id), "label_type": label.label_type, "restrictive": label.restrictive,
                   **({"version": label.version.version} if label.version is not None else {}), **details}
    record_event(AuditAction.DATASET_LABELS_CHANGED, actor=actor, organization=dataset.organization, obj=dataset,
                 details={"dataset": dataset.identifier, "change": change, **details})


def _restrictive_changed(actor: User | None, dataset: Dataset, before: str) -> None:
    """Close an open release decision whose labels are no longer the dataset's restrictive ones."""
    if label_set_sha256(label_set(restrictive_labels(dataset))) != before:
        governance.supersede(actor=actor, organization=dataset.organization, kind=LABEL_RELEASE_KIND,
                             subject=release_subject(dataset),
                             reason=_("The dataset's restrictive labels changed: a release decision names exactly "
                                      "the labels it releases. Propose it again."))


def _restrictive_digest(dataset: Dataset) -> str:
    return label_set_sha256(label_set(restrictive_labels(dataset)))


def _govern(actor: User, dataset: Dataset) -> Dataset:
    require(actor, "dataset.govern", dataset, error=NotAllowed)
    return Dataset.objects.select_for_update().select_related("organization").get(pk=dataset.pk)


def _scope(dataset: Dataset, version: DatasetVersion | None) -> DatasetVersion | None:
    if version is not None and version.dataset_id != dataset.pk:
        raise LabelError(_("Version %(version)s is not a version of %(dataset)s.") % {
            "version": version, "dataset": dataset.identifier}, "version", kind=ErrorKind.NOT_FOUND)
    return version


def _refuse_duplicate(dataset: Dataset, version: DatasetVersion | None, code: str, exclude_project=None) -> None:
    existing = CulturalLabel.objects.filter(dataset=dataset, version=version, label_type=code)
    if exclude_project is not None:
        existing = existing.exclude(project=exclude_project)
    if existing.exists():
        where = (_("version %(version)s") % {"version": version.version}) if version else _("the dataset")
        raise Conflict(_("%(type)s is already attached to %(where)s; change or remove that label instead.") % {
            "type": local_contexts.LABEL_TYPES[code].name, "where": where}, "label_type")


@transaction.atomic
def attach_label(*, actor: User, dataset: Dataset, label_type_code: str, text: str, name: str = "",
                 language: str = "", community: str = "", restrictive: bool | None = None,
                 version: DatasetVersion | None = None,
                 translations: list[TranslationInput] | None = None) -> CulturalLabel:
    """Attach a label or notice to the dataset (or one version) with the community's own text. `restrictive`
    defaults to the type's (Community Use Only, Secret / Sacred, Men and Women Restricted)."""
    dataset = _govern(actor, dataset)
    kind = label_type(label_type_code)
    version = _scope(dataset, version)
    label = CulturalLabel(
        dataset=dataset, version=version, label_type=kind.code,
        name=plain_text(name, "name", label=_("The label's name"), limit=NAME_MAX_LENGTH, required=False)
        or kind.name,
        text=plain_text(text, "text", label=_("The label's text"), limit=TEXT_MAX_LENGTH),
        language=_language(language, "language", required=False),
        community=plain_text(community, "community", label=_("The community"), limit=300, required=False),
        restrictive=kind.restrictive if restrictive is None else bool(restrictive), attached_by=actor)
    checked = [_translation(item, f"translations[{index}]") for index, item in enumerate(translations or [])]
    before = _restrictive_digest(dataset)
    _refuse_duplicate(dataset, version, kind.code)
    label.save()
    for item in checked:
        CulturalLabelTranslation.objects.create(label=label, **item)
    _audit(actor, dataset, "attached", label, name=label.name)
    _restrictive_changed(actor, dataset, before)
    return label


def _translation(item: TranslationInput, field: str) -> dict[str, str]:
    return {
        "language": _language(item.language, f"{field}.language", required=True),
        "language_name": plain_text(item.language_name, f"{field}.language_name", label=_("The language's name"),
                                    limit=100, required=False),
        "name": plain_text(item.name, f"{field}.name", label=_("The translated name"), limit=NAME_MAX_LENGTH,
                           required=False),
        "text": plain_text(item.text, f"{field}.text", label=_("The translated text"), limit=TEXT_MAX_LENGTH),
    }


def _locked_label(actor: User, label: CulturalLabel) -> tuple[Dataset, CulturalLabel]:
    dataset = _govern(actor, label.dataset)
    return dataset, CulturalLabel.objects.select_for_update(of=("self",)).select_related("version").get(
        pk=label.pk)


@transaction.atomic
def translate_label(*, actor: User, label: CulturalLabel, translation: TranslationInput) -> CulturalLabelTranslation:
    """Add (or rewrite) the community's translation of a label in one language."""
    dataset, label = _locked_label(actor, label)
    values = _translation(translation, "translation")
    before = _restrictive_digest(dataset)
    stored, created = CulturalLabelTranslation.objects.update_or_create(
        label=label, language=values["language"], defaults=values)
    _audit(actor, dataset, "translated", label, language=stored.language)
    _restrictive_changed(actor, dataset, before)
    return stored


@transaction.atomic
def set_label_restrictive(*, actor: User, label: CulturalLabel, restrictive: bool) -> CulturalLabel:
    """The community says whether this label restricts public export and release."""
    dataset, label = _locked_label(actor, label)
    if label.restrictive == bool(restrictive):
        return label
    before = _restrictive_digest(dataset)
    label.restrictive = bool(restrictive)
    label.save(update_fields=["restrictive"])
    _audit(actor, dataset, "restrictive" if restrictive else "not_restrictive", label)
    _restrictive_changed(actor, dataset, before)
    return label


@transaction.atomic
def remove_label(*, actor: User, label: CulturalLabel) -> None:
    dataset, label = _locked_label(actor, label)
    before = _restrictive_digest(dataset)
    _audit(actor, dataset, "removed", label, name=label.name)
    label.translations.all().delete()
    label.delete()
    _restrictive_changed(actor, dataset, before)


# ---------------------------------------------------------------------------------------------------------
# Local Contexts Hub projects
# ---------------------------------------------------------------------------------------------------------

def _store_project(*, actor: User | None, dataset: Dataset, parsed: HubProject, version: DatasetVersion | None,
                   project: LocalContextsProject | None = None) -> LocalContextsProject:
    """Replace the labels imported from `parsed`'s project by the ones it holds now: a label the Hub still lists
    (by its unique id, else its type) keeps the restrictive choice the community made here."""
    before = _restrictive_digest(dataset)
    if project is None:
        project, _ = LocalContextsProject.objects.select_for_update().get_or_create(
            dataset=dataset, unique_id=parsed.unique_id, defaults={"imported_by": actor})
    project.title, project.project_page = parsed.title, parsed.project_page
    existing = list(project.labels.all())
    by_hub_id = {label.hub_id: label for label in existing if label.hub_id}
    by_type = {(label.version_id, label.label_type): label for label in existing}
    scope = version if version is not None else (existing[0].version if existing else None)
    kept: set[int] = set()
    for item in parsed.labels:
        label = by_hub_id.get(item.hub_id) if item.hub_id else None
        label = label or by_type.get((scope.pk if scope else None, item.label_type))
        if label is None:
            _refuse_duplicate(dataset, scope, item.label_type, exclude_project=project)
            label = CulturalLabel(dataset=dataset, version=scope, project=project, attached_by=actor,
                                  restrictive=local_contexts.LABEL_TYPES[item.label_type].restrictive)
        label.label_type, label.name, label.text = item.label_type, item.name, item.text
        label.language, label.language_name, label.community = item.language, item.language_name, item.community
        label.hub_id = item.hub_id
        label.save()
        kept.add(label.pk)
        label.translations.all().delete()
        CulturalLabelTranslation.objects.bulk_create(
            CulturalLabelTranslation(label=label, language=tr.language, language_name=tr.language_name,
                                     name=tr.name, text=tr.text)
            for tr in {tr.language: tr for tr in item.translations}.values())
    for label in existing:
        if label.pk not in kept:
            label.translations.all().delete()
            label.delete()
    project.save()
    _restrictive_changed(actor, dataset, before)
    return project


@transaction.atomic
def import_hub_project(*, actor: User, dataset: Dataset, data: bytes,
                       version: DatasetVersion | None = None) -> LocalContextsProject:
    """Import a Local Contexts Hub project's labels and notices from its JSON (the Hub's API v2 project, saved to a
    file): all or nothing, every refusal naming the JSON path at fault. With an API key configured the worker then
    keeps them in step with the Hub."""
    dataset = _govern(actor, dataset)
    version = _scope(dataset, version)
    parsed = local_contexts.read_hub_project(data)
    project = _store_project(actor=actor, dataset=dataset, parsed=parsed, version=version)
    _audit(actor, dataset, "hub_imported", project=parsed.unique_id, labels=len(parsed.labels))
    if local_contexts.hub_configured():
        from .tasks import sync_hub_project

        project_id = project.pk
        transaction.on_commit(lambda: sync_hub_project.delay(project_id))
    return project


def sync_hub_project(*, project_id: int) -> str:
    """The worker's sync of one project from the Hub (no actor): on success its labels are the Hub's and
    `synced_at` is now; on failure they stay as cached and the problem is kept for the page. Returns what happened."""
    try:
        data = local_contexts.fetch_hub_project(
            LocalContextsProject.objects.values_list("unique_id", flat=True).get(pk=project_id))
    except HubUnavailable as error:
        LocalContextsProject.objects.filter(pk=project_id).update(sync_problem=error.message[:2000])
        return "unavailable"
    try:
        with transaction.atomic():
            project = LocalContextsProject.objects.select_for_update().select_related(
                "dataset__organization").get(pk=project_id)
            dataset = Dataset.objects.select_for_update().select_related("organization").get(pk=project.dataset_id)
            parsed = local_contexts.read_hub_project(data)
            if parsed.unique_id != project.unique_id:
                raise LabelError(_("unique_id: the Hub answered for project %(found)s, not %(asked)s.") % {
                    "found": parsed.unique_id, "asked": project.unique_id}, "unique_id")
            _store_project(actor=None, dataset=dataset, parsed=parsed, version=None, project=project)
            project.synced_at = timezone.now()
            project.sync_problem = ""
            project.save(update_fields=["synced_at", "sync_problem"])
            _audit(None, dataset, "hub_synced", project=project.unique_id, labels=len(parsed.labels))
    except ApplicationError as error:
        LocalContextsProject.objects.filter(pk=project_id).update(sync_problem=error.message[:2000])
        return "refused"
    return "synced"


# ---------------------------------------------------------------------------------------------------------
# Release (executed by a `corpus.label_release` decision, corpus.decisions)
# ---------------------------------------------------------------------------------------------------------

class LabelsChanged(Conflict):
    """The labels a release decision names are no longer the dataset's restrictive labels."""


def check_release(dataset: Dataset, payload: dict) -> None:
    """A release names exactly the dataset's current restrictive labels (ids and text hashes), and there are some."""
    current = label_set(restrictive_labels(dataset))
    if not current:
        raise LabelsChanged(_("%(dataset)s carries no restrictive label: there is nothing to release.") % {
            "dataset": dataset.identifier}, "labels")
    if payload.get("labels") != current or payload.get("label_set_sha256") != label_set_sha256(current):
        raise LabelsChanged(_("The restrictive labels of %(dataset)s changed since this release was proposed: it "
                              "names other labels (or other texts). Propose it again for the labels as they are.") % {
            "dataset": dataset.identifier}, "labels")


@transaction.atomic
def release_labels(*, actor: User, dataset: Dataset, payload: dict, decision_id: str) -> LabelRelease:
    """Record the release of exactly the labels `payload` names (the decision executes it)."""
    dataset = Dataset.objects.select_for_update().select_related("organization").get(pk=dataset.pk)
    check_release(dataset, payload)
    release = LabelRelease.objects.create(dataset=dataset, label_set_sha256=payload["label_set_sha256"],
                                          labels=payload["labels"], decision=decision_id, released_by=actor)
    record_event(AuditAction.DATASET_LABELS_RELEASED, actor=actor, organization=dataset.organization, obj=dataset,
                 details={"dataset": dataset.identifier, "decision": decision_id,
                          "labels": [item["id"] for item in payload["labels"]],
                          "label_set_sha256": payload["label_set_sha256"]})
    return release
