"""A gold-standard run card with outputs in every difficulty tier, a speaker pool, and helpers to open
campaigns and rate them: what the review tests share."""

import uuid
from datetime import date

from corpus.models import ConsentUse, Entry
from corpus.services import grant_consent, import_corpus
from leaderboard.services import submit_run_card
from review import services
from review.models import Assignment

from .cards import body, make_card
from .conftest import SECRET_MARK, corpus_bytes, entry, member

MODEL_SLUG = "blindtest-model"
OUTPUT_MARK = "OUTPUTTEXT"


def gold_entries(count: int = 60) -> list[dict]:
    """Entries in all five tiers (more in the easy ones) and a few with no difficulty at all."""
    entries = []
    for number in range(1, count + 1):
        fields = {"domain": "medical" if number % 3 else "legal"}
        if number % 10:
            fields["difficulty"] = min(5, 1 + (number % 10) // 2)
        entries.append(entry(number, "gold_standard", **fields))
    return entries


def consent_to_everything(dataset, actor):
    return grant_consent(
        dataset=dataset,
        uses=list(ConsentUse.values),
        granted_by_name="Chief and Council",
        granted_on=date(2026, 5, 1),
        actor=actor,
        document_reference="Council resolution 2026-14",
    )


def sandbox_operator(organization):
    """The governance staff member who uploads the run cards the community's sandbox produced. A card's submitter
    has a conflict of interest with it (never in its pool, never deciding on it), so the tests' deciding
    governance staff (`governance_user`) is someone else."""
    return member(f"sandbox@{organization.slug}.example", organization, "governance")


def gold_card(organization, governance_user, count: int = 60, composite: float = 0.8):
    version = import_corpus(data=corpus_bytes(gold_entries(count)), organization=organization, actor=None).version
    consent_to_everything(version.dataset, governance_user)
    entries = list(Entry.objects.filter(version=version).order_by("position"))
    card = make_card(version, entries, composite=composite, model_slug=MODEL_SLUG,
                     predict=lambda e: f"{OUTPUT_MARK} {SECRET_MARK} {e.entry_id}")
    return submit_run_card(body=body(card), actor=sandbox_operator(organization))


def speakers(organization, count: int = 4) -> list:
    return [member(f"speaker{n}@steward.example", organization, "speaker") for n in range(1, count + 1)]


def settings_for(pool, **overrides) -> services.CampaignSettings:
    values = {"title": "Spring review", "sample_size": 20, "speakers": pool, "ratings_per_item": 3, "seed": 42}
    values.update(overrides)
    return services.CampaignSettings(**values)


def open_campaign(card, governance_user, pool, **overrides):
    """A campaign on `card` opened by `governance_user` with `settings_for(pool, **overrides)`."""
    return services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, **overrides))


def submit(assignment: Assignment, value: str = "acceptable", client_id=None, **fields):
    submission = services.Submission(client_id=client_id or uuid.uuid4(), value=value, **fields)
    return services.record_rating(item=assignment.public_id, actor=assignment.speaker, submission=submission)


def rate_everything(campaign, value_for=lambda assignment: "acceptable"):
    for assignment in Assignment.objects.filter(campaign=campaign, state="open").select_related("speaker", "item"):
        submit(assignment, value_for(assignment))
