"""Every read of the speakers' ledger that has a rule: who is qualified to review a language pair for an
organization, whose practice round is due, what a speaker and governance staff see of the languages."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.db.models.functions import Least
from django.utils import timezone
from django.utils.translation import gettext as _

from common.compiled import CompiledQuery
from corpus.language_pairs import language_code
from organizations.models import Membership, Organization, Role
from organizations.selectors import holding_role, members_with_role

from .models import (
    PRACTICE_MINIMUM_ITEMS,
    SOURCE_READING_MINIMUM,
    TARGET_READING_MINIMUM,
    VOUCHER_READING_MINIMUM,
    Attestation,
    LanguageSkill,
    PracticeAnswer,
    PracticeAttempt,
    PracticeItem,
    PracticeRound,
)


def script_of(tag: str) -> str:
    """The script subtag of a BCP 47 tag (`crk-Cans` → `Cans`), "" when it names none."""
    return next((part.title() for part in tag.replace("_", "-").split("-")[1:]
                 if len(part) == 4 and part.isalpha()), "")


@dataclass(frozen=True)
class Requirement:
    """What a reviewer of a language pair for an organization must be attested for: reading the source language at
    SOURCE_READING_MINIMUM and the target language at TARGET_READING_MINIMUM, in the scripts the dataset's tags
    name (when they name one) and, for the target, in the variety asked for (when one is)."""

    organization: Organization
    source: str
    target: str
    source_script: str = ""
    target_script: str = ""
    variety: str = ""

    @classmethod
    def of(cls, organization: Organization, source_tag: str, target_tag: str, variety: str = "") -> "Requirement":
        return cls(organization, language_code(source_tag), language_code(target_tag), script_of(source_tag),
                   script_of(target_tag), " ".join(variety.split()))

    def described(self, language: str, script: str, variety: str = "") -> str:
        return "-".join(part for part in (language, script) if part) + (f" ({variety})" if variety else "")


AttestedLevel = tuple[int, int, str, str, str, int]
"""(user id, organization id, language, script, variety key, effective reading level) of an attestation in force."""


LEVEL_COLUMNS = ("skill__user_id", "organization_id", "skill__language", "skill__script", "skill__variety_key",
                 "effective")


def attestations_in_force() -> QuerySet[Attestation]:
    """Attestations not withdrawn, each at the lower of the speaker's stated and the organization's attested reading
    level (`effective`)."""
    return (Attestation.objects.filter(withdrawn_at__isnull=True).annotate(effective=Least("reading", "skill__reading"))
            .order_by())


def attested_levels(organization_ids: Iterable[int], user_ids: Iterable[int],
                    languages: Iterable[str]) -> list[AttestedLevel]:
    """The attestations in force of `user_ids` in `organization_ids` for `languages`, each at the lower of the
    speaker's stated and the organization's attested reading level: one query."""
    return list(attestations_in_force().filter(organization_id__in=set(organization_ids),
                                               skill__user_id__in=set(user_ids), skill__language__in=set(languages))
                .values_list(*LEVEL_COLUMNS))


# One person's attestations in one organization (every language: `readers` picks), read with the checks of each of
# their translations and verifications in elicitation: compiled once (common.compiled).
_PERSONS_LEVELS = CompiledQuery(
    lambda organization, user: attestations_in_force().filter(organization=organization, skill__user_id=user)
    .values_list(*LEVEL_COLUMNS),
    organization=int, user=int)


def persons_levels(organization_id: int, user_id: int) -> tuple[CompiledQuery, dict[str, Any]]:
    """The read of one person's attested levels in one organization as a run of `common.compiled.rows_together`,
    for a hot path that sends it with its other checks in one round trip; its rows are `qualification_problems`'s
    `levels`."""
    return _PERSONS_LEVELS, {"organization": organization_id, "user": user_id}


def readers(requirement: Requirement, levels: Iterable[AttestedLevel]) -> tuple[set[int], set[int]]:
    """The users who read the requirement's source, and its target, well enough in its organization: the one rule
    every qualification check applies."""
    source_ok: set[int] = set()
    target_ok: set[int] = set()
    variety = requirement.variety.casefold()
    for user_id, organization_id, language, script, variety_key, effective in levels:
        if organization_id != requirement.organization.pk:
            continue
        if (language == requirement.source and effective >= SOURCE_READING_MINIMUM
                and (not requirement.source_script or script == requirement.source_script)):
            source_ok.add(user_id)
        if (language == requirement.target and effective >= TARGET_READING_MINIMUM
                and (not requirement.target_script or script == requirement.target_script)
                and (not variety or variety_key == variety)):
            target_ok.add(user_id)
    return source_ok, target_ok


def qualified_for_each(user_id: int, requirements: Sequence[Requirement]) -> list[bool]:
    """Whether one user meets each of `requirements` (batches or campaigns of several organizations and pairs): one
    query however many."""
    if not requirements:
        return []
    levels = attested_levels({r.organization.pk for r in requirements}, [user_id],
                             {language for r in requirements for language in (r.source, r.target)})
    answers = []
    for requirement in requirements:
        source_ok, target_ok = readers(requirement, levels)
        answers.append(user_id in source_ok and user_id in target_ok)
    return answers


def qualification_problems(requirement: Requirement, user_ids: Iterable[int],
                           levels: Iterable[AttestedLevel] | None = None) -> dict[int, str]:
    """Why each of `user_ids` is not qualified for `requirement` (the users qualified are absent), from the
    attestations in force in the requirement's organization: one query however many users, none when their
    `levels` were read already (`persons_levels`)."""
    ids = set(user_ids)
    if not ids:
        return {}
    if levels is None and len(ids) == 1:
        levels = _PERSONS_LEVELS.rows(organization=requirement.organization.pk, user=next(iter(ids)))
    elif levels is None:
        levels = attested_levels([requirement.organization.pk], ids, [requirement.source, requirement.target])
    source_ok, target_ok = readers(requirement, levels)
    source = requirement.described(requirement.source, requirement.source_script)
    target = requirement.described(requirement.target, requirement.target_script, requirement.variety)
    problems = {}
    for user_id in ids:
        if user_id not in target_ok:
            problems[user_id] = _("no fluent reading of %(language)s attested in %(organization)s") % {
                "language": target, "organization": requirement.organization.name}
        elif user_id not in source_ok:
            problems[user_id] = _("no reading of %(language)s at the working level or above attested in "
                                  "%(organization)s") % {"language": source,
                                                         "organization": requirement.organization.name}
    return problems


# The practice round.

def practice_round(organization: Organization) -> PracticeRound:
    """The organization's practice round as stored, or its defaults (not required) when none is."""
    return (PracticeRound.objects.filter(organization=organization).first()
            or PracticeRound(organization=organization))


def practice_items(organization: Organization) -> QuerySet[PracticeItem]:
    """The items of the round (not retired), in their order."""
    return PracticeItem.objects.filter(organization=organization, retired_at__isnull=True).order_by("position", "pk")


def practice_required(organization: Organization) -> bool:
    return PracticeRound.objects.filter(organization=organization, required=True).exists()


def practice_problems(organization: Organization, user_ids: Iterable[int]) -> dict[int, str]:
    """The users who must still pass the organization's practice round (when it is required), with why."""
    ids = set(user_ids)
    if not ids or not practice_required(organization):
        return {}
    passed = set(PracticeAttempt.objects.filter(organization=organization, user_id__in=ids, passed=True)
                 .values_list("user_id", flat=True))
    return {user_id: _("has not passed the practice round of %(organization)s") % {"organization": organization.name}
            for user_id in ids - passed}


@dataclass(frozen=True)
class PracticeState:
    """Where a speaker stands with an organization's practice round."""

    round: PracticeRound
    items: int  # items in the round now
    open_attempt: PracticeAttempt | None
    last: PracticeAttempt | None  # the latest finished attempt
    passed_at: datetime | None  # the first pass
    retry_at: datetime | None  # after a failed attempt, when the next may start (None: now, or no need)

    @property
    def available(self) -> bool:
        return self.items >= PRACTICE_MINIMUM_ITEMS


def practice_state(user, organization: Organization) -> PracticeState:
    practice = practice_round(organization)
    attempts = PracticeAttempt.objects.filter(organization=organization, user=user)
    open_attempt = attempts.filter(finished_at__isnull=True).first()
    last = attempts.filter(finished_at__isnull=False).order_by("-finished_at", "-pk").first()
    passed = attempts.filter(passed=True).order_by("finished_at").values_list("finished_at", flat=True).first()
    retry_at = None
    if last is not None and last.finished_at is not None and not last.passed and passed is None:
        retry_at = last.finished_at + timedelta(hours=practice.retry_wait_hours)
        if retry_at <= timezone.now():
            retry_at = None
    return PracticeState(practice, practice_items(organization).count(), open_attempt, last, passed, retry_at)


def practice_due(user) -> list[Organization]:
    """The organizations where `user` is a speaker whose practice round is required and not passed yet: what their
    review queue points them to."""
    if not user.is_authenticated:
        return []
    passed = PracticeAttempt.objects.filter(user=user, passed=True).values("organization_id")
    return list(Organization.objects.filter(holding_role(user, Role.SPEAKER), practice_round__required=True)
                .exclude(pk__in=passed).distinct().order_by("name"))


def own_attempt(user, organization: Organization, pk: int) -> PracticeAttempt | None:
    return PracticeAttempt.objects.filter(pk=pk, user=user, organization=organization).first()


@dataclass(frozen=True)
class AttemptStep:
    """One item of an attempt as its page shows it: the item, its position, and the answer once given."""

    item: PracticeItem
    position: int
    answer: PracticeAnswer | None


def attempt_step(attempt: PracticeAttempt, position: int) -> AttemptStep | None:
    if not 1 <= position <= attempt.total:
        return None
    item = PracticeItem.objects.get(pk=attempt.items[position - 1])
    answer = PracticeAnswer.objects.filter(attempt=attempt, item=item).first()
    return AttemptStep(item, position, answer)


def answered_count(attempt: PracticeAttempt) -> int:
    return PracticeAnswer.objects.filter(attempt=attempt).count()


def attempt_answers(attempt: PracticeAttempt) -> list[PracticeAnswer]:
    """The attempt's answers in the order of its items, each with its item."""
    answers = {answer.item_id: answer for answer in attempt.answers.select_related("item")}
    return [answers[pk] for pk in attempt.items if pk in answers]


# What speakers and governance staff see of the languages.

def skills_of(user) -> QuerySet[LanguageSkill]:
    """The speaker's own skills with every attestation (in force or withdrawn) and its organization."""
    return LanguageSkill.objects.filter(user=user).prefetch_related(
        Prefetch("attestations", queryset=Attestation.objects.select_related("organization")
                 .order_by("-attested_at", "-pk")))


def speaker_organizations(user) -> list[Organization]:
    """The organizations where `user` holds the speaker role, each with `practice_item_count`, the items of its
    practice round (it can be taken from PRACTICE_MINIMUM_ITEMS)."""
    if not user.is_authenticated:
        return []
    return list(Organization.objects.filter(holding_role(user, Role.SPEAKER))
                .annotate(practice_item_count=Count("practice_items", distinct=True,
                                                    filter=Q(practice_items__retired_at__isnull=True)))
                .order_by("name"))


def organization_speakers(organization: Organization) -> QuerySet[Membership]:
    """The organization's speakers (their speaker memberships, by e-mail address), each user with their skills and
    the attestations in force of this organization: what its governance staff attest."""
    in_force = Attestation.objects.filter(organization=organization, withdrawn_at__isnull=True).select_related(
        "attested_by")
    skills = LanguageSkill.objects.prefetch_related(Prefetch("attestations", queryset=in_force, to_attr="here"))
    return (members_with_role(organization, Role.SPEAKER).select_related("user")
            .prefetch_related(Prefetch("user__language_skills", queryset=skills)).order_by("user__email"))


def vouching_languages(user, organization: Organization) -> list[str]:
    """The languages `user` is attested in the organization to read fluently enough to vouch for others."""
    return sorted(set(Attestation.objects.filter(organization=organization, withdrawn_at__isnull=True,
                                                 skill__user=user)
                      .annotate(effective=Least("reading", "skill__reading"))
                      .filter(effective__gte=VOUCHER_READING_MINIMUM).values_list("skill__language", flat=True)))


def vouching_by_organization(user) -> dict[int, list[str]]:
    """`vouching_languages` of every organization at once (organization id → languages), in one query."""
    found: dict[int, set[str]] = {}
    for organization_id, language in (Attestation.objects.filter(withdrawn_at__isnull=True, skill__user=user)
                                      .annotate(effective=Least("reading", "skill__reading"))
                                      .filter(effective__gte=VOUCHER_READING_MINIMUM)
                                      .values_list("organization_id", "skill__language")):
        found.setdefault(organization_id, set()).add(language)
    return {organization_id: sorted(languages) for organization_id, languages in found.items()}


def vouchable_skills(voucher, organization: Organization, email: str) -> list[LanguageSkill]:
    """The skills of the organization's speaker with this e-mail address that `voucher` may vouch for (in the
    languages they read fluently, attested), each with its attestation in force here (`here`). Empty for an address
    that names no other speaker of the organization: the page says the same either way."""
    languages = vouching_languages(voucher, organization)
    address = email.strip()
    if not languages or not address or address.lower() == voucher.email.lower():
        return []
    speaker = members_with_role(organization, Role.SPEAKER).filter(user__email__iexact=address).values_list(
        "user_id", flat=True).first()
    if speaker is None:
        return []
    in_force = Attestation.objects.filter(organization=organization, withdrawn_at__isnull=True)
    return list(LanguageSkill.objects.filter(user_id=speaker, language__in=languages).select_related("user")
                .prefetch_related(Prefetch("attestations", queryset=in_force, to_attr="here")))


def attestation_of(pk: int) -> Attestation | None:
    return Attestation.objects.select_related("organization", "skill__user").filter(pk=pk).first()
