"""Every write of the speakers' ledger: a speaker's own languages, the attestations of governance staff and of
vouching speakers (and their withdrawal), and each organization's practice round with the speakers' attempts.

A speaker who may have stopped being qualified in an organization (an attestation withdrawn, a skill lowered or
removed) is announced with `qualification_lost`, inside the transaction, so that review takes them out of the open
pools that no longer qualify them, without this app importing review."""

import re
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.db.models.functions import Least
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from common import errors
from common.errors import ApplicationError, ErrorKind
from corpus.language_pairs import language_code
from corpus.validation import unstorable_string
from organizations.audit import record_event
from organizations.models import AuditAction, Membership, Organization, Role
from organizations.permissions import permitted, require

from .models import (
    LANGUAGE_CODE_PATTERN,
    PASS_MARK_RANGE,
    PRACTICE_MINIMUM_ITEMS,
    PRACTICE_RATINGS,
    RETRY_WAIT_RANGE,
    VARIETY_MAX_LENGTH,
    VOUCHER_READING_MINIMUM,
    Attestation,
    LanguageSkill,
    PracticeAnswer,
    PracticeAttempt,
    PracticeItem,
    PracticeRound,
    Proficiency,
)

# Sent inside the transaction (user, organization, actor, reason): the speaker may no longer be qualified there.
qualification_lost = Signal()

SKILLS_PER_SPEAKER = 50
LANGUAGE_TAG_MAX_LENGTH = 35
TAG_PATTERN = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
SCRIPT_SUBTAG = re.compile(r"^[A-Za-z]{4}$")
PRACTICE_TEXT_LIMIT = 2000
EXPLANATION_LIMIT = 4000
REASON_LIMIT = 500


class SpeakerError(ApplicationError):
    """A refused action of the speakers' ledger; `field` names the form field at fault."""


class NotAllowed(SpeakerError, errors.NotAllowed):
    """The actor lacks the permission the action needs (pages answer 404)."""


# Language skills: what a speaker states.

def checked_language(text: str) -> tuple[str, str]:
    """(ISO 639 code, script subtag or "") of a language as typed: a code ("en", "EN", "eng") or a BCP 47 tag
    ("crk-Cans" also names the script)."""
    tag = text.strip() if isinstance(text, str) else ""
    if not tag:
        raise SpeakerError(_("Give the language as an ISO 639 code, such as en, eng or crk."), "language")
    if (problem := unstorable_string(tag)) is not None:
        raise SpeakerError(_("The language %(problem)s.") % {"problem": problem}, "language")
    if len(tag) > LANGUAGE_TAG_MAX_LENGTH or not TAG_PATTERN.match(tag):
        raise SpeakerError(_("“%(text)s” is not a language code: give an ISO 639 code such as en, eng or crk (a BCP 47 "
                             "tag such as crk-Cans works too).") % {"text": tag[:40]}, "language")
    code = language_code(tag)
    if not re.match(LANGUAGE_CODE_PATTERN, code):
        raise SpeakerError(_("“%(text)s” is not a language code.") % {"text": tag[:40]}, "language")
    subtags = re.split(r"[-_]", tag)[1:]
    script = next((subtag.title() for subtag in subtags if SCRIPT_SUBTAG.match(subtag)), "")
    return code, script


def checked_script(text: str, from_tag: str) -> str:
    """An ISO 15924 code as stored (Latn, Cans), or the one the language tag named; "" for none."""
    script = text.strip() if isinstance(text, str) else ""
    if not script:
        return from_tag
    if not SCRIPT_SUBTAG.match(script):
        raise SpeakerError(_("“%(text)s” is not an ISO 15924 script code: four letters, such as Latn or Cans.")
                           % {"text": script[:40]}, "script")
    script = script.title()
    if from_tag and script != from_tag:
        raise SpeakerError(_("The language names the script %(tag)s and the script field %(script)s: give one.")
                           % {"tag": from_tag, "script": script}, "script")
    return script


def checked_variety(text: str) -> tuple[str, str]:
    """(the variety as written, whitespace folded; its casefolded key, how varieties are compared)."""
    variety = " ".join(text.split()) if isinstance(text, str) else ""
    if (problem := unstorable_string(variety)) is not None:
        raise SpeakerError(_("The variety %(problem)s.") % {"problem": problem}, "variety")
    if len(variety) > VARIETY_MAX_LENGTH:
        raise SpeakerError(_("The variety is limited to %(limit)d characters.") % {"limit": VARIETY_MAX_LENGTH},
                           "variety")
    return variety, variety.casefold()


def checked_level(value, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in Proficiency.values:
        raise SpeakerError(_("Choose a level of the scale, from 0 (not at all) to 4 (expert)."), field)
    return value


def checked_levels(reading, writing) -> tuple[int, int]:
    reading, writing = checked_level(reading, "reading"), checked_level(writing, "writing")
    if not reading and not writing:
        raise SpeakerError(_("A language you neither read nor write is not recorded: choose a level for reading or "
                             "for writing."), "reading")
    return reading, writing


@transaction.atomic
def add_skill(*, actor: User, language: str, reading: int, writing: int, variety: str = "",
              script: str = "") -> LanguageSkill:
    """The speaker states a language they read or write (in a variety and a script, when they name them)."""
    code, tag_script = checked_language(language)
    script = checked_script(script, tag_script)
    variety, variety_key = checked_variety(variety)
    reading, writing = checked_levels(reading, writing)
    # The user's row, locked: two additions at once neither pass the limit nor collide on the unique constraint.
    User.objects.select_for_update().filter(pk=actor.pk).first()
    if LanguageSkill.objects.filter(user=actor, language=code, variety_key=variety_key, script=script).exists():
        raise SpeakerError(_("You already recorded %(skill)s: change its levels in the list instead.")
                           % {"skill": describe(code, variety, script)}, "language", kind=ErrorKind.CONFLICT)
    if LanguageSkill.objects.filter(user=actor).count() >= SKILLS_PER_SPEAKER:
        raise SpeakerError(_("You can record at most %(limit)d languages, varieties and scripts.")
                           % {"limit": SKILLS_PER_SPEAKER}, "language")
    return LanguageSkill.objects.create(user=actor, language=code, variety=variety, variety_key=variety_key,
                                        script=script, reading=reading, writing=writing)


def describe(language: str, variety: str = "", script: str = "") -> str:
    """A skill as pages and messages name it: `crk-Cans (Plains Cree)`."""
    return "-".join(part for part in (language, script) if part) + (f" ({variety})" if variety else "")


def own_skill(actor: User, skill: LanguageSkill) -> LanguageSkill:
    """The actor's skill, locked; anyone else's answers as if it did not exist."""
    found = LanguageSkill.objects.select_for_update().filter(pk=skill.pk, user=actor).first()
    if found is None:
        raise NotAllowed(_("No such language among yours."), "skill")
    return found


@transaction.atomic
def change_skill(*, actor: User, skill: LanguageSkill, reading: int, writing: int) -> LanguageSkill:
    """New levels for a stated skill. Attestations keep the levels they confirmed: a raised level counts once
    attested again, a lowered one counts at once (and may end the speaker's qualification in an organization)."""
    skill = own_skill(actor, skill)
    reading, writing = checked_levels(reading, writing)
    lowered = reading < skill.reading
    skill.reading, skill.writing, skill.updated_at = reading, writing, timezone.now()
    skill.save(update_fields=["reading", "writing", "updated_at"])
    if lowered:
        for attestation in in_force(skill).select_related("organization"):
            qualification_lost.send(sender=LanguageSkill, user=actor, organization=attestation.organization,
                                    actor=actor, reason="lowered their reading of a language")
    return skill


def in_force(skill: LanguageSkill):
    return Attestation.objects.filter(skill=skill, withdrawn_at__isnull=True)


@transaction.atomic
def remove_skill(*, actor: User, skill: LanguageSkill) -> None:
    """The speaker removes a skill: its attestations are withdrawn (audited) and go with it."""
    skill = own_skill(actor, skill)
    for attestation in in_force(skill).select_related("organization", "skill__user").select_for_update(
            of=("self",)):
        end_attestation(attestation, actor, "the speaker removed the language")
    skill.delete()


@transaction.atomic
def forget_skills(*, actor: User) -> int:
    """Every skill of the speaker removed (their account is being deleted); returns how many."""
    skills = list(LanguageSkill.objects.filter(user=actor).order_by("pk"))
    for skill in skills:
        remove_skill(actor=actor, skill=skill)
    return len(skills)


# Attestations.

def speaks_for(user, organization: Organization) -> bool:
    """Whether `user` holds the speaker role in the organization (the attested person, not the actor)."""
    return Membership.objects.filter(user=user, organization=organization, role=Role.SPEAKER).exists()


def attested_reading(user, organization: Organization, language: str) -> int:
    """The best reading of `language` attested for `user` in the organization (each attestation counts at the lower
    of the levels it confirmed and the levels stated now); -1 when none is."""
    best = (Attestation.objects.filter(organization=organization, withdrawn_at__isnull=True, skill__user=user,
                                       skill__language=language)
            .aggregate(best=Max(Least("reading", "skill__reading")))["best"])
    return -1 if best is None else best


@transaction.atomic
def attest_skill(*, actor: User | None, skill: LanguageSkill, organization: Organization) -> Attestation:
    """The organization confirms a speaker's skill at the levels they state now: its governance staff, or a speaker
    of the organization vouching in a language they are themselves attested to read fluently (`actor` None: the
    site operator at the command line, for demo data). Attesting again after the speaker changed their levels
    replaces the attestation in force. Audited."""
    skill = LanguageSkill.objects.select_for_update().select_related("user").get(pk=skill.pk)
    if actor is not None and actor.pk == skill.user_id:
        raise NotAllowed(_("Nobody attests their own languages: ask governance staff or a speaker who knows you."),
                         "skill")
    if actor is None:
        kind = Attestation.Kind.OPERATOR
    elif permitted(actor, "skill.attest", organization):
        kind = Attestation.Kind.GOVERNANCE
    elif (permitted(actor, "skill.vouch", organization)
          and attested_reading(actor, organization, skill.language) >= VOUCHER_READING_MINIMUM):
        kind = Attestation.Kind.VOUCHING
    else:
        raise NotAllowed(_("Only governance staff of %(organization)s, or one of its speakers attested as reading "
                           "%(language)s fluently, may attest this.")
                         % {"organization": organization.name, "language": skill.language}, "skill")
    if not speaks_for(skill.user, organization):
        raise SpeakerError(_("%(email)s is not a speaker of %(organization)s.")
                           % {"email": skill.user.email, "organization": organization.name}, "skill")
    current = in_force(skill).filter(organization=organization).select_for_update().first()
    if current is not None and (current.reading, current.writing) == (skill.reading, skill.writing):
        raise SpeakerError(_("%(skill)s of %(email)s is already attested at these levels.")
                           % {"skill": describe(skill.language, skill.variety, skill.script),
                              "email": skill.user.email}, "skill", kind=ErrorKind.CONFLICT)
    if current is not None:
        current.withdrawn_at, current.withdrawn_by = timezone.now(), actor
        current.withdrawal_reason = "attested again at the levels stated now"
        current.save(update_fields=["withdrawn_at", "withdrawn_by", "withdrawal_reason"])
    attestation = Attestation.objects.create(skill=skill, organization=organization, kind=kind, attested_by=actor,
                                             reading=skill.reading, writing=skill.writing)
    record_event(AuditAction.SKILL_ATTESTED, actor=actor, organization=organization, obj=attestation,
                 details={**skill_details(skill), "kind": kind, "replaces": current.pk if current else None})
    return attestation


def skill_details(skill: LanguageSkill) -> dict:
    return {"speaker": skill.user.email, "language": skill.language, "variety": skill.variety,
            "script": skill.script, "reading": skill.reading, "writing": skill.writing}


@transaction.atomic
def withdraw_attestation(*, actor: User, attestation: Attestation, reason: str = "") -> Attestation:
    """Governance staff of the organization, or whoever attested it, withdraw an attestation (audited). The speaker
    leaves at once the organization's open review pools it qualified them for."""
    found = (Attestation.objects.select_for_update(of=("self",)).select_related("organization", "skill__user")
             .filter(pk=attestation.pk).first())
    if found is None:
        raise NotAllowed(_("No such attestation."), "attestation")
    if found.attested_by_id != actor.pk:
        require(actor, "skill.attest", found.organization, error=NotAllowed)
    reason = " ".join(reason.split()) if isinstance(reason, str) else ""
    if (problem := unstorable_string(reason)) is not None:
        raise SpeakerError(_("The reason %(problem)s.") % {"problem": problem}, "reason")
    if len(reason) > REASON_LIMIT:
        raise SpeakerError(_("The reason is limited to %(limit)d characters.") % {"limit": REASON_LIMIT}, "reason")
    if found.withdrawn_at is not None:
        raise SpeakerError(_("This attestation was already withdrawn."), "attestation", kind=ErrorKind.CONFLICT)
    end_attestation(found, actor, reason)
    return found


def end_attestation(attestation: Attestation, actor: User, reason: str) -> None:
    """Withdraw the locked attestation, audit it and announce that its speaker may no longer be qualified."""
    attestation.withdrawn_at, attestation.withdrawn_by = timezone.now(), actor
    attestation.withdrawal_reason = reason
    attestation.save(update_fields=["withdrawn_at", "withdrawn_by", "withdrawal_reason"])
    record_event(AuditAction.ATTESTATION_WITHDRAWN, actor=actor, organization=attestation.organization,
                 obj=attestation, details={**skill_details(attestation.skill), "kind": attestation.kind,
                                           "reason": reason})
    qualification_lost.send(sender=Attestation, user=attestation.skill.user, organization=attestation.organization,
                            actor=actor, reason="an attestation of their language was withdrawn")


# The practice round.

def active_items(organization: Organization):
    return PracticeItem.objects.filter(organization=organization, retired_at__isnull=True)


@transaction.atomic
def set_practice_round(*, actor: User, organization: Organization, required: bool, pass_mark_percent: int,
                       retry_wait_hours: int) -> PracticeRound:
    """Whether speakers must pass the practice round before joining a review campaign (from then on: pools already
    drawn stay), its pass mark and the wait before a retry. Audited."""
    require(actor, "practice.write", organization, error=NotAllowed)
    if isinstance(pass_mark_percent, bool) or not isinstance(pass_mark_percent, int) or not (
            PASS_MARK_RANGE[0] <= pass_mark_percent <= PASS_MARK_RANGE[1]):
        raise SpeakerError(_("The pass mark is a share of the items, from %(low)d%% to %(high)d%%.")
                           % {"low": PASS_MARK_RANGE[0], "high": PASS_MARK_RANGE[1]}, "pass_mark_percent")
    if isinstance(retry_wait_hours, bool) or not isinstance(retry_wait_hours, int) or not (
            RETRY_WAIT_RANGE[0] <= retry_wait_hours <= RETRY_WAIT_RANGE[1]):
        raise SpeakerError(_("The wait before a retry is from %(low)d to %(high)d hours.")
                           % {"low": RETRY_WAIT_RANGE[0], "high": RETRY_WAIT_RANGE[1]}, "retry_wait_hours")
    Organization.objects.select_for_update().filter(pk=organization.pk).first()
    items = active_items(organization).count()
    if required and items < PRACTICE_MINIMUM_ITEMS:
        raise SpeakerError(ngettext("Write at least %(minimum)d practice items before requiring the round (%(count)d "
                                    "so far).",
                                    "Write at least %(minimum)d practice items before requiring the round (%(count)d "
                                    "so far).", items) % {"minimum": PRACTICE_MINIMUM_ITEMS, "count": items},
                           "required")
    practice, _created = PracticeRound.objects.update_or_create(organization=organization, defaults={
        "required": bool(required), "pass_mark_percent": pass_mark_percent, "retry_wait_hours": retry_wait_hours,
        "updated_at": timezone.now(), "updated_by": actor})
    record_event(AuditAction.PRACTICE_ROUND_CHANGED, actor=actor, organization=organization, obj=practice,
                 details={"required": practice.required, "pass_mark_percent": pass_mark_percent,
                          "retry_wait_hours": retry_wait_hours})
    return practice


def checked_text(value, field: str, missing: str, limit: int) -> str:
    """A practice item's text, trimmed; refused with `missing` when empty, and beside `field` when it cannot be
    stored or is over `limit` characters."""
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        raise SpeakerError(missing, field)
    if (problem := unstorable_string(text)) is not None:
        raise SpeakerError(_("This text %(problem)s.") % {"problem": problem}, field)
    if len(text) > limit:
        raise SpeakerError(_("This text is limited to %(limit)d characters (it has %(length)d).")
                           % {"limit": limit, "length": len(text)}, field)
    return text


def checked_tag(value, field: str) -> str:
    tag = value.strip() if isinstance(value, str) else ""
    if tag and (len(tag) > LANGUAGE_TAG_MAX_LENGTH or not TAG_PATTERN.match(tag)):
        raise SpeakerError(_("“%(text)s” is not a BCP 47 language tag, such as en or crk-Cans.")
                           % {"text": tag[:40]}, field)
    return tag.replace("_", "-")


@transaction.atomic
def save_practice_item(*, actor: User, organization: Organization, source: str, candidate: str,
                       right: Iterable[str], explanation: str, item: PracticeItem | None = None,
                       source_language: str = "", target_language: str = "") -> PracticeItem:
    """Write a practice item, or change one (answers already given keep the verdict they had). Audited."""
    require(actor, "practice.write", organization, error=NotAllowed)
    values: dict[str, Any] = {
        "source": checked_text(source, "source", _("Write the source."), PRACTICE_TEXT_LIMIT),
        "candidate": checked_text(candidate, "candidate", _("Write the candidate translation."),
                                  PRACTICE_TEXT_LIMIT),
        "explanation": checked_text(explanation, "explanation", _("Write the explanation a speaker reads after "
                                                                  "answering."), EXPLANATION_LIMIT),
        "source_language": checked_tag(source_language, "source_language"),
        "target_language": checked_tag(target_language, "target_language"),
    }
    right = {value for value in right} if not isinstance(right, str) else {right}
    unknown = right - set(PRACTICE_RATINGS)
    if unknown:
        raise SpeakerError(_("Unknown rating %(value)s; expected any of: %(ratings)s.")
                           % {"value": repr(str(sorted(unknown)[0])[:30]), "ratings": ", ".join(PRACTICE_RATINGS)},
                           "right")
    if not right:
        raise SpeakerError(_("Tick the rating, or ratings, counted right."), "right")
    values |= {f"{value}_right": value in right for value in PRACTICE_RATINGS}
    if item is None:
        position = (active_items(organization).aggregate(last=Max("position"))["last"] or 0) + 1
        item = PracticeItem.objects.create(organization=organization, created_by=actor, position=position, **values)
        change = "written"
    else:
        item = PracticeItem.objects.select_for_update().filter(pk=item.pk, organization=organization,
                                                               retired_at__isnull=True).first()
        if item is None:
            raise NotAllowed(_("No such practice item."), "item")
        for name, value in values.items():
            setattr(item, name, value)
        item.updated_at = timezone.now()
        item.save()
        change = "changed"
    record_event(AuditAction.PRACTICE_ITEM_CHANGED, actor=actor, organization=organization, obj=item,
                 details={"change": change, "right": item.right_ratings})
    return item


@transaction.atomic
def retire_practice_item(*, actor: User, item: PracticeItem) -> PracticeItem:
    """Take an item out of the practice round (attempts that used it keep it). Audited."""
    require(actor, "practice.write", item.organization, error=NotAllowed)
    organization = item.organization
    Organization.objects.select_for_update().filter(pk=organization.pk).first()
    found = active_items(organization).filter(pk=item.pk).select_for_update().first()
    if found is None:
        raise NotAllowed(_("No such practice item."), "item")
    required = PracticeRound.objects.filter(organization=organization, required=True).exists()
    if required and active_items(organization).count() <= PRACTICE_MINIMUM_ITEMS:
        raise SpeakerError(_("The practice round is required and needs at least %(minimum)d items: write another "
                             "first, or stop requiring it.") % {"minimum": PRACTICE_MINIMUM_ITEMS}, "item")
    found.retired_at = timezone.now()
    found.save(update_fields=["retired_at"])
    record_event(AuditAction.PRACTICE_ITEM_CHANGED, actor=actor, organization=organization, obj=found,
                 details={"change": "retired"})
    return found


@transaction.atomic
def start_practice(*, actor: User, organization: Organization) -> PracticeAttempt:
    """A speaker starts the practice round (or is given back the attempt they left unfinished). After a failed
    attempt, only once the organization's wait is over."""
    from .selectors import practice_state

    require(actor, "practice.take", organization, error=NotAllowed)
    User.objects.select_for_update().filter(pk=actor.pk).first()
    state = practice_state(actor, organization)
    if state.open_attempt is not None:
        return state.open_attempt
    if state.items < PRACTICE_MINIMUM_ITEMS:
        raise SpeakerError(_("%(organization)s has no practice round yet.") % {"organization": organization.name},
                           kind=ErrorKind.CONFLICT)
    if state.retry_at is not None:
        raise SpeakerError(_("You can try again from %(time)s.")
                           % {"time": timezone.localtime(state.retry_at).strftime("%Y-%m-%d %H:%M %Z")},
                           kind=ErrorKind.CONFLICT)
    return PracticeAttempt.objects.create(
        organization=organization, user=actor, pass_mark_percent=state.round.pass_mark_percent,
        items=list(active_items(organization).order_by("position", "pk").values_list("pk", flat=True)))


@transaction.atomic
def answer_practice_item(*, actor: User, attempt: PracticeAttempt, position: int, value: str) -> PracticeAnswer:
    """The speaker's answer to the attempt's item at `position` (1 for the first), in order. The same answer sent
    again is the one stored; another answer to an answered item is refused. The last answer finishes the attempt:
    passed when the share answered right reaches the pass mark (audited either way)."""
    found = (PracticeAttempt.objects.select_for_update().select_related("organization")
             .filter(pk=attempt.pk, user=actor).first())
    if found is None:
        raise NotAllowed(_("No such practice attempt among yours."), "attempt")
    attempt = found
    if not isinstance(value, str) or value not in PRACTICE_RATINGS:
        raise SpeakerError(_("Choose one of the four ratings: %(ratings)s.") % {"ratings": ", ".join(PRACTICE_RATINGS)},
                           "value")
    if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= attempt.total:
        raise SpeakerError(_("No such item in this attempt."), "position")
    item_pk = attempt.items[position - 1]
    answered = {answer.item_id: answer for answer in attempt.answers.all()}
    if item_pk in answered:
        if answered[item_pk].value != value:
            raise SpeakerError(_("You already answered this item."), "value", kind=ErrorKind.CONFLICT)
        return answered[item_pk]
    if attempt.finished_at is not None:
        raise SpeakerError(_("This attempt is finished."), kind=ErrorKind.CONFLICT)
    if position != len(answered) + 1:
        raise SpeakerError(_("Answer the items in order."), "position", kind=ErrorKind.CONFLICT)
    item = PracticeItem.objects.get(pk=item_pk)
    answer = PracticeAnswer.objects.create(attempt=attempt, item=item, value=value, right=value in item.right_ratings)
    attempt.right += answer.right
    fields = ["right"]
    if position == attempt.total:
        attempt.finished_at = timezone.now()
        attempt.passed = attempt.right * 100 >= attempt.pass_mark_percent * attempt.total
        fields += ["finished_at", "passed"]
        record_event(AuditAction.PRACTICE_PASSED if attempt.passed else AuditAction.PRACTICE_FAILED, actor=actor,
                     organization=attempt.organization, obj=attempt,
                     details={"speaker": actor.email, "right": attempt.right, "items": attempt.total,
                              "pass_mark_percent": attempt.pass_mark_percent})
    attempt.save(update_fields=fields)
    return answer

