"""Reads of Local Contexts labels (docs/labels.md): which labels apply to a dataset or version, each in the reader's
language when its community wrote a translation in it, the envelope block exports carry, and the one rule of what
a restrictive label blocks until a release decision of exactly the dataset's restrictive labels executed."""

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, Q, QuerySet, prefetch_related_objects
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from common.compiled import CompiledQuery
from common.errors import NotAllowed
from governance.models import Decision, DecisionState
from organizations.permissions import permitted

from .local_contexts import LABEL_TYPES, LabelCategory
from .models import CulturalLabel, CulturalLabelTranslation, Dataset, DatasetVersion, LabelRelease

LABEL_RELEASE_KIND = "corpus.label_release"


def labels_of(dataset: Dataset, version: DatasetVersion | None = None) -> QuerySet[CulturalLabel]:
    """The labels that apply: the dataset's own and, for a version, that version's; for the dataset alone, every
    label of the dataset and of its versions. Their translations come with them."""
    labels = CulturalLabel.objects.filter(dataset=dataset)
    if version is not None:
        labels = labels.filter(Q(version__isnull=True) | Q(version=version))
    return labels.select_related("dataset", "version", "project").prefetch_related(
        Prefetch("translations", queryset=CulturalLabelTranslation.objects.order_by("language"))).order_by(
        "label_type", "version__version", "pk")


def _tag(language: str) -> str:
    return language.strip().lower().replace("_", "-")


def _matches(tag: str, wanted: str) -> int:
    """2 for the same tag, 1 for the same primary language (`fr` and `fr-CA`), else 0."""
    tag, wanted = _tag(tag), _tag(wanted)
    if not tag or not wanted:
        return 0
    if tag == wanted:
        return 2
    return 1 if tag.split("-")[0] == wanted.split("-")[0] else 0


@dataclass(frozen=True)
class ShownLabel:
    """A label as one reader sees it: the community's name and text in the reader's language when the community
    wrote a translation in it, else in the community's own language (`translated` False)."""

    label: CulturalLabel
    name: str
    text: str
    language: str
    translated: bool

    @property
    def category(self) -> str:
        kind = LABEL_TYPES.get(self.label.label_type)
        return kind.category if kind else ""

    @property
    def type_name(self) -> str:
        kind = LABEL_TYPES.get(self.label.label_type)
        return kind.name if kind else self.label.label_type


def shown_label(label: CulturalLabel, language: str | None = None) -> ShownLabel:
    """`label` in `language` (the active one by default): the community's own text when it is in that language,
    else its best-matching translation written by the community, else the community's own text."""
    wanted = language or get_language() or ""
    own = _matches(label.language, wanted)
    best = max(label.translations.all(), key=lambda item: _matches(item.language, wanted), default=None)
    if best is not None and _matches(best.language, wanted) > own:
        return ShownLabel(label, best.name or label.name, best.text, best.language, True)
    return ShownLabel(label, label.name, label.text, label.language, False)


def shown_labels(labels: Iterable[CulturalLabel], language: str | None = None) -> list[ShownLabel]:
    return [shown_label(label, language) for label in labels]


def label_document(label: CulturalLabel) -> dict[str, Any]:
    """A label as exports and the API give it: the community's own name and text, every translation the community
    wrote, where it applies and whether it is restrictive."""
    kind = LABEL_TYPES.get(label.label_type)
    return {
        "id": str(label.public_id),
        "type": label.label_type,
        "labelType": kind.hub_type if kind else label.label_type,
        "category": kind.category if kind else "",
        "name": label.name,
        "text": label.text,
        "language": label.language,
        "community": label.community,
        "restrictive": label.restrictive,
        "scope": {"dataset": label.dataset.identifier,
                  "version": label.version.version if label.version is not None else None},
        "translations": [{"language": item.language, "name": item.name, "text": item.text}
                         for item in label.translations.all()],
        "hubProject": label.project.unique_id if label.project is not None else None,
        "hubId": label.hub_id or None,
    }


BLOCK_KEYS = {LabelCategory.TK: "tkLabels", LabelCategory.BC: "bcLabels", LabelCategory.NOTICE: "notices"}


def sovereignty_block(version: DatasetVersion) -> dict[str, list[dict[str, Any]]] | None:
    """The envelope block of an export of `version` (`sovereignty`: `tkLabels`, `bcLabels`, `notices`), or None when
    no label applies to it."""
    block: dict[str, list[dict[str, Any]]] = {key: [] for key in BLOCK_KEYS.values()}
    found = False
    for label in labels_of(version.dataset, version):
        kind = LABEL_TYPES.get(label.label_type)
        block[BLOCK_KEYS[kind.category if kind else LabelCategory.NOTICE]].append(label_document(label))
        found = True
    return block if found else None


def with_sovereignty(envelope: str, block: dict[str, Any] | None) -> str:
    """The envelope text (a JSON object) with the `sovereignty` block as its last member, the stored text kept byte
    for byte before it; a stored `sovereignty` member is replaced by the current one."""
    if block is None:
        return envelope
    stored = json.loads(envelope)
    if not isinstance(stored, dict):
        return envelope
    member = json.dumps(block, ensure_ascii=False)
    if "sovereignty" in stored:
        stored["sovereignty"] = block
        return json.dumps(stored, ensure_ascii=False)
    body = envelope.rstrip()[:-1].rstrip()
    return body + (", " if stored else "") + '"sovereignty": ' + member + "}"


# ---------------------------------------------------------------------------------------------------------
# Restrictive labels and their release (one rule, for exports, the API and publication)
# ---------------------------------------------------------------------------------------------------------

def label_text_sha256(label: CulturalLabel) -> str:
    """SHA-256 of everything the community wrote of a label: any change of it is a change of the label."""
    document = {"type": label.label_type, "name": label.name, "text": label.text, "language": label.language,
                "community": label.community, "version": label.version_id,
                "translations": sorted([item.language, item.name, item.text] for item in label.translations.all())}
    return hashlib.sha256(json.dumps(document, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def restrictive_labels(dataset: Dataset) -> list[CulturalLabel]:
    """Every restrictive label of the dataset and of its versions."""
    return [label for label in labels_of(dataset) if label.restrictive]


def label_set(labels: Iterable[CulturalLabel]) -> list[dict[str, str]]:
    """The canonical list a release decision names: each restrictive label's id, type and text hash, by id."""
    return sorted(({"id": str(label.public_id), "type": label.label_type, "name": label.name,
                    "text_sha256": label_text_sha256(label)} for label in labels), key=lambda item: item["id"])


def label_set_sha256(labels: list[dict[str, str]]) -> str:
    return hashlib.sha256(json.dumps(labels, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8")).hexdigest()


def release_payload(dataset: Dataset) -> dict[str, Any]:
    """The payload of a release decision of the dataset's current restrictive labels."""
    labels = label_set(restrictive_labels(dataset))
    return {"dataset": dataset.identifier, "labels": labels, "label_set_sha256": label_set_sha256(labels)}


def latest_release(dataset: Dataset) -> LabelRelease | None:
    return LabelRelease.objects.filter(dataset=dataset).order_by("-released_at", "-pk").first()


@dataclass(frozen=True)
class LabelBlock:
    """Restrictive labels that block public export and release, and the decision that would lift the block."""

    dataset: Dataset
    labels: list[CulturalLabel]
    reopened: bool  # an earlier release covered another set of labels

    @property
    def names(self) -> str:
        return ", ".join(f"“{shown_label(label).name}”" for label in self.labels)

    @property
    def message(self) -> str:
        return _("%(dataset)s carries restrictive Local Contexts labels set by its community (%(labels)s): public "
                 "export and release wait for its governance staff's release decision (“Release a dataset under its "
                 "restrictive labels”) naming exactly these labels.") % {
            "dataset": self.dataset.identifier, "labels": self.names} + (
            " " + _("The labels changed since the last release decision, which covered other labels.")
            if self.reopened else "")


class LabelReleaseRequired(NotAllowed):
    """Public export or release refused: restrictive labels wait for their release decision."""


def release_block(dataset: Dataset, version: DatasetVersion | None = None) -> LabelBlock | None:
    """What blocks public export of `version` (release of the dataset when None): the restrictive labels applying
    to it, unless the latest executed release decision of the dataset named exactly the dataset's current
    restrictive labels. Any change of a restrictive label (added, removed, rewritten, translated) reopens it."""
    every = restrictive_labels(dataset)
    applying = [label for label in every if version is None or label.version_id in (None, version.pk)]
    if not applying:
        return None
    release = latest_release(dataset)
    if release is not None and release.label_set_sha256 == label_set_sha256(label_set(every)):
        return None
    return LabelBlock(dataset, applying, reopened=release is not None)


def export_block(user, version: DatasetVersion) -> LabelBlock | None:
    """The block of an export of `version` to `user`: none for the steward's secret readers (the community's own
    staff), the release block for everyone else."""
    if permitted(user, "dataset.see_secret", version.dataset):
        return None
    return release_block(version.dataset, version)


def refuse_blocked_export(user, version: DatasetVersion) -> None:
    block = export_block(user, version)
    if block is not None:
        raise LabelReleaseRequired(block.message, "labels")


@dataclass(frozen=True)
class VersionLabels:
    """What a version's page shows of its labels for one reader."""

    labels: list[ShownLabel]
    export_block: LabelBlock | None  # the reader's export of it is refused
    release_block: LabelBlock | None  # for its governance staff: what waits for a release decision


def version_labels(user, version: DatasetVersion, *, governs: bool) -> VersionLabels:
    """The labels that apply to `version` in the reader's language, and the blocks they put (read only when a
    restrictive one applies: one query for a version whose labels restrict nothing)."""
    labels = list(labels_of(version.dataset, version))
    restricted = any(label.restrictive for label in labels)
    return VersionLabels(
        labels=shown_labels(labels),
        export_block=export_block(user, version) if restricted else None,
        release_block=release_block(version.dataset, version) if restricted and governs else None)


def labels_of_versions(dataset_ids: Iterable[int], version_ids: Iterable[int]) -> QuerySet[CulturalLabel]:
    """The labels of the datasets `dataset_ids` that apply to the whole dataset or to one of `version_ids`, without
    their translations (`labels_by_version` reads them)."""
    return CulturalLabel.objects.filter(dataset_id__in=dataset_ids).filter(
        Q(version__isnull=True) | Q(version_id__in=version_ids)).select_related("dataset", "version", "project") \
        .order_by("label_type", "pk")


# The labels of one version, all that a leaderboard ranking of one version (the default) reads: compiled once per
# connection (common.compiled), which spares about 1 ms of Python on each ranking computed afresh.
_ONE_VERSION_LABELS = CompiledQuery(lambda dataset, version: labels_of_versions([dataset], [version]),
                                    dataset=int, version=int)


def labels_by_version(dataset_of: dict[int, int]) -> dict[int, list[dict[str, Any]]]:
    """For the leaderboard: version id → the labels applying to it, as `label_document` gives them, from the
    versions' dataset ids (`dataset_of`: version id → dataset id); one query when none has labels."""
    if not dataset_of:
        return {}
    if len(dataset_of) == 1:
        ((version_id, dataset_id),) = dataset_of.items()
        labels = _ONE_VERSION_LABELS.objects(dataset=dataset_id, version=version_id)
    else:
        labels = list(labels_of_versions(set(dataset_of.values()), set(dataset_of)))
    prefetch_related_objects(labels, Prefetch("translations",
                                              queryset=CulturalLabelTranslation.objects.order_by("language")))
    found: dict[int, list[dict[str, Any]]] = {pk: [] for pk in dataset_of}
    for label in labels:
        document = label_document(label)
        for pk, dataset_id in dataset_of.items():
            if label.dataset_id == dataset_id and label.version_id in (None, pk):
                found[pk].append(document)
    return found


def label_shown_in(document: dict[str, Any], language: str | None = None) -> dict[str, str]:
    """A `label_document` in the reader's language, by the rule of `shown_label`."""
    wanted = language or get_language() or ""
    own = _matches(document["language"], wanted)
    best = max(document["translations"], key=lambda item: _matches(item["language"], wanted), default=None)
    if best is not None and _matches(best["language"], wanted) > own:
        return {"name": best["name"] or document["name"], "text": best["text"], "language": best["language"]}
    return {"name": document["name"], "text": document["text"], "language": document["language"]}


def open_release_decision(dataset: Dataset):
    """The open release decision on the dataset's labels, if any (shown on the labels page)."""
    return Decision.objects.filter(organization_id=dataset.organization_id, kind=LABEL_RELEASE_KIND,
                                   subject=release_subject(dataset), state=DecisionState.OPEN).first()


def release_subject(dataset: Dataset) -> str:
    return f"labels:{dataset.identifier}"
