"""The one read of stored machine output (leaderboard runs' predictions): the one closest to a submitted
translation, read on the server after it is submitted. Translating pages never read machine output."""

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from common.compiled import CompiledQuery
from corpus.models import source_digest, source_digest_of
from leaderboard.models import RunCardResult

from ..models import Source
from ..texts import MACHINE_LIKE_CHRF, chrf


@dataclass(frozen=True)
class MachineMatch:
    system: str
    score: float


MAX_MACHINE_OUTPUTS = 500
"""The stored outputs a submission is compared with at most (a source scored by that many runs is rare)."""

# Run-card results by their entry's source text, found through the index of the texts' digests (corpus
# `entry_source_digest`); the text itself comes along, so that a digest shared by another text never counts.
_MACHINE_OUTPUTS = CompiledQuery(
    lambda digest: RunCardResult.objects.alias(source_digest=source_digest_of("entry"))
    .filter(source_digest=digest).exclude(predicted="").order_by()
    .values_list("predicted", "run_card__model_slug", "entry__source")[:MAX_MACHINE_OUTPUTS],
    digest=uuid.UUID)


def machine_output_reads(source: Source) -> list[tuple[CompiledQuery, dict[str, Any]]]:
    """The reads of the stored machine outputs for the source's text, as runs of `common.compiled.rows_together`
    (their rows are `closest_machine_output`'s `outputs`)."""
    return [(_MACHINE_OUTPUTS, {"digest": digest})
            for digest in sorted({source_digest(text) for text in (source.text, source.text.strip())})]


def closest_machine_output(source: Source, text: str,
                           outputs: Iterable[list[tuple]] | None = None) -> MachineMatch | None:
    """The stored machine output (a leaderboard run's prediction for an entry with this very source text) closest to
    `text` by chrF++, when at least MACHINE_LIKE_CHRF, from the `outputs` read already (else read now). Read on the
    server after a translation is submitted, never to build a page."""
    texts = {source.text, source.text.strip()}
    best: MachineMatch | None = None
    scores: dict[str, float] = {}
    if outputs is None:
        outputs = [query.rows(**values) for query, values in machine_output_reads(source)]
    for rows in outputs:
        for predicted, system, entry_source in rows:
            if entry_source not in texts:
                continue
            if predicted not in scores:  # outputs many runs share are scored once
                scores[predicted] = chrf(text, predicted)
            score = scores[predicted]
            if score >= MACHINE_LIKE_CHRF and (best is None or score > best.score):
                best = MachineMatch(system, round(score, 1))
    return best
