"""What the curator sees of a batch's sources: their coverage against benchmark readiness, the sources speakers
sent back, and the progress of their translations."""

from collections import Counter, defaultdict
from dataclasses import dataclass

from django.db.models import Count, QuerySet

from corpus.models import Domain, Register
from corpus.selectors import READINESS_MINIMUMS

from ..models import Batch, Source, Translation


@dataclass(frozen=True)
class MatrixRow:
    difficulty: int
    by_register: list[int]
    total: int


def coverage_matrix(batch: Batch) -> dict:
    """Counts of the batch's sources per difficulty tier × register, and per domain, beside what benchmark readiness
    asks (§11.1): three of five tiers, two registers, each segment's minimum."""
    rows = (batch.sources.exclude(status=Source.Status.RETIRED).values("difficulty", "register", "domain", "segment")
            .annotate(n=Count("pk")))
    cells: Counter = Counter()
    domains: Counter = Counter()
    segments: Counter = Counter()
    domain_tiers: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        cells[(row["difficulty"], row["register"])] += row["n"]
        domains[row["domain"]] += row["n"]
        segments[row["segment"]] += row["n"]
        domain_tiers[row["domain"]][row["difficulty"]] += row["n"]
    registers = list(Register.values)
    matrix = [MatrixRow(tier, [cells[(tier, register)] for register in registers],
                        sum(cells[(tier, register)] for register in registers)) for tier in range(1, 6)]
    tiers = sum(1 for row in matrix if row.total)
    used_registers = sum(1 for index in range(len(registers)) if any(row.by_register[index] for row in matrix))
    return {
        "registers": registers, "rows": matrix,
        "domains": [(domain, domains[domain], [domain_tiers[domain][tier] for tier in range(1, 6)])
                    for domain in Domain.values if domains[domain]],
        "segments": [(segment, segments[segment], minimum, max(0, minimum - segments[segment]))
                     for segment, minimum in READINESS_MINIMUMS.items()],
        "tiers": tiers, "tiers_ok": tiers >= 3, "register_count": used_registers, "registers_ok": used_registers >= 2,
        "total": sum(domains.values()),
    }


def held_sources(batch: Batch) -> QuerySet[Source]:
    """Sources speakers sent back (two found them erroneous or inappropriate), with their skips."""
    return batch.sources.filter(status=Source.Status.HELD).prefetch_related("skips").order_by("position")


def batch_progress(batch: Batch) -> dict:
    """Per tier and per domain: sources, translated, accepted, rejected (three queries)."""
    per: dict[tuple[str, object], Counter] = defaultdict(Counter)
    for difficulty, domain, n in batch.sources.exclude(status=Source.Status.RETIRED).values_list(
            "difficulty", "domain").annotate(n=Count("pk")):
        per[("tier", difficulty)]["sources"] += n
        per[("domain", domain)]["sources"] += n
    for difficulty, domain, status, n in (Translation.objects.filter(source__batch=batch)
                                          .values_list("source__difficulty", "source__domain", "status")
                                          .annotate(n=Count("pk"))):
        for key in (("tier", difficulty), ("domain", domain)):
            if status != Translation.Status.WITHDRAWN:
                per[key]["translated"] += n
            if status in (Translation.Status.ACCEPTED, Translation.Status.REJECTED):
                per[key][status] += n
    keys = ("sources", "translated", "accepted", "rejected")
    return {
        "tiers": [(tier, [per[("tier", tier)][key] for key in keys]) for tier in range(1, 6)
                  if per[("tier", tier)]["sources"]],
        "domains": [(domain, [per[("domain", domain)][key] for key in keys]) for domain in Domain.values
                    if per[("domain", domain)]["sources"]],
        "totals": [sum(per[("tier", tier)][key] for tier in range(1, 6)) for key in keys],
    }
