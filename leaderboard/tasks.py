import logging

from celery import shared_task

from . import services

logger = logging.getLogger(__name__)


@shared_task(acks_late=True)
def verify_run_card_task(run_card_pk: int) -> None:
    """Verify a large card after its request returned 202; a failure is recorded on the card."""
    try:
        services.verify_run_card(run_card_pk)
    except Exception as error:
        logger.exception("verification of run card %s failed", run_card_pk)
        services.mark_verification_failed(run_card_pk, f"{type(error).__name__}: {error}")
        raise


@shared_task(acks_late=True)
def verify_secondary_scores_task(run_card_pk: int) -> None:
    """Corpus BLEU and TER of a verified card that reports them (TER takes seconds on a large card)."""
    services.verify_secondary_scores(run_card_pk)
