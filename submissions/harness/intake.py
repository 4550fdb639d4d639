"""The upstream harness's way of publishing (docs/run-cards.md, "Publishing from the upstream harness"): a card's
row first — flattened columns plus the card without its per-entry rows — then those rows in batches of 50,
possibly sent twice. Rows are collected per card; once as many as the card says it scored have arrived, the card
is accepted by the same code as `POST /api/v1/run-cards/` (leaderboard.services.submit_run_card). Refusals are
`HarnessError`s, which the views write the way PostgREST does, so that the harness prints them."""

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from accounts.models import User
from common.errors import ApplicationError, ErrorKind
from corpus.validation import describe, refuse_constant
from leaderboard import card_json
from leaderboard import services as run_cards
from leaderboard.cards import is_number
from leaderboard.models import RunCard

from ..models import HarnessIntake, HarnessIntakeEntry

# PostgreSQL's error codes, which PostgREST passes on and the harness prints.
INVALID_TEXT = "22P02"
NOT_NULL = "23502"
FOREIGN_KEY = "23503"
UNIQUE = "23505"
CHECK = "23514"
PRIVILEGE = "42501"
TOO_LARGE = "PGRST413"
CODE_OF_KIND = {ErrorKind.INVALID: CHECK, ErrorKind.NOT_ALLOWED: PRIVILEGE, ErrorKind.CONFLICT: UNIQUE,
                ErrorKind.THROTTLED: "PGRST429", ErrorKind.TOO_LARGE: TOO_LARGE}
ANONYMOUS_SUBMITTER = "anonymous-harness@intake.invalid"


class HarnessError(ApplicationError):
    """A refusal in PostgREST's shape: {"code", "message", "details", "hint"}; nothing was stored. Its kind says
    what sort of refusal it is; the views answer with the status of that kind, as PostgREST would."""

    def __init__(self, kind: ErrorKind, code: str, message: str, details: str | None = None, hint: str | None = None,
                 problems: list[dict] | None = None) -> None:
        super().__init__(message, kind=kind)
        self.code = code
        self.details = details
        self.hint = hint
        self.problems = problems or []

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message, "details": self.details,
                                "hint": self.hint}
        if self.problems:
            body["problems"] = self.problems
        return body


def refused(error: run_cards.RunCardRejected, what: str, outcome: str = "nothing was stored") -> HarnessError:
    """A run-card refusal (every problem, with its JSON path) as PostgREST writes an error."""
    problems = [problem.as_dict() for problem in error.problems]
    if isinstance(error, run_cards.SecretTextRefusalsUsedUp):
        return HarnessError(
            ErrorKind.THROTTLED, CODE_OF_KIND[error.kind], f"{what} was refused: {problems[0]['message']}; {outcome}",
            json.dumps({"retry_after_seconds": error.retry_after_seconds}), None, problems)
    details = "; ".join(f"{p['path'] or '(body)'}: {p['message']}" for p in problems[:20])
    if len(problems) > 20:
        details += f"; and {len(problems) - 20} more"
    return HarnessError(error.kind, CODE_OF_KIND[error.kind],
                        f"{what} was refused: {error.detail or str(error) or 'see details'}; {outcome}",
                        details, None, problems)


def invalid(message: str, details: str | None = None, code: str = INVALID_TEXT) -> HarnessError:
    return HarnessError(ErrorKind.INVALID, code, message, details)


def parse_body(body: bytes, what: str) -> tuple[Any, str]:
    """The parsed body and its text, read within the bounds of a run card (leaderboard.card_json.read_json: values
    counted first, a member name repeated in an object refused at its path); an error naming line and column
    otherwise."""
    try:
        return card_json.read_json(body)
    except card_json.CardJsonError as error:
        problems = [problem.as_dict() for problem in error.problems]
        if error.too_large:
            raise HarnessError(
                ErrorKind.TOO_LARGE, TOO_LARGE, f"{what} {error.problems[0].message}; nothing was stored",
                problems=problems) from None
        raise HarnessError(ErrorKind.INVALID, "PGRST102", f"{what}: {error.problems[0]}", "; ".join(
            str(problem) for problem in error.problems[:20]) if len(error.problems) > 1 else None,
            problems=problems if len(error.problems) > 1 else []) from None


def one_object_text(parsed: Any, text: str, what: str) -> tuple[dict, str]:
    """The one row a body holds — an object, or a list of exactly one (PostgREST takes both) — and its text."""
    if isinstance(parsed, list):
        if len(parsed) != 1 or not isinstance(parsed[0], dict):
            raise invalid(f"{what}: expected one row (an object, or a list of one object), found "
                          f"{describe(parsed)} of {len(parsed)}")
        start = text.index("{")
        _, end = json.JSONDecoder(parse_constant=refuse_constant).raw_decode(text, start)
        return parsed[0], text[start:end]
    if not isinstance(parsed, dict):
        raise invalid(f"{what}: expected an object, found {describe(parsed)}")
    return parsed, text


def row_uuid(value: Any, column: str, what: str) -> uuid.UUID:
    if value is None or value == "":
        raise HarnessError(ErrorKind.INVALID, NOT_NULL, f"{what}: {column} is required (the card's UUID)")
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise invalid(f"{what}: {column} must be a UUID, found {describe(value)}") from None


def expected_entry_count(card: dict) -> int:
    """How many per-entry rows the card scored: dataset.entry_count, else scores.total."""
    for value in ((card.get("dataset") or {}).get("entry_count"), (card.get("scores") or {}).get("total")):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    raise invalid("run_cards row: run_card.dataset.entry_count (or run_card.scores.total) must say how many "
                  "entries the run scored", code=NOT_NULL)


@dataclass
class Published:
    """What a card row came to: still awaiting its rows, or a card (accepted at once when sent whole)."""

    intake: HarnessIntake
    created: bool


def record_card_row(*, actor: User, body: bytes, replaceable: bool = True) -> Published:
    """`POST /rest/v1/run_cards` (Prefer: resolution=merge-duplicates): store_card_row. A refusal by the
    secret-text scan is recorded in the steward's audit log once the request's writes have rolled back."""
    try:
        return store_card_row(actor, body, replaceable)
    except run_cards.SecretTextRefused as error:
        run_cards.record_secret_text_refusal(error, actor)
        raise refused(error, "run_cards row") from None


@transaction.atomic
def store_card_row(actor: User, body: bytes, replaceable: bool) -> Published:
    """The same row sent again is answered as stored; a card is immutable once accepted with its rows; a row
    still awaiting its rows, or refused, is replaced by a new one of the same submitter (a changed or refused one
    loses the rows it had) — unless not `replaceable` (the anonymous lane, whose publishers share one account). A
    card holding its results is accepted at once; one without is stored *unverified: no per-entry rows* until they
    come (run_card_entries)."""
    what = "run_cards row"
    parsed, text = parse_body(body, what)
    row, row_text = one_object_text(parsed, text, what)
    row_id = row_uuid(row.get("id"), "id", what)
    card = row.get("run_card")
    if not isinstance(card, dict):
        raise HarnessError(
            ErrorKind.INVALID, NOT_NULL, f"{what}: run_card is required: the whole run card as an object",
            None if card is None else f"found {describe(card)}")
    card_text = run_cards.member_text(row_text.encode("utf-8"), row_text, "run_card")
    assert card_text is not None
    columns = {name: value for name, value in row.items() if name != "run_card"}
    unstorable = run_cards.unstorable_strings(columns)
    if unstorable:
        raise invalid(f"{what}: text that cannot be stored", "; ".join(f"{path}: {reason}"
                                                                      for path, reason in unstorable[:10]))
    size = len(json.dumps(columns, ensure_ascii=False).encode("utf-8"))
    if size > card_json.HEAD_MAX_BYTES:
        raise HarnessError(
            ErrorKind.TOO_LARGE, TOO_LARGE, f"{what}: its columns but run_card are {size:,} bytes of JSON; the limit "
            f"is {card_json.HEAD_MAX_BYTES:,}; nothing was stored")
    intake = HarnessIntake.objects.select_for_update().filter(row_id=row_id).first()
    if intake is not None:
        if intake.submitted_by_id != actor.pk:
            raise HarnessError(ErrorKind.CONFLICT, UNIQUE, f"run card {row_id} was published by another account",
                               hint="a card's id is its experiment's: publish a run of your own")
        if intake.card_text == card_text and intake.state != HarnessIntake.State.REFUSED:
            return Published(intake, created=False)
        if intake.state == HarnessIntake.State.ACCEPTED or not replaceable:
            raise HarnessError(
                ErrorKind.CONFLICT, UNIQUE, f"run card {row_id} is already published, with other content; "
                "published cards are never changed", hint="a new run gets a new id")
        intake.entries.all().delete()
        if intake.run_card_id is not None:
            RunCard.objects.filter(pk=intake.run_card_id, status=RunCard.Status.UNVERIFIED).delete()
    elif RunCard.objects.filter(public_id=row_id).exists():
        raise HarnessError(ErrorKind.CONFLICT, UNIQUE, f"a run card with id {row_id} is already stored")
    card_body = card_text.encode("utf-8")
    try:
        if isinstance(card.get("results"), list):
            run_card = run_cards.accept_run_card(card_body, actor)
            expected = len(card["results"])
        else:
            expected = expected_entry_count(card)
            run_card = run_cards.accept_card_without_entries(actor=actor, body=card_body)
    except run_cards.SecretTextRefused:
        raise
    except run_cards.RunCardRejected as error:
        raise refused(error, what) from None
    version_size = run_card.dataset_version.entries.count()
    if expected > version_size:
        raise invalid(f"{what}: run_card.dataset.entry_count is {expected}, but {run_card.dataset_version} holds "
                      f"{version_size} entries", code=CHECK)
    created = intake is None
    if intake is None:
        intake = HarnessIntake(row_id=row_id, submitted_by=actor)
    intake.row, intake.card_text, intake.expected_entries, intake.problems = columns, card_text, expected, []
    intake.run_card = None
    intake.state = HarnessIntake.State.AWAITING_ENTRIES
    try:
        with transaction.atomic():
            intake.save()
    except IntegrityError:
        raise HarnessError(
            ErrorKind.CONFLICT, UNIQUE, f"run card {row_id} is being published by another request") from None
    adopt(intake, run_card, with_entries=run_card.status != RunCard.Status.UNVERIFIED)
    return Published(intake, created)


def adopt(intake: HarnessIntake, run_card: RunCard, *, with_entries: bool) -> None:
    """The card takes the harness's id, so that the harness finds it again by that id; with its rows, the intake
    is done."""
    try:
        with transaction.atomic():
            RunCard.objects.filter(pk=run_card.pk).update(public_id=intake.row_id)
        run_card.public_id = intake.row_id
    except IntegrityError:
        raise HarnessError(
            ErrorKind.CONFLICT, UNIQUE, f"a run card with id {intake.row_id} is already stored") from None
    intake.run_card = run_card
    intake.state = HarnessIntake.State.ACCEPTED if with_entries else HarnessIntake.State.AWAITING_ENTRIES
    intake.save(update_fields=["run_card", "state"])


ENTRY_TEXT_LIMIT = 200
# Refused rows named in a refusal (the rest are counted), and the cards one batch may hold rows for (the harness sends
# one card's rows at a time, 50 a batch).
LISTED_ROWS = 20
CARDS_PER_BATCH = 100


def entry_rows(parsed: Any) -> list[tuple[uuid.UUID, str, dict]]:
    """(card id, entry id, row without its card id) of each posted row; every problem at once otherwise (the first
    LISTED_ROWS named, the rest counted)."""
    rows = parsed if isinstance(parsed, list) else [parsed]
    problems = ListedRows()
    read: list[tuple[uuid.UUID, str, dict]] = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            problems.append(f"row {index}: expected an object, found {describe(row)}")
            continue
        try:
            card_id = row_uuid(row.get("run_card_id"), "run_card_id", f"row {index}")
        except HarnessError as error:
            problems.append(error.message)
            continue
        entry_id = row.get("entry_id")
        if isinstance(entry_id, bool) or not isinstance(entry_id, (str, int)) or str(entry_id).strip() == "":
            problems.append(f"row {index}: entry_id: expected a non-empty string or an integer, found "
                            f"{describe(entry_id)}")
            continue
        if len(str(entry_id)) > ENTRY_TEXT_LIMIT or (isinstance(entry_id, int) and not is_number(entry_id)):
            problems.append(f"row {index}: entry_id: expected at most {ENTRY_TEXT_LIMIT} characters")
            continue
        unstorable = run_cards.unstorable_strings(row)
        if unstorable:
            problems.append(f"row {index}: {unstorable[0][0]}: {unstorable[0][1]}")
            continue
        read.append((card_id, str(entry_id), {name: value for name, value in row.items() if name != "run_card_id"}))
    if problems.refused:
        raise invalid(f"run_card_entries: {problems.refused} of {len(rows)} rows refused; nothing was stored",
                      "; ".join(problems))
    cards = {card_id for card_id, _, _ in read}
    if len(cards) > CARDS_PER_BATCH:
        raise invalid(f"run_card_entries: rows for {len(cards):,} run cards in one batch; the limit is "
                      f"{CARDS_PER_BATCH}; nothing was stored")
    return read


class ListedRows(list[str]):
    """Refusals of rows, the first LISTED_ROWS kept and all counted."""

    refused = 0

    def append(self, problem: str) -> None:
        self.refused += 1
        if len(self) < LISTED_ROWS:
            super().append(problem)


@dataclass
class EntryBatch:
    """What a batch of rows did: rows stored (duplicates left out), the cards it completed, and the refusal of a
    card it completed, answered once the refused state is stored."""

    stored: int = 0
    accepted: list[RunCard] = field(default_factory=list)
    refusal: HarnessError | None = None


@transaction.atomic
def record_entry_rows(*, actor: User, body: bytes) -> EntryBatch:
    """`POST /rest/v1/run_card_entries` (Prefer: resolution=ignore-duplicates): rows for cards of the actor's
    awaiting their rows; a row already received (card id, entry id) is ignored, as are rows for a card already
    accepted. The row that completes a card has it accepted — a refusal then answers this batch, its rows are
    discarded and rows sent again start over."""
    parsed, _ = parse_body(body, "run_card_entries")
    rows = entry_rows(parsed)
    batch = EntryBatch()
    by_card: dict[uuid.UUID, list[tuple[str, dict]]] = {}
    for card_id, entry_id, row in rows:
        by_card.setdefault(card_id, []).append((entry_id, row))
    intakes = {intake.row_id: intake for intake in HarnessIntake.objects.select_for_update().filter(
        row_id__in=by_card, submitted_by=actor)}
    for card_id in by_card:
        if card_id not in intakes:
            raise HarnessError(
                ErrorKind.CONFLICT, FOREIGN_KEY, f"run_card_entries: no run card {card_id} of yours awaits its "
                "entries", hint="publish the run card's row first (POST /rest/v1/run_cards)")
    for card_id, card_rows in by_card.items():
        intake = intakes[card_id]
        if intake.state == HarnessIntake.State.ACCEPTED:
            continue
        if intake.state == HarnessIntake.State.REFUSED:
            # Its rows were refused and discarded: rows sent now start over.
            intake.state, intake.problems = HarnessIntake.State.AWAITING_ENTRIES, []
            intake.save(update_fields=["state", "problems"])
        distinct = len({entry_id for entry_id, _ in card_rows})
        if distinct > intake.expected_entries:
            raise HarnessError(
                ErrorKind.CONFLICT, CHECK, f"run_card_entries: run card {card_id} scored {intake.expected_entries} "
                f"entries but this batch alone holds {distinct} different entry rows; nothing was "
                "stored")
        before = intake.entries.count()
        HarnessIntakeEntry.objects.bulk_create(
            [HarnessIntakeEntry(intake=intake, entry_id=entry_id, row=row) for entry_id, row in card_rows],
            ignore_conflicts=True)
        received = intake.entries.count()
        batch.stored += received - before
        if received > intake.expected_entries:
            refuse_rows(intake, [{"path": "dataset.entry_count", "message": f"the card scored "
                                  f"{intake.expected_entries} entries but {received} different entry rows came"}])
            batch.refusal = HarnessError(ErrorKind.CONFLICT, CHECK, f"run_card_entries: run card {card_id} scored "
                                         f"{intake.expected_entries} entries but {received} different rows came; "
                                         f"{ROWS_DISCARDED}")
        elif received == intake.expected_entries:
            complete(intake, actor, batch)
    return batch


ROWS_DISCARDED = ("its per-entry rows were discarded, and the card stays as it was published (unverified: no "
                  "per-entry rows); send all its rows again to start over")


def refuse_rows(intake: HarnessIntake, problems: list[dict]) -> None:
    """The rows received for a card are refused: they are discarded (the card itself stays as published), and
    why is kept on the intake."""
    intake.entries.all().delete()
    intake.state, intake.problems = HarnessIntake.State.REFUSED, problems
    intake.save(update_fields=["state", "problems"])


def complete(intake: HarnessIntake, actor: User, batch: EntryBatch) -> None:
    """Accept the card with its rows, as a card posted whole would be; a refusal is kept on the intake."""
    entries = list(intake.entries.order_by("pk").values_list("row", flat=True))
    body = intake.card_text.encode("utf-8")
    unverified = intake.run_card if intake.run_card_id is not None else None
    try:
        run_card = run_cards.submit_run_card(
            actor=actor, body=body, entries=entries,
            replacing=unverified if unverified is not None and unverified.status == RunCard.Status.UNVERIFIED else None)
    except run_cards.RunCardRejected as error:
        refuse_rows(intake, [problem.as_dict() for problem in error.problems])
        batch.refusal = refused(error, f"run card {intake.row_id}, with its {len(entries)} entries,",
                                ROWS_DISCARDED)
        return
    adopt(intake, run_card, with_entries=True)
    batch.accepted.append(run_card)


def anonymous_submitter() -> User:
    """The account anonymous harness publications are stored under: it cannot sign in."""
    user, created = get_user_model().objects.get_or_create(
        email=ANONYMOUS_SUBMITTER, defaults={"is_active": False})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def submit_anonymously(body: bytes) -> tuple[Published, EntryBatch]:
    """The harness's anonymous intake: `{"run_card_row": {...}, "entries": [...]}` in one request, stored under
    the anonymous submitter, who sees public entries only (a card on anything else is refused)."""
    parsed, text = parse_body(body, "anonymous submission")
    if not isinstance(parsed, dict) or not isinstance(parsed.get("run_card_row"), dict):
        raise invalid('anonymous submission: expected {"run_card_row": {...}, "entries": [...]}',
                      f"found {describe(parsed)}")
    entries = parsed.get("entries") or []
    if not isinstance(entries, list):
        raise invalid(f"anonymous submission: entries must be a list, found {describe(entries)}")
    row_text = run_cards.member_text(body, text, "run_card_row")
    assert row_text is not None
    actor = anonymous_submitter()
    batch = EntryBatch()
    published = record_card_row(actor=actor, body=row_text.encode("utf-8"), replaceable=False)
    # Anonymous publishers share one account: a card's rows come with its first publication, never later, so that
    # nobody feeds another's card.
    if published.created and entries:
        rows = [{**row, "run_card_id": str(published.intake.row_id)} if isinstance(row, dict) else row
                for row in entries]
        batch = record_entry_rows(actor=actor, body=json.dumps(rows, ensure_ascii=False).encode("utf-8"))
        published.intake.refresh_from_db()
    return published, batch


