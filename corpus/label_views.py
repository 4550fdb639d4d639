"""The labels page of a dataset (docs/labels.md): its governance staff attach Local Contexts labels and notices,
add the community's translations, say which labels are restrictive, import a Hub project's labels, and propose the
release decision of the restrictive ones. Thin: every rule is in corpus.label_services and label_selectors."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.errors import ApplicationError
from governance.models import DecisionState
from organizations.mfa import secret_holder_required
from organizations.models import Role

from . import decisions, label_selectors, label_services, local_contexts
from .forms import CulturalLabelForm, HubProjectForm, LabelTranslationForm
from .local_contexts import LabelError
from .models import CulturalLabel, Dataset, DatasetVersion
from .views import governed_dataset


def _scopes(dataset: Dataset) -> list[tuple[str, str]]:
    return [("", _("The whole dataset (every version)"))] + [
        (str(version.pk), _("Version %(version)s only") % {"version": version.version})
        for version in dataset.versions.order_by("-imported_at")]


def _version(dataset: Dataset, value: str) -> DatasetVersion | None:
    if not value:
        return None
    version = dataset.versions.filter(pk=value).first() if value.isdigit() else None
    if version is None:
        raise LabelError(_("“%(value)s” is not a version of %(dataset)s.") % {
            "value": value, "dataset": dataset.identifier}, "scope")
    return version


def _label(dataset: Dataset, public_id: str) -> CulturalLabel:
    try:
        label = CulturalLabel.objects.select_related("dataset").filter(dataset=dataset, public_id=public_id).first()
    except ValidationError:  # not a UUID
        label = None
    if label is None:
        raise Http404("No such label.")
    return label


def _restrictive(value: str) -> bool | None:
    return None if value == "default" else value == "1"


LABEL_TYPE_CHOICES = [
    (group, [(kind.code, kind.name) for kind in local_contexts.LABEL_TYPES.values() if kind.category == key])
    for key, group in (("tk", gettext_lazy("Traditional Knowledge (TK) labels")),
                       ("bc", gettext_lazy("Biocultural (BC) labels")), ("notice", gettext_lazy("Notices")))]


@login_required
@secret_holder_required(Role.GOVERNANCE)
def labels(request, identifier: str):
    """The dataset's labels, the forms that change them, and the release decision's state."""
    dataset = governed_dataset(request, identifier)
    scopes = _scopes(dataset)
    action = request.POST.get("action") if request.method == "POST" else None
    form = CulturalLabelForm(request.POST if action == "attach" else None, label_types=LABEL_TYPE_CHOICES,
                             scopes=scopes)
    hub_form = HubProjectForm(request.POST if action == "import_hub" else None,
                              request.FILES if action == "import_hub" else None, scopes=scopes,
                              prefix="hub")
    refusal, status = None, 200
    if action:
        try:
            outcome = _act(request, dataset, action, form, hub_form)
        except ApplicationError as error:
            refusal, status = error.message, error.http_status
        else:
            if outcome is not None:
                return outcome
            refusal, status = _("Check the fields marked below."), 400
    shown = label_selectors.shown_labels(label_selectors.labels_of(dataset))
    return render(request, "corpus/labels.html", {
        "dataset": dataset,
        "latest_version": dataset.versions.order_by("-imported_at").first(),
        "labels": shown,
        "projects": dataset.hub_projects.order_by("unique_id"),
        "release_block": label_selectors.release_block(dataset),
        "release": label_selectors.latest_release(dataset),
        "open_decision": label_selectors.open_release_decision(dataset),
        "form": form,
        "hub_form": hub_form,
        "hub_configured": local_contexts.hub_configured(),
        "refusal": refusal,
    }, status=status)


def _act(request, dataset: Dataset, action: str, form: CulturalLabelForm, hub_form: HubProjectForm):
    """Run one action of the page; a redirect when it succeeded, None when a form is invalid."""
    back = redirect("corpus:labels", identifier=dataset.identifier)
    post = request.POST
    if action == "attach":
        if not form.is_valid():
            return None
        data = form.cleaned_data
        label = label_services.attach_label(
            actor=request.user, dataset=dataset, version=_version(dataset, data["scope"]),
            label_type_code=data["label_type"], name=data["name"], text=data["text"], language=data["language"],
            community=data["community"], restrictive=_restrictive(data["restrictive"]))
        messages.success(request, _("%(name)s is attached.") % {"name": label.name})
        return back
    if action == "translate":
        translation = LabelTranslationForm(post)
        if not translation.is_valid():
            raise LabelError(
                _("Give the translation's language and the text the community wrote."), "translation")
        label_services.translate_label(actor=request.user, label=_label(dataset, post.get("label", "")),
                                       translation=label_services.TranslationInput(**translation.cleaned_data))
        messages.success(request, _("The translation is saved."))
        return back
    if action == "restrictive":
        label = label_services.set_label_restrictive(actor=request.user, label=_label(dataset, post.get("label", "")),
                                                     restrictive=post.get("restrictive") == "1")
        messages.success(request, (_("%(name)s is restrictive.") if label.restrictive
                                   else _("%(name)s is no longer restrictive.")) % {"name": label.name})
        return back
    if action == "remove":
        label = _label(dataset, post.get("label", ""))
        label_services.remove_label(actor=request.user, label=label)
        messages.success(request, _("%(name)s is removed.") % {"name": label.name})
        return back
    if action == "import_hub":
        if not hub_form.is_valid():
            return None
        upload = hub_form.cleaned_data["project_file"]
        if upload.size > local_contexts.HUB_FILE_MAX_BYTES:
            raise LabelError(_("The Hub project file has %(size)s bytes; at most %(limit)s are read.") % {
                "size": upload.size, "limit": local_contexts.HUB_FILE_MAX_BYTES}, "project_file")
        project = label_services.import_hub_project(actor=request.user, dataset=dataset, data=upload.read(),
                                                    version=_version(dataset, hub_form.cleaned_data["scope"]))
        messages.success(request, _("The labels of the Hub project %(project)s are imported.") % {
            "project": project.title or project.unique_id})
        return back
    if action == "propose_release":
        decision = decisions.propose_label_release(actor=request.user, dataset=dataset)
        if decision.state != DecisionState.EXECUTED:
            messages.success(request, _("Proposed: the release waits for %(k)s signatures of other governance staff "
                                        "and its least open time.") % {"k": decision.threshold})
            return redirect("governance:decision", public_id=decision.public_id)
        messages.success(request, _("Released: public export and release are open under these labels."))
        return back
    if action == "sync":
        from .tasks import sync_hub_project

        for project in dataset.hub_projects.all():
            sync_hub_project.delay(project.pk)
        messages.success(request, _("The labels are being synced from the Local Contexts Hub."))
        return back
    raise PermissionDenied(_("Unknown action."))
