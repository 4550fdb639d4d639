"""The corpus's kind of decision (docs/governance.md): releasing a dataset's public segments takes k signatures
and the least open time; withdrawing them from public view takes one and applies at once (restricting is fast,
releasing is slow). Registered with governance from `CorpusConfig.ready`."""

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from common.errors import ApplicationError, ErrorKind
from governance import kinds
from governance import services as governance
from organizations.models import Organization

from . import services
from .models import ConsentUse, Dataset
from .selectors import has_consent

PUBLICATION = "corpus.publication"


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


def _execute(decision, actor: User) -> str:
    dataset = _dataset(decision.organization, decision.payload)
    services.set_dataset_public(actor=actor, dataset=dataset, is_public=decision.payload["is_public"] is True)
    return (_("%(dataset)s is public.") if decision.payload["is_public"] is True
            else _("%(dataset)s is withdrawn from public view.")) % {"dataset": dataset.identifier}


PUBLICATION_KIND = kinds.DecisionKind(
    name=PUBLICATION, label=gettext_lazy("Release a dataset's public segments (or withdraw them)"),
    execute=_execute, check=_check, restricting=lambda payload: payload.get("is_public") is not True,
    url=lambda payload: reverse("corpus:dataset", args=[payload["dataset"]]),
    checks=(("consent", gettext_lazy("I read the community's consent record for public release")),
            ("segments", gettext_lazy("I checked that only the development and diagnostic segments become public"))),
    min_open_hours=48, expires_after_days=14)


def register() -> None:
    kinds.register(PUBLICATION_KIND)


def propose_publication(*, actor: User, dataset: Dataset, is_public: bool):
    """Release (k signatures, after the wait) or withdraw (at once) a dataset's public segments."""
    return governance.propose(
        actor=actor, organization=dataset.organization, kind=PUBLICATION, subject=f"dataset:{dataset.identifier}",
        summary=(_("Release %(dataset)s publicly") if is_public else _("Withdraw %(dataset)s from public view")) % {
            "dataset": dataset.identifier},
        payload={"dataset": dataset.identifier, "is_public": bool(is_public)})
