"""The dataset card of a version holding elicited entries: a Markdown document written from the version's envelope
and the real figures of the batches its entries came from (never a text of a secret entry)."""

from django.db.models import Count, Q

from corpus.models import DatasetVersion
from ledger.selectors import credited_names

from .models import Batch, ElicitedEntry, Skip, Translation, TranslationVersion, Verification


def dataset_card(version: DatasetVersion) -> str:
    dataset = version.dataset
    links = ElicitedEntry.objects.filter(version=version)
    batch_ids = links.values("translation__source__batch_id")
    batches = list(Batch.objects.filter(pk__in=batch_ids).order_by("created_at"))
    translator_ids = sorted(set(links.values_list("translation__translator_id", flat=True)))
    verifier_ids = sorted(set(Verification.objects.filter(
        translation__entries__version=version, stale_at__isnull=True,
        outcome=Verification.Outcome.ACCEPT).values_list("verifier_id", flat=True)))
    names = credited_names(dataset.organization_id, translator_ids + verifier_ids)
    credited = sorted({name for name in names.values() if name})
    anonymous = sum(1 for name in names.values() if not name)
    segments = dict(version.entries.values_list("segment").annotate(n=Count("pk")))
    lines = [
        f"# {dataset.identifier} {version.version}", "",
        f"- Language pair: {version.language_pair} (source `{version.source_language}`, target "
        f"`{version.target_language}`)",
        f"- Licence: {version.license}",
        f"- Steward: {dataset.organization.name}",
        f"- Entries: {version.entry_count} ("
        + ", ".join(f"{segment} {count}" for segment, count in sorted(segments.items())) + ")",
        f"- Elicited entries: {links.count()}", "",
        "## Attribution", "",
        ("Translated and verified by: " + ", ".join(credited) + (f", and {anonymous} people credited anonymously"
                                                                 if anonymous else "") + ".")
        if credited else f"Translated and verified by {anonymous} people of the community, credited anonymously.",
        "",
        "## How the elicited entries were made", "",
        "Every elicited entry is a translation written from scratch by a speaker of the community, never machine "
        "output, and accepted by a different qualified person (gold_standard entries by at least two).", "",
    ]
    for batch in batches:
        translations = Translation.objects.filter(source__batch=batch)
        counts = translations.aggregate(
            total=Count("pk"), accepted=Count("pk", filter=Q(status=Translation.Status.ACCEPTED)),
            rejected=Count("pk", filter=Q(status=Translation.Status.REJECTED)),
            revised=Count("pk", filter=Q(revision_rounds__gt=0)))
        flagged = TranslationVersion.objects.filter(translation__source__batch=batch).exclude(
            suspected_system="").count()
        edits = Verification.objects.filter(translation__source__batch=batch,
                                            outcome=Verification.Outcome.EDIT).count()
        lines += [
            f"### {batch.title}", "",
            f"- Target variety: `{batch.target_language}`" + (f", {batch.variety}" if batch.variety else ""),
            f"- Guideline version: {batch.guideline_version}",
            f"- Sources: {batch.sources.count()}; translations: {counts['total']}; accepted: {counts['accepted']}; "
            f"rejected: {counts['rejected']}; sent back for revision: {counts['revised']}; edited by a verifier: "
            f"{edits}",
            f"- Translations flagged as resembling machine output: {flagged}",
            f"- Sources skipped by speakers: {Skip.objects.filter(source__batch=batch).count()}",
            f"- Translations per source: {batch.translations_per_source}; verifications per translation: "
            f"{batch.verifications_per_translation} (gold_standard: {batch.verifications_needed('gold_standard')})",
            "",
        ]
    return "\n".join(lines) + "\n"
