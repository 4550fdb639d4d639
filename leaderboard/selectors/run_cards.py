"""One run card as its page and the API show it: whether the visitor may see it (or why it is withdrawn), its
per-entry results with the secret entries shown recorded, and the other cards of its setup."""

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from corpus.models import ConsentUse
from corpus.selectors import Withdrawal, mt_output_visibility, shown_entries, withdrawal

from ..models import RunCard, RunCardResult
from .listing import evaluation_consented, listed_cards, setup_key


def visible_card(user, public_id) -> RunCard | None:
    """A listed card, or one of the user's own cards still verifying or failed, while its dataset's
    community consents to evaluation."""
    return listed_cards(user).select_related("method", "dataset_version__dataset__organization").filter(
        public_id=public_id).first() or RunCard.objects.filter(evaluation_consented(user)).filter(
        public_id=public_id, submitted_by=user.pk if user.is_authenticated else None).first()


def withdrawn_card(public_id) -> Withdrawal | None:
    """A card hidden only because its community revoked consent (to evaluation or to public release): the
    `corpus.selectors.withdrawal` of its dataset, for a clear "withdrawn" answer (410) instead of a bare 404.
    Cards of datasets that were never public stay a plain 404."""
    card = RunCard.objects.filter(public_id=public_id).exclude(method__dependency_class="X").select_related(
        "dataset_version__dataset__organization").first()
    return withdrawal(card.dataset_version.dataset if card is not None else None,
                      uses=(ConsentUse.EVALUATION, ConsentUse.PUBLIC_RELEASE))


def shown_results(user, results: Iterable[RunCardResult], *, where: str) -> list[RunCardResult]:
    """Results as a response shows them, with the audit event of the secret entries among them recorded in the
    same call (`corpus.selectors.shown_entries`)."""
    shown = list(results)
    shown_entries(user, (result.entry for result in shown), where=where)
    return shown


def visible_results(user, card: RunCard) -> QuerySet[RunCardResult]:
    return card.results.filter(mt_output_visibility(user)).select_related("entry__version__dataset").order_by(
        "position")


def same_setup_cards(user, card: RunCard) -> QuerySet[RunCard]:
    # A card whose method was deleted (SET_NULL) matches the other method-less cards, as `method_id=None` did
    same_method = Q(method__isnull=True) if card.method_id is None else Q(method_id=card.method_id)
    return listed_cards(user).filter(same_method).alias(setup=setup_key()).filter(
        setup=card.setup_fingerprint or card.fingerprint).exclude(pk=card.pk).defer("raw", "chrf_statistics").order_by(
        "-submitted_at")
