"""The corpus's kind of decision (docs/governance.md): releasing a dataset's public segments takes k signatures
and the least open time; withdrawing them from public view takes one and applies at once (restricting is fast,
releasing is slow). Registered with governance from `CorpusConfig.ready`."""

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from accounts.models import User
from common.errors import ApplicationError, ErrorKind
from common.sentences import Sentence
from governance import kinds
from governance import services as governance
from organizations.models import Organization

from . import label_services, services
from .label_selectors import LABEL_RELEASE_KIND, LabelReleaseRequired, release_block, release_payload, release_subject
from .models import ConsentUse, Dataset
from .selectors import has_consent

PUBLICATION = "corpus.publication"
LABEL_RELEASE = LABEL_RELEASE_KIND


def _dataset(organization: Organization, payload: dict) -> Dataset:
    found = Dataset.objects.filter(organization=organization, identifier=payload.get("dataset")).first()
    if found is None:
        raise ApplicationError(_("%(organization)s stewards no dataset %(dataset)s.") % {
            "organization": organization.name, "dataset": payload.get("dataset")}, "dataset", kind=ErrorKind.NOT_FOUND)
    return found


def _check(organization: Organization, payload: dict) -> None:
    dataset = _dataset(organization, payload)
    if payload.get("is_public") is True and not has_consent(dataset, ConsentUse.PUBLIC_RELEASE):
        raise services.ConsentRequired(
            _("%(dataset)s cannot be released publicly: no active consent record covers public release of its "
              "development and diagnostic segments. Record the community's consent first.")
            % {"dataset": dataset.identifier})
    block = release_block(dataset) if payload.get("is_public") is True else None
    if block is not None:
        raise LabelReleaseRequired(block.message, "labels")


def _execute(decision, actor: User) -> Sentence:
    dataset = _dataset(decision.organization, decision.payload)
    services.set_dataset_public(actor=actor, dataset=dataset, is_public=decision.payload["is_public"] is True)
    return Sentence(gettext_noop("%(dataset)s is public.") if decision.payload["is_public"] is True
                    else gettext_noop("%(dataset)s is withdrawn from public view."), {"dataset": dataset.identifier})


PUBLICATION_KIND = kinds.DecisionKind(
    name=PUBLICATION, label=gettext_lazy("Release a dataset's public segments (or withdraw them)"),
    execute=_execute, check=_check, restricting=lambda payload: payload.get("is_public") is not True,
    url=lambda payload: reverse("corpus:dataset", args=[payload["dataset"]]),
    checks=(("consent", gettext_lazy("I read the community's consent record for public release")),
            ("segments", gettext_lazy("I checked that only the development and diagnostic segments become public"))),
    min_open_hours=48, expires_after_days=14)


def _check_release(organization: Organization, payload: dict) -> None:
    label_services.check_release(_dataset(organization, payload), payload)


def _execute_release(decision, actor: User) -> Sentence:
    dataset = _dataset(decision.organization, decision.payload)
    label_services.release_labels(actor=actor, dataset=dataset, payload=decision.payload,
                                  decision_id=str(decision.public_id))
    return Sentence(gettext_noop("%(dataset)s may be exported and released publicly under its restrictive labels, as "
                                 "long as they stay the ones this decision names."), {"dataset": dataset.identifier})


LABEL_RELEASE_DECISION_KIND = kinds.DecisionKind(
    name=LABEL_RELEASE, label=gettext_lazy("Release a dataset under its restrictive labels"),
    execute=_execute_release, check=_check_release,
    url=lambda payload: reverse("corpus:labels", args=[payload["dataset"]]),
    checks=(("labels", gettext_lazy("I read each restrictive label and the community's text")),
            ("community", gettext_lazy("The community agreed to public export and release under these labels"))),
    min_open_hours=48, expires_after_days=14)


def register() -> None:
    kinds.register(PUBLICATION_KIND)
    kinds.register(LABEL_RELEASE_DECISION_KIND)


def propose_label_release(*, actor: User, dataset: Dataset):
    """Release the dataset's public export and publication under exactly its current restrictive labels (k
    signatures and the least open time; at once where k = 1)."""
    return governance.propose(
        actor=actor, organization=dataset.organization, kind=LABEL_RELEASE, subject=release_subject(dataset),
        summary=Sentence(gettext_noop("Release %(dataset)s under its restrictive labels"),
                         {"dataset": dataset.identifier}),
        payload=release_payload(dataset))


def propose_publication(*, actor: User, dataset: Dataset, is_public: bool):
    """Release (k signatures, after the wait) or withdraw (at once) a dataset's public segments."""
    return governance.propose(
        actor=actor, organization=dataset.organization, kind=PUBLICATION, subject=f"dataset:{dataset.identifier}",
        summary=Sentence(gettext_noop("Release %(dataset)s publicly") if is_public
                         else gettext_noop("Withdraw %(dataset)s from public view"), {"dataset": dataset.identifier}),
        payload={"dataset": dataset.identifier, "is_public": bool(is_public)})
