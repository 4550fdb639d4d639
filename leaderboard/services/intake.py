"""Run cards coming in: parse and bound the body, check everything the card claims (consent, seal, method, pinned
version, secret text, A1 approval), store it whole with its rows, publish its method card. Every refusal is written in
the language of the request being served (a harness client that asks for none reads English)."""

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from django.conf import settings
from django.db import IntegrityError, connections, router, transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from common.bulk_insert import bulk_insert
from common.errors import ErrorKind
from common.json_reader import JsonObjectReader, NotStreamed
from common.problems import FieldProblem, grouped
from corpus.models import SECRET_SEGMENTS, ConsentUse, Dataset, DatasetVersion, Entry, Segment
from corpus.selectors import (
    has_consent,
    public_download_hash,
    public_segment,
    version_hash,
    visible_entries,
    visible_versions,
    withdrawn,
)
from corpus.services import freeze_version
from corpus.validation import (
    UNSTORABLE_ESCAPE,
    unstorable_string,
)
from organizations.audit import record_event
from organizations.models import AuditAction, AuditEvent
from organizations.permissions import permitted
from organizations.selectors import needs_mfa_for_secrets

from .. import card_json, declarations, leaks, methods, verification
from ..cards import clamped, not_a_list, top_level_value_text, validate_card
from ..models import (
    Method,
    RunCard,
    RunCardResult,
)
from .a1_runs import a1_approval_for, refuse_a1_card_without_rows, use_a1_approval
from .errors import RunCardRejected, SecretTextRefusalsUsedUp, SecretTextRefused
from .pinning import pins_hash_kept_from_public, pins_public_download, public_hash
from .scoring import verify_run_card


def unstorable_strings(card: dict | list) -> list[tuple[str, str]]:
    """Where the card holds text that cannot be stored faithfully (NUL, unpaired surrogates)."""
    return [(path, reason) for path, text in strings_of(card) if (reason := unstorable_string(text))]


@dataclass
class ParsedCard:
    """A request body and the card read from it. The decoded text is not kept (up to four bytes a character):
    `raw` is stored from the body's bytes, and `method_config` is cut out while the text is at hand."""

    body: bytes
    card: dict
    method_config: str


def parse_card(body: bytes, entries: list | None = None, rows_apart: bool = False) -> ParsedCard:
    """Decode and parse a request body within bounds (card_json.read_card), locating any encoding or JSON error.
    `entries`: the card's per-entry rows when they come beside it; `rows_apart`: they are still to come
    (cards.validate_card)."""
    limit = settings.RUN_CARD_MAX_BYTES
    if len(body) > limit:
        raise RunCardRejected(ErrorKind.INVALID, [FieldProblem("", _(
            "the card is %(size)s bytes; the limit is %(limit)s bytes") % {"size": grouped(len(body)),
                                                                           "limit": grouped(limit)})])
    card, members = read_bounded(card_json.read_card, body)
    oversized = card_json.size_problems(members)
    if oversized:
        raise RunCardRejected(ErrorKind.TOO_LARGE, oversized, detail=too_large())
    problems = validate_card(card, entries, rows_apart)
    if entries is not None:
        problems += [FieldProblem(f"entries{path}", reason) for path, reason in unstorable_strings(entries)]
    if UNSTORABLE_BYTES.search(body):
        problems += [FieldProblem(path, reason) for path, reason in unstorable_strings(card)]
    if problems:
        raise RunCardRejected(ErrorKind.INVALID, problems)
    method_config = members["method_config"] if isinstance(card.get("method_config"), dict) else ""
    return ParsedCard(body=body, card=card, method_config=method_config)


def too_large() -> str:
    """The summary of a refusal for size (413)."""
    return _("the run card is too large")


# The escapes of text PostgreSQL cannot store (corpus.validation.UNSTORABLE_ESCAPE), found in the body's bytes.
UNSTORABLE_BYTES = re.compile(UNSTORABLE_ESCAPE.pattern.encode("ascii"), re.IGNORECASE)


def read_bounded(read: Callable[[bytes], tuple[Any, Any]], body: bytes) -> tuple[Any, Any]:
    """`read(body)` (card_json.read_card or read_json), its refusal a RunCardRejected: too large (413) for too many
    values or a member too long, invalid otherwise."""
    try:
        return read(body)
    except card_json.CardJsonError as error:
        if error.too_large:
            raise RunCardRejected(ErrorKind.TOO_LARGE, error.problems, detail=too_large()) from None
        raise RunCardRejected(ErrorKind.INVALID, error.problems) from None


def member_text(body: bytes, text: str, name: str) -> str | None:
    """The verbatim text of the top-level member `name` (cards.top_level_value_text), stepping over results[]
    an element at a time: top_level_value_text reads every member whole, which held the results a second time
    beside the parsed card (17 MiB for a 9 MiB card). A card that repeats a member name, whose last value
    counts, is left to top_level_value_text."""
    reader = JsonObjectReader(body, card_json.CARD_DECODER)
    found = None
    try:
        for member in reader.names():
            if member == name:
                found = reader.value_text()
            else:
                reader.skip()
    except NotStreamed:
        return top_level_value_text(text, name)
    return found


def check_method(card: dict, problems: list[FieldProblem]) -> str | None:
    """Validate an embedded method card and manifest; return the derived dependency class."""
    derived = None
    if isinstance(card.get("method"), dict):
        derived, manifest_problems = methods.validate_manifest(card["method"], "method")
        problems += manifest_problems
    if isinstance(card.get("method_card"), dict):
        problems += methods.validate_method_card(card["method_card"], "method_card")
        if derived is not None:
            problems += methods.check_card_against_manifest(card["method_card"], derived, "method_card")
    return derived


def check_evaluation_consent(user, dataset_id: str) -> None:
    """Refuse (409) a card against a dataset whose community paused evaluation (its commitments, §8.4), has not
    consented to evaluation, or has revoked it. 409 Conflict rather than 403: the refusal comes from the dataset's
    state, not from who submits (its own governance staff are refused too), and the same card is accepted once the
    pause ends or the community grants consent again. Datasets the submitter may not know of are left to find_version,
    which answers "unknown dataset" without revealing them."""
    dataset = Dataset.objects.filter(identifier=dataset_id).select_related("organization").first()
    if dataset is None or not (dataset.is_public or permitted(user, "dataset.see_secret", dataset)):
        return
    organization = dataset.organization
    if organization.evaluation_paused:
        raise RunCardRejected(ErrorKind.CONFLICT, [FieldProblem("dataset.id", _(
            "%(dataset)s: its community (%(community)s) paused evaluation until %(until)s (%(reason)s); run cards "
            "against its datasets are refused until then")
            % {"dataset": repr(dataset.identifier), "community": organization.name,
               "until": f"{organization.evaluation_paused_until:%Y-%m-%d}",
               "reason": organization.evaluation_pause_reason.strip()})],
            detail=_("refused: the dataset's community paused evaluation"))
    if has_consent(dataset, ConsentUse.EVALUATION):
        return
    if withdrawn(dataset, ConsentUse.EVALUATION):
        message = _("%(dataset)s: its community (%(community)s) revoked its consent to evaluation; run cards against "
                    "this dataset are refused until an active consent record covers evaluation")
    else:
        message = _("%(dataset)s: its community (%(community)s) has not consented to evaluation; run cards against "
                    "this dataset are refused until an active consent record covers evaluation")
    raise RunCardRejected(ErrorKind.CONFLICT, [FieldProblem("dataset.id", message % {
        "dataset": repr(dataset.identifier), "community": organization.name})],
        detail=_("refused: the dataset's community does not consent to evaluation"))


def find_version(user, dataset: dict, problems: list[FieldProblem]) -> DatasetVersion | None:
    """The stored version the card names, among those the submitter may see, pinned by the hash the
    submitter is shown (corpus.selectors.version_hash) or the one everyone is shown, which the steward's
    readers know too; a problem otherwise."""
    versions = visible_versions(user).filter(dataset__identifier=dataset["id"])
    if not versions.exists():
        if needs_mfa_for_secrets(user):
            message = _("unknown dataset %(dataset)s (the datasets your role stewards are visible to you once "
                        "two-factor authentication is set up)")
        else:
            message = _("unknown dataset %(dataset)s")
        problems.append(FieldProblem("dataset.id", message % {"dataset": repr(dataset["id"][:60])}))
        return None
    version = versions.filter(version=dataset["version"]).first()
    if version is None:
        problems.append(FieldProblem("dataset.version", _("unknown version %(version)s of %(dataset)s; stored "
                                                          "versions: %(versions)s")
                                     % {"version": repr(dataset["version"][:50]), "dataset": repr(dataset["id"]),
                                        "versions": ", ".join(versions.values_list("version", flat=True)[:10])}))
        return None
    pinned = version_hash(user, version)
    if dataset["sha256"] not in (pinned.value, public_hash(version).value, public_download_hash(version)):
        problems.append(FieldProblem("dataset.sha256", _(
            "does not match %(version)s: its hash is %(hash)s (%(label)s), or %(download_hash)s for a run on the "
            "download of its public segments")
            % {"version": version, "hash": pinned.value, "label": pinned.label,
               "download_hash": public_download_hash(version)}))
        return None
    return version


# Up to this many ids are looked up by name; a larger card reads the version's entries in one pass.
ENTRY_LOOKUP_BATCH = 2000


def scored_entries(user, version: DatasetVersion, entry_ids: list[str]) -> dict[str, tuple[int, str, str]]:
    """entry_id → (pk, segment, domain) of the named entries the submitter may see and a card may score: held_out
    entries only once governance staff activated the segment for the version (benchmark specification §2.3: reserved
    for future evaluation); before, a card scoring one is refused as if the entry did not exist."""
    visible = visible_entries(user, version)
    if not version.held_out_active:
        visible = visible.exclude(segment=Segment.HELD_OUT)
    if len(entry_ids) <= ENTRY_LOOKUP_BATCH:
        visible = visible.filter(entry_id__in=entry_ids)
    return {entry_id: (pk, segment, domain)
            for entry_id, pk, segment, domain in visible.values_list("entry_id", "pk", "segment", "domain")}


def submit_run_card(*, actor: User, body: bytes, entries: list | None = None,
                    replacing: RunCard | None = None) -> RunCard:
    """Accept a run card (accept_run_card). A refusal by the secret-text scan is recorded in the steward's
    audit log after the submission has rolled back, so that the community sees attempts to guess its secret
    entries through refusals."""
    try:
        return accept_run_card(body, actor, entries, replacing)
    except SecretTextRefused as refused:
        record_secret_text_refusal(refused, actor)
        raise


@transaction.atomic
def record_secret_text_refusal(refused: SecretTextRefused, user) -> None:
    """Dataset, version and JSON paths of the refusal; never the text found there."""
    version = refused.version
    record_event(AuditAction.RUN_CARD_SECRET_TEXT_REFUSED,
                 actor=user, organization=version.dataset.organization, obj=version,
                 details={"dataset": version.dataset.identifier, "version": version.version, "paths": refused.paths})


@transaction.atomic
def accept_card_without_entries(*, actor: User, body: bytes) -> RunCard:
    """A card published without its per-entry rows (the harness publishes the card first, and scores-only when
    its corpus may not be redistributed): every check the rows take no part in — structure, consent, seal,
    fingerprint, method, dataset version and pin, run_id, the secret-text scan of its strings — then stored as
    *unverified: no per-entry rows*, listed with its claimed scores and marked, until its rows come
    (accept_run_card's `replacing`)."""
    parsed = parse_card(body, rows_apart=True)
    card = {**parsed.card, "results": []}
    problems: list[FieldProblem] = []
    hash_status, dependency_class, version = check_card_itself(parsed, card, actor, problems)
    if problems:
        raise RunCardRejected(ErrorKind.INVALID, problems)
    assert version is not None
    refuse_a1_card_without_rows(card, version, dependency_class)
    refuse_stored_or_secret(card, version, {}, actor)
    run_card = store_card(card, parsed, version, dependency_class, actor, hash_status, False, [UNKNOWN_SEGMENT])
    record_claims(run_card, card)
    return run_card


# The segment of a card whose per-entry rows (which name the entries, and so their segments) never came.
UNKNOWN_SEGMENT = "unknown"


def record_claims(run_card: RunCard, card: dict) -> None:
    """What a card without per-entry rows can be shown by: its own scores, interval and signature (nothing to
    recompute), its fingerprint checked against its own fields, its setup (leaderboard/ranking.py)."""
    from .. import ranking

    _, discrepancies = verification.check_fingerprint(card)
    pins_hidden_hash = pins_hash_kept_from_public(card, run_card.dataset_version)
    if pins_hidden_hash:
        discrepancies = verification.without_dataset_hash(discrepancies)
    shown = ranking.headline(card["scores"], {}, ranking.statistics_matrix([])[0], standard=run_card.scoring_standard)
    run_card.setup_fingerprint = ranking.setup_fingerprint(card, run_card.fingerprint,
                                                           pins_hidden_hash=pins_hidden_hash)
    run_card.leaderboard_chrf_plus_plus = shown.leaderboard_chrf_plus_plus
    run_card.leaderboard_composite = shown.leaderboard_composite
    run_card.chrf_ci_lower, run_card.chrf_ci_upper = shown.chrf_ci_lower, shown.chrf_ci_upper
    run_card.chrf_ci_source, run_card.chrf_signature = shown.chrf_ci_source, shown.chrf_signature
    run_card.discrepancies = [d.as_dict() for d in discrepancies]
    run_card.status = RunCard.Status.UNVERIFIED
    run_card.save(update_fields=["setup_fingerprint", "leaderboard_chrf_plus_plus", "leaderboard_composite",
                                 "chrf_ci_lower", "chrf_ci_upper", "chrf_ci_source", "chrf_signature",
                                 "discrepancies", "status"])


def check_card_itself(parsed: ParsedCard, card: dict, user, problems: list[FieldProblem]
                      ) -> tuple[str, str | None, DatasetVersion | None]:
    """What the card itself must pass, whoever sends its rows: its community's consent (409), its seal, its
    method card and manifest, the dataset version it pins, its declaration of the development entries it used.
    Returns (hash status, derived dependency class, version); problems are added to `problems`."""
    check_evaluation_consent(user, card["dataset"]["id"])
    hash_status = verification.verify_hash(parsed.card)
    if hash_status == "mismatch":
        problems.append(FieldProblem("run_card_hash", _("does not verify: the card's content hashes to %(hash)s; it "
                                                        "was changed after it was sealed")
                                     % {"hash": verification.card_hash(parsed.card)}))
    dependency_class = check_method(card, problems)
    version = find_version(user, card["dataset"], problems)
    refuse_more_rows_than_entries(parsed, card, version, problems)
    if declarations.MEMBER in card:
        declaration, found = declarations.declaration_problems(card[declarations.MEMBER])
        problems += found
        if declaration is not None and version is not None:
            problems += declarations.unknown_entries(declaration, version)
    return hash_status, dependency_class, version


def refuse_stored_or_secret(card: dict, version: DatasetVersion, scored: dict[str, tuple[int, str, str]],
                            user) -> None:
    """The last refusals: a run_id already stored or a method id of another submitter (409), then — only for a
    card that would otherwise be stored — the secret-text scan (400)."""
    if RunCard.objects.filter(run_id=card["run_id"]).exists():
        raise RunCardRejected(ErrorKind.CONFLICT, [already_stored(card["run_id"])])
    if isinstance(card.get("method_card"), dict):
        publishable_method(card["method_card"], user)
    reader = permitted(user, "dataset.see_secret", version.dataset)
    if not reader:
        refuse_after_too_many_secret_text_refusals(user)
    leaking = public_secret_text(card, version, scored)
    if leaking:
        # Someone who may not read the secrets learns from a refusal that a string of theirs holds one: one path
        # per request (every refusal is audited, and only a few a day are answered at all).
        shown = leaking if reader else leaking[:1]
        raise SecretTextRefused([FieldProblem(path, secret_text_refusal()) for path in shown], version, leaking)


def refuse_more_rows_than_entries(parsed: ParsedCard, card: dict, version: DatasetVersion | None,
                                  problems: list[FieldProblem]) -> None:
    """A card scores each entry of its version at most once: more rows than the version holds entries is refused
    at once, before anything is looked up or reported row by row (the problems found so far with it)."""
    if version is not None and len(card["results"]) > version.entry_count:
        rows_name = "results" if "results" in parsed.card else "entries"
        raise RunCardRejected(ErrorKind.INVALID, [*problems, FieldProblem(rows_name, _(
            "holds %(rows)s rows; %(dataset)s %(version)s holds %(entries)s entries, and a card scores each at most "
            "once") % {"rows": grouped(len(card["results"])), "dataset": version.dataset.identifier,
                       "version": version.version, "entries": grouped(version.entry_count)})])


SECRET_TEXT_REFUSAL_WINDOW = timedelta(days=1)


def refuse_after_too_many_secret_text_refusals(user) -> None:
    """Each refusal by the scan answers a guess — or as many guesses as the refused string holds — at the text of
    the secret entries. After RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY of them in 24 hours, every card of the submitter
    is refused before the scan, whatever it holds (so the refusal says nothing of the card), until the oldest of
    them is a day old."""
    limit = settings.RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY
    since = timezone.now() - SECRET_TEXT_REFUSAL_WINDOW
    times = list(AuditEvent.objects.filter(action=AuditAction.RUN_CARD_SECRET_TEXT_REFUSED, actor_id=user.pk,
                                           created_at__gte=since)
                 .order_by("-created_at").values_list("created_at", flat=True)[:limit])
    if len(times) < limit:
        return
    until = times[-1] + SECRET_TEXT_REFUSAL_WINDOW
    raise SecretTextRefusalsUsedUp([FieldProblem("", ngettext(
        "%(count)s of your run cards was refused in the last 24 hours for holding the text of secret entries (the "
        "steward's governance staff see each refusal): your cards are not accepted until %(until)s UTC",
        "%(count)s of your run cards were refused in the last 24 hours for holding the text of secret entries (the "
        "steward's governance staff see each refusal): your cards are not accepted until %(until)s UTC", limit)
        % {"count": limit, "until": f"{until.astimezone(UTC):%Y-%m-%d %H:%M}"})],
        max(1, math.ceil((until - timezone.now()).total_seconds())))


def store_card(card: dict, parsed: ParsedCard, version: DatasetVersion, dependency_class: str | None, user,
               hash_status: str, is_secret: bool, segments: list[str]) -> RunCard:
    """Freeze the version the card pins and store the card (create_card); a run_id stored meanwhile is a 409."""
    freeze_version(version=version, actor=user)
    try:
        with transaction.atomic():
            return create_card(card, parsed, version, dependency_class, user, hash_status, is_secret, segments)
    except IntegrityError:
        raise RunCardRejected(ErrorKind.CONFLICT, [already_stored(card["run_id"])]) from None


def already_stored(run_id: str) -> FieldProblem:
    """The refusal of a run_id stored already, found before storing or by the unique index while storing."""
    return FieldProblem("run_id", _("run %(run_id)s is already stored") % {"run_id": run_id})


def split_submission(body: bytes) -> tuple[bytes, list | None]:
    """A submission is a run card, or `{"run_card": {...}, "entries": [...]}`: the card as the harness seals it
    (without per-entry rows) and its rows beside it. The card's bytes are cut out verbatim, so that its hash and
    method_config are the ones sent."""
    head = body[:200].lstrip()
    if not head.startswith(b"{") or b'"run_card"' not in body[:1000] and b'"entries"' not in body[:1000]:
        return body, None
    parsed, text = read_bounded(card_json.read_json, body)
    if not isinstance(parsed, dict) or "run_id" in parsed or not isinstance(parsed.get("run_card"), dict):
        return body, None
    card_text = member_text(body, text, "run_card")
    assert card_text is not None
    entries = parsed.get("entries")
    if not isinstance(entries, list):
        raise RunCardRejected(ErrorKind.INVALID, [FieldProblem("entries", not_a_list(entries))])
    return card_text.encode("utf-8"), entries


@transaction.atomic
def accept_run_card(body: bytes, user, entries: list | None = None, replacing: RunCard | None = None) -> RunCard:
    """Accept a run card: every problem at once (400), secret segments for steward governance only (403),
    evaluation only with the community's active consent (409), one card per run_id and a method id per
    submitter (409). Every other refusal comes before the secret-text scan (400), so that only a card that
    would otherwise be accepted learns whether it holds a secret. Accepting freezes the dataset version;
    verification of the aggregates runs inline for small cards and in a Celery task for large ones.
    `replacing`: the same card stored unverified, without its rows (accept_card_without_entries), whose place and
    id the accepted one takes; refused, it stays as it was."""
    if replacing is not None:
        try:
            RunCard.objects.filter(pk=replacing.pk, status=RunCard.Status.UNVERIFIED).delete()
        except ProtectedError:
            raise RunCardRejected(ErrorKind.CONFLICT, [FieldProblem("", _(
                "the card is already in use here (a review campaign or a submission names it)"))]) from None
    if entries is None:
        body, entries = split_submission(body)
    parsed = parse_card(body, entries)
    rows_name = "results" if entries is None else "entries"
    # The card with its rows, as everything below reads it; its hash is of the card as sent (`parsed.card`).
    card = {**parsed.card, "results": parsed.card["results"] if entries is None else entries}
    sent_results = card["results"]
    problems: list[FieldProblem] = []
    hash_status, dependency_class, version = check_card_itself(parsed, card, user, problems)
    claimed_secret = any(isinstance(r.get("segment"), str) and r["segment"] in SECRET_SEGMENTS for r in sent_results)
    scored: dict[str, tuple[int, str, str]] = {}
    if version is not None:
        scored = scored_entries(user, version, [str(result["entry_id"]) for result in sent_results])
        for index, result in enumerate(sent_results):
            if str(result["entry_id"]) not in scored:
                problems.append(FieldProblem(f"{rows_name}[{index}].entry_id", _(
                    "no entry %(entry)s in %(dataset)s %(version)s")
                    % {"entry": repr(str(result["entry_id"])[:60]), "dataset": version.dataset.identifier,
                       "version": version.version}))
    if problems:
        raise RunCardRejected(ErrorKind.INVALID, problems)
    assert version is not None  # find_version returns None only after adding a problem, raised above
    if pins_public_download(card, version):
        problems += [FieldProblem(f"{rows_name}[{index}].entry_id", _(
                                  "is not in the public download this card pins (dataset.sha256): a run on the "
                                  "public download scores its public entries only"))
                     for index, result in enumerate(sent_results)
                     if scored[str(result["entry_id"])][1] in SECRET_SEGMENTS]
        if problems:
            raise RunCardRejected(ErrorKind.INVALID, problems)
    segments = sorted({scored[str(r["entry_id"])][1] for r in sent_results})
    is_secret = claimed_secret or any(segment in SECRET_SEGMENTS for segment in segments)
    if is_secret and not permitted(user, "dataset.govern", version.dataset):
        raise RunCardRejected(ErrorKind.NOT_ALLOWED,
                              [FieldProblem(rows_name, _("cards for gold_standard or held_out entries are submitted "
                                                         "by governance staff of the steward organization only"))])
    approval = a1_approval_for(card, version, dependency_class, segments) if is_secret else None
    refuse_stored_or_secret(card, version, scored, user)
    run_card = store_card(card, parsed, version, dependency_class, user, hash_status, is_secret, segments)
    if approval is not None:
        use_a1_approval(approval, run_card, user)
    if replacing is not None:
        RunCard.objects.filter(pk=run_card.pk).update(public_id=replacing.public_id)
        run_card.public_id = replacing.public_id
    store_results(run_card, sent_results, scored)
    if len(sent_results) <= settings.RUN_CARD_INLINE_MAX_RESULTS:
        verify_run_card(run_card.pk, card, rows_name)
        run_card.refresh_from_db()
    else:
        from ..tasks import verify_run_card_task

        transaction.on_commit(lambda: verify_run_card_task.delay(run_card.pk))
    return run_card


def create_card(card: dict, parsed: ParsedCard, version: DatasetVersion, dependency_class: str | None, user,
                hash_status: str, is_secret: bool, segments: list[str]) -> RunCard:
    scores = card["scores"]
    raw_totals = card.get("totals")
    totals = raw_totals if isinstance(raw_totals, dict) else {}
    run_card = RunCard.objects.create(
        run_id=card["run_id"],
        raw="",
        dataset_version=version,
        method=save_method(card, dependency_class, user),
        submitted_by=user,
        hash_status=RunCard.HashStatus.VERIFIED if hash_status == "verified" else RunCard.HashStatus.UNSEALED,
        is_secret=is_secret,
        segment=segments[0] if len(segments) == 1 else "mixed",
        harness_version=card["harness_version"],
        timestamp=datetime.fromisoformat(card["timestamp"].replace("Z", "+00:00")),
        model_slug=card["model_slug"][:200],
        model_id=(card.get("model_id") or "")[:200],
        condition=card["condition"][:200],
        temperature=card["temperature"],
        system_prompt_sha256=card["system_prompt_sha256"],
        tools_enabled=card.get("tools_enabled"),
        batch_size=card.get("batch_size"),
        # Over the hash everyone is shown: the fingerprint is public (the leaderboard's grouping key), and one over
        # a real hash kept from the public would confirm guesses of that hash (docs/run-cards.md, "Fingerprint").
        fingerprint=verification.public_fingerprint(card, public_hash(version).value),
        method_config=parsed.method_config,
        scoring_standard=scores.get("scoring_standard") or "legacy-composite",
        composite=clamped(scores.get("composite"), 0, 1),
        chrf_plus_plus=clamped(scores.get("chrf_plus_plus"), 0, 100),
        exact_match_rate=clamped(scores.get("exact_match_rate"), 0, 1),
        fst_acceptance_rate=clamped(scores.get("fst_acceptance_rate"), 0, 1),
        semantic_score=clamped(scores.get("semantic_score"), 0, 1),
        cost_per_entry_usd=totals.get("cost_per_entry_usd"),
        avg_latency_seconds=scores.get("avg_latency_seconds"),
        cost_adjusted=verification.cost_adjusted(clamped(scores.get("composite"), 0, 1),
                                                 totals.get("cost_per_entry_usd")),
        result_count=len(card["results"]),
        development_data=(declarations.declaration_problems(card[declarations.MEMBER])[0]
                          if declarations.MEMBER in card else None),
    )
    store_raw(run_card, parsed.body)
    return run_card


def store_raw(run_card: RunCard, body: bytes) -> None:
    """Write `raw`, the card's text, from the request body's bytes. On PostgreSQL the bytes are the statement's
    one parameter, bound on the server whatever the connection's setting, and decoded there (convert_from checks
    the UTF-8 as parse_card did): for a 9 MiB card, decoding the text to send it took 18 MiB, and binding it
    28 MiB more on the server, 55 MiB on the client. The instance reads `raw` from the database when used."""
    connection = connections[router.db_for_write(RunCard)]
    if connection.vendor == "postgresql":
        quote, meta = connection.ops.quote_name, RunCard._meta
        statement = (f"UPDATE {quote(meta.db_table)} SET {quote(meta.get_field('raw').column)} = "
                     f"convert_from(%b, 'UTF8') WHERE {quote(meta.pk.column)} = %s")
        connection.ensure_connection()
        with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(statement, [body, run_card.pk])
    else:
        RunCard.objects.filter(pk=run_card.pk).update(raw=body.decode("utf-8"))
    del run_card.raw


def secret_text_refusal() -> str:
    """The problem at each public string the secret-text scan found secret text in."""
    return _("holds the text of a gold_standard or held_out entry of this dataset version, or a long piece of it "
             "(compared ignoring case, spacing, accents, punctuation, invisible characters, look-alike letters and "
             "common encodings, across neighbouring fields); it is shown publicly, so such text may appear only "
             "inside the results[] rows of secret entries")


def public_secret_text(card: dict, version: DatasetVersion, entries: dict[str, tuple[int, str, str]]) -> list[str]:
    """Paths of the card's public strings (leaks.secret_text_paths) that hold the text of any secret entry
    of the version, scored or not, or an output of this card on one. Text that the scored public entries
    themselves contain is no secret there: their rows carry it; a piece of a secret entry's text that the version's
    public entries hold is none either (read only when the card shares such a piece)."""
    rows = [entries[str(result["entry_id"])] for result in card["results"]]
    public_rows = [position for position, (_, segment, _) in enumerate(rows) if segment not in SECRET_SEGMENTS]
    secret_outputs = (result.get(name) for result, (_, segment, _) in zip(card["results"], rows, strict=True)
                      if segment in SECRET_SEGMENTS for name in ("predicted", "raw_predicted"))
    stored = Entry.objects.filter(version=version, segment__in=SECRET_SEGMENTS).values_list("source", "reference")
    index = leaks.SecretTextIndex(itertools.chain.from_iterable(stored.iterator(chunk_size=2000)), secret_outputs)
    public = Entry.objects.filter(public_segment(), version=version).values_list("source", "reference")
    if index and public_rows:
        scored_public = public
        if len(public_rows) <= ENTRY_LOOKUP_BATCH:
            scored_public = public.filter(pk__in=[rows[position][0] for position in public_rows])
        index.discard_found_in(itertools.chain.from_iterable(scored_public.iterator(chunk_size=2000)))
    return leaks.secret_text_paths(card, index, public_rows,
                                   lambda: itertools.chain.from_iterable(public.iterator(chunk_size=2000)))


def strings_of(value, path: str = ""):
    """Every string in a JSON value, member names included, with its JSON path."""
    if isinstance(value, dict):
        for key, item in value.items():
            member = f"{path}.{key}" if path else str(key)
            yield member, key
            yield from strings_of(item, member)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings_of(item, f"{path}[{index}]")
    elif isinstance(value, str):
        yield path, value


def method_id_of(method_card: dict) -> str:
    return str(method_card["method_id"])[:200]


def publishable_method(method_card: dict, user) -> tuple[Method | None, bool]:
    """(the stored method the card's method_card names, locked, or None; whether `user` may change its card).

    Everyone publishes runs of a method; one submitter never replaces another's method card. A method belongs to the
    signed-in account that first published it: that account changes its card. A method first published anonymously
    (by an account that cannot sign in: the harness's anonymous lane, a deleted account) belongs to nobody until the
    first signed-in account publishes it, which then owns it. Anyone else's card is published as it is, the stored
    card unchanged, when the method is one of the harness's built-in engines or the card is the stored one (a method
    shared as it is); a different card of another's method is refused (409)."""
    method_id = method_id_of(method_card)
    method = Method.objects.select_for_update().select_related("submitted_by").filter(method_id=method_id).first()
    if method is None or method.submitted_by_id == user.pk and user.is_active:
        return method, user.is_active
    if not method.submitted_by.is_active and user.is_active:
        return method, True
    if method_id in methods.BUILT_IN_METHOD_IDS or method.card == method_card:
        return method, False
    differing = sorted(name for name in set(method.card) | set(method_card)
                       if method.card.get(name) != method_card.get(name))
    raise RunCardRejected(ErrorKind.CONFLICT, [FieldProblem("method_card.method_id", _(
        "method %(method)s belongs to another submitter, and this card differs from theirs in %(fields)s: publish it "
        "with their card unchanged, or under a method_id of your own")
        % {"method": repr(method_id), "fields": ", ".join(differing[:10])})])


def save_method(card: dict, dependency_class: str | None, user) -> Method | None:
    """The card's method, stored or updated as `publishable_method` allows: a class derived from a manifest is kept
    until a new manifest derives another (a declared class never overrides it)."""
    method_card = card.get("method_card")
    if not isinstance(method_card, dict):
        return None
    method, owned = publishable_method(method_card, user)
    if method is not None and not owned:
        return method
    manifest = card.get("method") if isinstance(card.get("method"), dict) else None
    if method is None:
        method = Method(method_id=method_id_of(method_card), submitted_by=user)
    elif method.submitted_by_id != user.pk:
        method.submitted_by = user  # a method nobody owned (first published anonymously): now its publisher's
    if manifest is not None:
        method.manifest = manifest
        method.dependency_class = dependency_class or ""
    elif not method.manifest:
        declared = method_card.get("dependency_class")
        method.dependency_class = (
            declared if isinstance(declared, str) and declared in methods.DEPENDENCY_CLASSES else ""
        )
    method.name = str(method_card.get("name") or method.method_id)[:200]
    method.method_class = method_card["class"]
    method.card = method_card
    method.updated_at = timezone.now()
    method.save()
    return method


RESULT_FIELDS = ("run_card", "entry", "position", "predicted", "exact_match", "chrf_score", "latency_s", "error",
                 "data")


def store_results(run_card: RunCard, results: list[dict], entries: dict) -> None:
    """One row per results[] entry, linked to the corpus entry it scores (COPY on PostgreSQL). Its exact match and
    chrF++ are left empty until verification scores it against the stored entry (record_entry_scores)."""
    bulk_insert(RunCardResult, RESULT_FIELDS, (
        (run_card.pk, entries[str(result["entry_id"])][0], position, result.get("predicted") or "",
         None, None, result.get("latency_s"), str(result.get("error") or ""), result)
        for position, result in enumerate(results)
    ))
