"""Demo review data for `manage.py load_demo`: a run card whose "outputs" are the demo entries' own human
references (no machine ever translated anything, and no text is invented), and a campaign on it so the
demo speaker can try the rating page. Labelled as demo data everywhere it shows."""

import json
import uuid

from leaderboard.models import RunCard
from leaderboard.services import submit_run_card
from leaderboard.verification import card_hash, legacy_composite, recompute_scores
from speakers.demo import qualify_demo_speaker

from .models import Campaign
from .selectors.pool import pool_requirement
from .services.campaigns import CampaignSettings, open_campaign

DEMO_MODEL = "demo-reference-echo"
DEMO_TITLE = "Demo campaign: the demo entries' own references (demo data)"


def demo_card(version, governance_user) -> RunCard:
    """The demo run card, submitted once through the same service as any card (it is sealed and verified)."""
    existing = RunCard.objects.filter(dataset_version=version, model_slug=DEMO_MODEL).first()
    if existing is not None:
        return existing
    results = [{
        "entry_id": entry.entry_id, "source": entry.source, "expected": entry.reference,
        "raw_predicted": entry.reference, "predicted": entry.reference, "segment": entry.segment,
        "difficulty": entry.difficulty, "domain": entry.domain or None, "exact_match": True,
        "latency_s": 0.0, "cost_usd": 0.0, "error": None,
    } for entry in version.entries.order_by("position")]
    scores = recompute_scores(results)
    scores["composite"] = legacy_composite(scores, fst_available=False)
    card = {
        "run_id": str(uuid.uuid4()), "harness_version": "demo", "timestamp": "2026-05-01T12:00:00Z",
        "model_slug": DEMO_MODEL, "model_id": DEMO_MODEL, "condition": "demo data: references echoed",
        "temperature": 0.0, "system_prompt_sha256": "0" * 64, "system_prompt_used": False, "batch_size": 1,
        "tools_enabled": [],
        "dataset": {"id": version.dataset.identifier, "version": version.version,
                    "language_pair": version.language_pair, "sha256": version.sha256,
                    "entry_count": len(results)},
        "scores": scores, "totals": {"cost_per_entry_usd": 0.0}, "results": results, "run_card_hash": "",
    }
    card["run_card_hash"] = card_hash(card)
    return submit_run_card(body=json.dumps(card, ensure_ascii=False).encode("utf-8"), actor=governance_user)


def demo_campaign(card: RunCard, governance_user, speakers: list) -> Campaign:
    """The demo campaign, its speakers attested in the demo pair's languages first (a pool is drawn only from
    speakers qualified for the card's pair)."""
    requirement = pool_requirement(card, card.dataset_version.dataset.organization)
    for speaker in speakers:
        qualify_demo_speaker(speaker, requirement.organization, (requirement.source, requirement.target))
    existing = Campaign.objects.filter(run_card=card).first()
    if existing is not None:
        return existing
    return open_campaign(
        run_card=card,
        actor=governance_user,
        values=CampaignSettings(
            title=DEMO_TITLE, sample_size=card.result_count, speakers=speakers, ratings_per_item=1, seed=2026,
            below_threshold_reason="Demo data: shows the rating page on the three demo entries.",
        ),
    )
