"""The doors the upstream harness knocks on, under `/supabase/` (docs/run-cards.md, "Publishing from the upstream
harness"): `MT_EVAL_SUPABASE_URL=https://<host>/supabase` and a personal API token are all a harness user sets.
Answers and errors are PostgREST's (errors `{"code", "message", "details", "hint"}`), which the harness prints.
Views parse and answer; queries are read by submissions/harness/query.py, the writes are in
submissions/harness/intake.py, the reads in submissions/harness/selectors.py."""

import json
import re
import time
import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.crypto import salted_hmac
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied

from accounts.authentication import ApiTokenAuthentication
from accounts.models import TokenScope
from common.errors import ErrorKind

from . import intake, query, selectors

NOT_SIGNED_IN = "PGRST301"
SIGN_IN_HINT = ("set MT_EVAL_REFRESH_TOKEN (or the Bearer token) to a personal API token with the 'publish' scope, "
                "created under My account")
# Values the harness sends in Authorization when it has no session of its own; not tokens of this site.
NO_TOKEN = {"", "none", "null", "undefined"}
# The anonymous keys the harness sends: its own built-in key (mt_eval_harness.auth.SUPABASE_ANON_KEY), this site's
# (docs/run-cards.md), and any other Supabase publishable key. A request carrying one reads as anyone.
SITE_ANON_KEY = "sb_publishable_champollion_review"
ANON_KEY_PREFIX = "sb_publishable_"


def anonymous_key(value: str) -> bool:
    return value.lower() in NO_TOKEN or value == SITE_ANON_KEY or value.startswith(ANON_KEY_PREFIX)


def retry_after(error: intake.HarnessError) -> int | None:
    """The seconds a 429 asks to wait (its details carry them as JSON)."""
    if error.kind != ErrorKind.THROTTLED or not error.details:
        return None
    return json.loads(error.details)["retry_after_seconds"]


def error_response(error: intake.HarnessError) -> JsonResponse:
    response = JsonResponse(error.as_dict(), status=error.http_status)
    response["Cache-Control"] = "no-store"
    seconds = retry_after(error)
    if seconds is not None:
        response["Retry-After"] = str(seconds)
    return response


def token_user(key: str):
    """The account of an API token (its ApiToken on `user._api_token`), or AuthenticationFailed."""
    user, _ = ApiTokenAuthentication().authenticate_credentials(key)
    return user


def presented_user(request: HttpRequest):
    """The account of the token presented, or None. A Bearer token is the request's credential: an invalid one is
    refused (401), never replaced by another; without one (or with an anonymous key there), a token in `apikey` is
    taken, and anything else there (an anonymous key) reads as anyone."""
    authorization = request.headers.get("Authorization", "")
    bearer = authorization[7:].strip() if authorization[:7].lower() == "bearer " else ""
    if not anonymous_key(bearer):
        try:
            return token_user(bearer)
        except AuthenticationFailed as exc:
            raise intake.HarnessError(
                ErrorKind.UNAUTHENTICATED, NOT_SIGNED_IN, str(exc.detail), hint=SIGN_IN_HINT) from None
    apikey = request.headers.get("apikey", "").strip()
    if not anonymous_key(apikey):
        try:
            return token_user(apikey)
        except AuthenticationFailed:
            return None
    return None


def reader(request: HttpRequest):
    """Who reads: the token's account, else anyone."""
    return presented_user(request) or AnonymousUser()


def publisher(request: HttpRequest):
    """The account that publishes: a valid token with the 'publish' scope (or 'secret'), or a 401/403."""
    user = presented_user(request)
    if user is None:
        raise intake.HarnessError(
            ErrorKind.UNAUTHENTICATED, NOT_SIGNED_IN, "publishing needs a personal API token", hint=SIGN_IN_HINT)
    if user._api_token.scope == TokenScope.READ:
        raise intake.HarnessError(
            ErrorKind.NOT_ALLOWED, intake.PRIVILEGE, "this token is read-only (scope 'read'); publishing "
            "needs a 'publish' token", hint=SIGN_IN_HINT)
    return user


PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate(scope: str) -> tuple[int, int]:
    """(requests, seconds) of a rate written as DRF writes them: "10/min", "600/min", "10/hour"."""
    count, period = settings.HARNESS_RATES[scope].split("/")
    return int(count), PERIODS[period[0]]


def enforce_request_limit(scope: str, who: str) -> None:
    """A fixed window per account (or address) and scope: 429 with Retry-After once it is used up."""
    allowed, seconds = rate(scope)
    window = int(time.time() // seconds)
    key = f"harness-rate:{scope}:{who}:{window}"
    cache.add(key, 0, seconds + 5)
    if cache.incr(key) > allowed:
        retry = seconds - int(time.time() % seconds)
        raise intake.HarnessError(
            ErrorKind.THROTTLED, "PGRST429", f"too many requests: {allowed} per {seconds} s; retry in "
            f"{retry} s", details=json.dumps({"retry_after_seconds": retry}))


def address(request: HttpRequest) -> str:
    return f"address:{request.META.get('REMOTE_ADDR', '')}"


def body_of(request: HttpRequest, what: str) -> bytes:
    limit = settings.RUN_CARD_MAX_BYTES
    declared = request.META.get("CONTENT_LENGTH") or ""
    if re.fullmatch(r"[0-9]{1,15}", declared) and int(declared) > limit:
        raise intake.HarnessError(
            ErrorKind.TOO_LARGE, "PGRST413", f"{what} is {int(declared):,} bytes; the limit is {limit:,} "
            "bytes; nothing was stored")
    body = request.body
    if len(body) > limit:
        raise intake.HarnessError(
            ErrorKind.TOO_LARGE, "PGRST413", f"{what} is more than {limit:,} bytes; nothing was stored")
    return body


def parsed_query(request: HttpRequest, table: query.Table) -> query.Query:
    try:
        return query.parse(request.GET, table)
    except query.QueryError as error:
        raise intake.HarnessError(ErrorKind.INVALID, error.code, error.message, hint=error.hint) from None


def rows_response(parts: list[str], parsed: query.Query) -> HttpResponse:
    """A JSON array of rows already written as text, with PostgREST's Content-Range."""
    response = HttpResponse(("[" + ",\n".join(parts) + "]").encode("utf-8"),
                            content_type="application/json; charset=utf-8")
    response["Content-Range"] = f"{parsed.offset}-{parsed.offset + len(parts) - 1}/*" if parts else "*/*"
    response["Cache-Control"] = "no-store"
    return response


def representation(published: intake.Published) -> dict[str, Any]:
    """The row as stored, as PostgREST returns it (`return=representation`)."""
    stored = published.intake
    return {**stored.row, "id": str(stored.row_id), "submitted_at": stored.received_at.isoformat(),
            "trust": "unverified", "state": stored.state, "entries_expected": stored.expected_entries,
            "run_card_url": (f"/leaderboard/cards/{stored.row_id}/" if stored.run_card_id else None)}


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def run_cards(request: HttpRequest) -> HttpResponse:
    try:
        if request.method == "POST":
            return publish_card_row(request)
        return install_read(request)
    except intake.HarnessError as error:
        return error_response(error)


def install_read(request: HttpRequest) -> HttpResponse:
    """`GET /rest/v1/run_cards?select=*&order=chrf_plus_plus.desc.nullslast[&id=eq.…][&trust=neq.disqualified]`:
    rows written one by one so that each `run_card` (and its `method_config`) is the text stored, verbatim."""
    enforce_request_limit("read", address(request))
    parsed = parsed_query(request, selectors.RUN_CARDS)
    parts = []
    for row, card_text in selectors.harness_rows(reader(request), parsed):
        text = json.dumps(row, ensure_ascii=False, default=str)
        if card_text is not None:
            text = (text[:-1] + ", " if row else "{") + '"run_card": ' + card_text + "}"
        parts.append(text)
    return rows_response(parts, parsed)


def publish_card_row(request: HttpRequest) -> HttpResponse:
    user = publisher(request)
    enforce_request_limit("card", f"user:{user.pk}")
    published = intake.record_card_row(actor=user, body=body_of(request, "the run_cards row"))
    if "return=representation" not in request.headers.get("Prefer", ""):
        return HttpResponse(status=201 if published.created else 200)
    return JsonResponse([representation(published)], safe=False, status=201 if published.created else 200)


@csrf_exempt
@require_http_methods(["GET", "HEAD"])
def trading_card_index(request: HttpRequest) -> HttpResponse:
    """`GET /rest/v1/trading_card_index?select=code,name,aliases,iso639_1&order=code.asc`: the languages the harness
    resolves codes and names with when it starts (`mt-eval run`), from the site's own language records."""
    return language_table(request, selectors.TRADING_CARD_INDEX, selectors.language_rows)


@csrf_exempt
@require_http_methods(["GET", "HEAD"])
def trading_card_detail(request: HttpRequest) -> HttpResponse:
    """`GET /rest/v1/trading_card_detail?select=code,detail&code=eq.crk`: a language's card, as far as the site
    knows it."""
    return language_table(request, selectors.TRADING_CARD_DETAIL, selectors.language_detail_rows)


def language_table(request: HttpRequest, table: query.Table, rows) -> HttpResponse:
    try:
        enforce_request_limit("read", address(request))
        reader(request)
        parsed = parsed_query(request, table)
    except intake.HarnessError as error:
        return error_response(error)
    kept = query.apply(rows(), parsed)
    return rows_response([json.dumps({name: row.get(name) for name in parsed.columns}, ensure_ascii=False)
                          for row in kept], parsed)


@csrf_exempt
@require_http_methods(["POST"])
def queue_top(request: HttpRequest) -> HttpResponse:
    """`POST /rest/v1/rpc/queue_top`: the harness's queue runner asks upstream's compute queue for work. This site
    keeps no such queue: the answer is an empty page (`mt-eval queue --queue <file>` runs a queue you hold)."""
    try:
        enforce_request_limit("read", address(request))
        reader(request)
        intake.parse_body(body_of(request, "the queue_top arguments") or b"{}", "queue_top arguments")
    except intake.HarnessError as error:
        return error_response(error)
    return JsonResponse([], safe=False)


@csrf_exempt
def unknown_table(request: HttpRequest, name: str) -> HttpResponse:
    """Any other path under rest/v1, answered as PostgREST answers a table or function it does not have."""
    function = name.startswith("rpc/")
    what = f"function public.{name[4:]}" if function else f"table public.{name}"
    return error_response(intake.HarnessError(
        ErrorKind.NOT_FOUND, "PGRST202" if function else "PGRST205",
        f"Could not find the {what[:120]} in the schema cache",
        hint="this site serves run_cards, run_card_entries, datasets, trading_card_index, trading_card_detail and "
             "rpc/queue_top"))


@csrf_exempt
@require_http_methods(["POST"])
def run_card_entries(request: HttpRequest) -> HttpResponse:
    """`POST /rest/v1/run_card_entries` (batches of up to 50 rows; Prefer: resolution=ignore-duplicates)."""
    try:
        user = publisher(request)
        enforce_request_limit("entries", f"user:{user.pk}")
        batch = intake.record_entry_rows(actor=user, body=body_of(request, "the run_card_entries batch"))
    except intake.HarnessError as error:
        return error_response(error)
    if batch.refusal is not None:
        return error_response(batch.refusal)
    response = HttpResponse(status=201)
    response["X-Entries-Stored"] = str(batch.stored)
    if batch.accepted:
        response["X-Run-Cards-Accepted"] = ",".join(str(card.public_id) for card in batch.accepted)
    return response


@csrf_exempt
@require_http_methods(["POST"])
def datasets(request: HttpRequest) -> HttpResponse:
    """`POST /rest/v1/datasets`: the harness registers an ad-hoc corpus's metadata. Datasets here are imported by
    their community's curators (with consent), never created by a run card: a row naming a stored dataset is
    acknowledged, any other is refused with the way to import it."""
    try:
        user = publisher(request)
        parsed, _ = intake.parse_body(body_of(request, "the datasets row"), "datasets row")
        rows = parsed if isinstance(parsed, list) else [parsed]
        unknown = selectors.unknown_datasets(user, rows)
    except intake.HarnessError as error:
        return error_response(error)
    if unknown:
        return error_response(intake.HarnessError(
            ErrorKind.NOT_ALLOWED, intake.PRIVILEGE,
            "datasets: " + ", ".join(repr(name)[:80] for name in unknown[:5]) + " is not a "
            "dataset of this site; datasets are imported by their community's curators",
            hint="import the corpus first (Datasets → Import), then publish runs against it"))
    return HttpResponse(status=201)


@csrf_exempt
@require_http_methods(["POST"])
def anonymous_submit(request: HttpRequest) -> HttpResponse:
    """The harness's anonymous lane (`MT_EVAL_ANON_SUBMIT_URL`): off unless HARNESS_ANONYMOUS_INTAKE is set,
    then limited per address (HARNESS_RATES["anonymous"])."""
    if not settings.HARNESS_ANONYMOUS_INTAKE:
        return JsonResponse({"ok": False, "error": "anonymous publishing is not enabled on this site; publish with "
                             "a personal API token"}, status=404)
    try:
        enforce_request_limit("anonymous", address(request))
        published, batch = intake.submit_anonymously(body_of(request, "the anonymous submission"))
    except intake.HarnessError as error:
        retry = retry_after(error)
        body: dict[str, Any] = {"ok": False, "error": error.message, **error.as_dict()}
        if retry is not None:
            body["retry_after_seconds"] = retry
        return JsonResponse(body, status=error.http_status)
    if batch.refusal is not None:
        return JsonResponse({"ok": False, "error": batch.refusal.message, **batch.refusal.as_dict()},
                            status=batch.refusal.http_status)
    stored = published.intake
    return JsonResponse({"ok": True, "id": str(stored.row_id), "state": stored.state,
                         "already_published": not published.created and stored.state == "accepted",
                         "entries_published": batch.stored}, status=201 if published.created else 200)


def session_user(user) -> dict[str, Any]:
    """The user object of a session as the public may know the account: a stable pseudonymous id and the public
    name (accounts.models.User.public_label) — which the harness then publishes as its `submitter` — never the
    e-mail address."""
    name = user.public_label
    return {"id": str(uuid.UUID(salted_hmac("harness.session_user", str(user.pk)).hexdigest()[:32])),
            "aud": "authenticated", "role": "authenticated",
            "user_metadata": {"preferred_username": name, "full_name": name},
            "app_metadata": {"provider": "api-token"}}


@csrf_exempt
@require_http_methods(["POST"])
def token(request: HttpRequest) -> HttpResponse:
    """`POST /auth/v1/token?grant_type=refresh_token`: the harness's headless sign-in (MT_EVAL_REFRESH_TOKEN).
    A personal API token is its own session: answered with itself as the access token, valid until the token
    expires (at most an hour at a time, so a revoked token stops working within the hour)."""
    if request.GET.get("grant_type") != "refresh_token":
        return JsonResponse({"error": "unsupported_grant_type", "error_description": "only grant_type="
                             "refresh_token is supported: set MT_EVAL_REFRESH_TOKEN to a personal API token"},
                            status=400)
    try:
        enforce_request_limit("token", address(request))
        parsed, _ = intake.parse_body(request.body[:10_000], "token request")
        key = parsed.get("refresh_token") if isinstance(parsed, dict) else None
        if not isinstance(key, str) or not key:
            raise AuthenticationFailed("refresh_token is required")
        user = token_user(key)
    except intake.HarnessError as error:
        return error_response(error)
    except (AuthenticationFailed, PermissionDenied) as exc:
        return JsonResponse({"error": "invalid_grant", "error_description": str(exc.detail)}, status=400)
    now = int(time.time())
    expires_at = min(int(user._api_token.expires_at.timestamp()), now + 3600)
    response = JsonResponse({
        "access_token": key, "refresh_token": key, "token_type": "bearer",
        "expires_in": expires_at - now, "expires_at": expires_at, "user": session_user(user),
    })
    response["Cache-Control"] = "no-store"
    return response
