"""REST API: run-card submission and status, leaderboard rows, verbatim method_config, methods."""


from django.conf import settings
from django.core.cache import cache
from django.core.paginator import InvalidPage
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema, inline_serializer
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from common.errors import ErrorKind
from common.limits import WriteRateThrottle, read_capped_body
from corpus.api import WITHDRAWN_RESPONSE, Withdrawn
from governance.models import DecisionState
from organizations.permissions import check

from . import decisions, selectors, services
from .card_json import unambiguous
from .models import Disqualification, Method, RunCard

PROBLEM_FIELDS = {"path": serializers.CharField(), "message": serializers.CharField()}
# `problems` is absent when the body is not JSON at all (DRF's parse error: only `detail`).
RejectionSerializer = inline_serializer("RunCardRejection", {
    "detail": serializers.CharField(),
    "problems": inline_serializer("FieldProblem", PROBLEM_FIELDS, many=True, required=False)})
SubmissionSerializer = inline_serializer("RunCardSubmission", {
    "id": serializers.UUIDField(), "run_id": serializers.CharField(), "status": serializers.CharField(),
    "status_url": serializers.CharField(), "fingerprint": serializers.CharField(),
    "hash_verified": serializers.BooleanField(), "hash_status": serializers.CharField(),
    "discrepancies": serializers.ListField(child=serializers.DictField()),
})


def rejection(error: services.RunCardRejected) -> Response:
    """A refused card's answer, in the language of the request: the refusal's summary and every problem."""
    if error.detail:
        detail = _("%(detail)s; nothing was stored") % {"detail": error.detail}
    else:
        detail = {ErrorKind.INVALID: _("the run card was refused; nothing was stored"),
                  ErrorKind.NOT_ALLOWED: _("not allowed; nothing was stored"),
                  ErrorKind.CONFLICT: _("already stored; nothing was stored"),
                  ErrorKind.TOO_LARGE: _("too large; nothing was stored")}[error.kind]
    response = Response({"detail": detail,
                         "problems": [p.as_dict() for p in error.problems]}, status=error.http_status)
    if isinstance(error, services.SecretTextRefusalsUsedUp):
        response["Retry-After"] = str(error.retry_after_seconds)
    return response


def visible_card_or_error(request, public_id) -> RunCard:
    """The card if the user may see it; 410 when its community withdrew consent, 404 otherwise."""
    card = selectors.visible_card(request.user, public_id)
    if card is not None:
        return card
    withdrawn = selectors.withdrawn_card(public_id)
    if withdrawn is not None:
        raise Withdrawn(withdrawn.message)
    raise NotFound("No such run card.")


def card_summary(request, card: RunCard) -> dict:
    return {
        "id": str(card.public_id),
        "run_id": str(card.run_id),
        "status": card.status,
        "status_url": request.build_absolute_uri(reverse("run-card-detail", args=[card.public_id])),
        "page_url": request.build_absolute_uri(reverse("leaderboard:card", args=[card.public_id])),
        "fingerprint": card.fingerprint,
        "hash_verified": card.hash_status == RunCard.HashStatus.VERIFIED,
        "hash_status": card.hash_status,
        "verification_tier": card.verification_tier,
        "dataset": card.dataset_version.dataset.identifier,
        "dataset_version": card.dataset_version.version,
        "segment": card.segment,
        "discrepancies": card.discrepancies,
        "verification_error": card.verification_error,
    }


class RunCardListView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    # Each submission is stored whole and verified: a stricter rate per user than the API's default.
    throttle_classes = [*APIView.throttle_classes, WriteRateThrottle]
    throttle_scope = "run_card_submit"

    @extend_schema(
        request={"application/json": OpenApiTypes.OBJECT},
        responses={201: SubmissionSerializer, 202: SubmissionSerializer, 400: RejectionSerializer,
                   403: RejectionSerializer, 409: RejectionSerializer, 413: RejectionSerializer,
                   429: RejectionSerializer},
        description="Submit a run card (the JSON body exactly as `mt-eval publish` writes it), holding its "
        "`results[]`, or `{\"run_card\": {...}, \"entries\": [...]}`: the card as the harness seals it and its "
        "per-entry rows beside it (the hash is of the card as sent). Small cards are "
        "verified before the answer (201); large ones answer 202 and are verified by a background task: poll "
        "`status_url`. A body over RUN_CARD_MAX_BYTES answers 413; too many submissions, or too many cards "
        "refused for secret text in 24 hours (RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY), answer 429 with Retry-After. "
        "409: the dataset's community paused evaluation (until the date the answer names) or does not consent to "
        "evaluation, the run_id is stored already, or a class A1 "
        "method's card scores secret entries without an unused A1 run approval (one per run, a governance decision) "
        "or without the community's consent to A1 gateway disclosure.",
    )
    def post(self, request):
        body = read_capped_body(request, settings.RUN_CARD_MAX_BYTES, "the run card")
        try:
            card = services.submit_run_card(body=body, actor=request.user)
        except services.RunCardRejected as error:
            return rejection(error)
        code = status.HTTP_201_CREATED if card.status != RunCard.Status.PROCESSING else status.HTTP_202_ACCEPTED
        response = Response(card_summary(request, card), status=code)
        response["Location"] = card_summary(request, card)["status_url"]
        return response


class RunCardDetailView(APIView):
    @extend_schema(responses={200: SubmissionSerializer, **WITHDRAWN_RESPONSE})
    def get(self, request, public_id):
        return Response(card_summary(request, visible_card_or_error(request, public_id)))


class RunCardResultsView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT, **WITHDRAWN_RESPONSE},
                   description="Per-entry results you may see: public entries' results to whoever sees the entry, "
                   "secret entries' results to the steward's governance staff only. Each row is the card's row as "
                   "sent, and `recomputed`: its exact match (NFC) and sentence chrF++ against the stored reference.")
    def get(self, request, public_id):
        card = visible_card_or_error(request, public_id)
        paginator = PageNumberPagination()
        page = selectors.shown_results(request.user, paginator.paginate_queryset(
            selectors.visible_results(request.user, card), request, view=self) or [], where=request.path)
        return paginator.get_paginated_response([
            {**r.data, "entry_id": r.entry.entry_id, "position": r.position,
             "recomputed": {"exact_match": r.exact_match, "chrf_score": r.chrf_score}} for r in page])


class GdsVerificationView(APIView):
    permission_classes = [permissions.IsAdminUser]

    @extend_schema(request=inline_serializer("Reproduction", {"reproduction": serializers.UUIDField()}),
                   responses={200: SubmissionSerializer, 400: PolymorphicProxySerializer(
                       component_name="GdsVerificationRejection", resource_type_field_name=None, serializers=[
                           RejectionSerializer, inline_serializer("ReproductionProblem", {
                               "reproduction": serializers.CharField()})])})
    def post(self, request, public_id):
        original = get_object_or_404(RunCard, public_id=public_id)
        reproduction_id = request.data.get("reproduction") if isinstance(request.data, dict) else None
        reproduction = RunCard.objects.filter(public_id=str(reproduction_id or "")).first() if _is_uuid(
            reproduction_id) else None
        if reproduction is None:
            raise ValidationError({"reproduction": "expected the id of the maintainer's reproduction run card"})
        try:
            card = services.record_reproduction(original=original, reproduction=reproduction, actor=request.user)
        except services.RunCardRejected as error:
            return rejection(error)
        return Response(card_summary(request, card))


def _is_uuid(value) -> bool:
    import uuid

    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


LEADERBOARD_PARAMETERS = [
    OpenApiParameter("ranking", enum=list(selectors.RANKINGS),
                     description="official: gold_standard/held_out cards, run by the steward's governance staff; open: "
                     "development/diagnostic cards. By default the official ranking when it has rows, else the open "
                     "one (`rankings` in the answer gives every ranking's count)."),
    OpenApiParameter("standard", enum=list(selectors.STANDARDS),
                     description="Ranking standard (never mixed). By default standard/1, ranked by corpus chrF++, "
                     "when it has rows, else the standard that has (legacy-composite)."),
    OpenApiParameter("scope", enum=list(selectors.SCOPES),
                     description="version (default): one dataset version — the one `dataset` and `version` name, else "
                     "the one with the most verified cards among those the filters allow; pair: every version of "
                     "`language_pair`; all: every pair and version. Scores across versions or pairs are not "
                     "comparable: ask for those scopes explicitly."),
    OpenApiParameter("language_pair", str, description="Any spelling of the pair: eng>crk, EN→CRK, en-CA -> crk."),
    OpenApiParameter("dataset", str), OpenApiParameter("version", str),
    OpenApiParameter("segment", str), OpenApiParameter("domain", str,
                                                       description="Rank by scores over this domain's entries only."),
    OpenApiParameter("sort", enum=list(selectors.SORTS)),
]


class LeaderboardView(APIView):
    @extend_schema(parameters=LEADERBOARD_PARAMETERS, responses={200: OpenApiTypes.OBJECT},
                   description="One ranking (`ranking` in the answer says which: official or open, its standard, "
                   "its dataset version or scope, and whether that version was picked). Every score is an automated "
                   "proxy computed against the stored corpus; human review is the ground truth. A standard/1 row "
                   "carries chrF++'s 95% bootstrap interval (`chrf_ci`), its sacreBLEU signature and its rank cluster; "
                   "a row whose claimed score disagrees with what its predictions give shows the recomputed one "
                   "(recomputed_score); `corpus_mismatches` counts its results whose texts are not the stored "
                   "corpus's (never `verified_against_corpus` then). Disqualified cards are in no ranking.")
    def get(self, request):
        """Anyone who sees what a visitor sees gets the rendered answer from the cache, under the leaderboard's state
        stamp (never stale: `selectors.leaderboard_page`), per address, language and format."""
        key = None
        if selectors.shares_public_view(request.user) and request.accepted_renderer.format == "json":
            key = selectors.whole_answer_key("api", request.build_absolute_uri())
            body = cache.get(key) if key is not None else None
            if body is not None:
                return HttpResponse(body, content_type="application/json")
        response = self.ranked(request)
        if key is not None:
            body = JSONRenderer().render(response.data)
            cache.set(key, body, selectors.LEADERBOARD_CACHE_SECONDS)
            return HttpResponse(body, content_type="application/json")
        return response

    def ranked(self, request) -> Response:
        query = selectors.LeaderboardQuery.from_params(request.query_params)
        if query.errors:
            raise ValidationError(query.errors)
        stamp = selectors.public_stamp(request.user)
        view = selectors.ranking_view(request.user, query, stamp)
        number = request.query_params.get("page") or 1
        counted = selectors.ranking_counts(request.user, view, number, per_page=api_settings.PAGE_SIZE, stamp=stamp)
        counts = counted.counts
        shown = view.query
        if not shown.standard_given and not any(counts[(kind, shown.standard)] for kind in selectors.RANKINGS):
            # As the page shows every standard that has rows: without a standard asked for, one that has some.
            other = next((standard for standard in selectors.STANDARDS
                          if any(counts[(kind, standard)] for kind in selectors.RANKINGS)), None)
            if other is not None:
                shown = shown.but(standard=other)
        if not shown.ranking:
            shown = shown.but(ranking="official" if counts[("official", shown.standard)] else "open")
        try:
            ranking = selectors.leaderboard_page(request.user, shown, number, per_page=api_settings.PAGE_SIZE,
                                                 strict=True, stamp=stamp, counts=counted)
        except InvalidPage as error:
            raise NotFound(f"Invalid page: {error}") from error
        page, url = ranking.page, request.build_absolute_uri()
        return Response({
            "ranking": {"ranking": shown.ranking, "standard": shown.standard, "scope": shown.scope,
                        "dataset": shown.dataset or None, "version": shown.version or None,
                        "language_pair": view.chosen.language_pair if view.chosen else (query.language_pair or None),
                        "picked": view.picked},
            "rankings": [{"ranking": ranking_name, "standard": standard, "count": count}
                         for (ranking_name, standard), count in counts.items()],
            "count": page.paginator.count,
            "next": replace_query_param(url, "page", page.next_page_number()) if page.has_next() else None,
            "previous": (None if not page.has_previous() else remove_query_param(url, "page")
                         if page.previous_page_number() == 1 else
                         replace_query_param(url, "page", page.previous_page_number())),
            "results": ranking.rows,
        })


class MethodConfigView(APIView):
    @extend_schema(responses={(200, "application/json"): OpenApiTypes.OBJECT, **WITHDRAWN_RESPONSE},
                   description="The run card's method_config block, byte for byte as submitted (one stored before "
                   "repeated member names were refused: as JSON readers that keep the last of them read it).")
    def get(self, request, public_id):
        card = visible_card_or_error(request, public_id)
        if not card.method_config:
            raise NotFound("No method_config for this row.")
        return HttpResponse(unambiguous(card.method_config).encode("utf-8"),
                            content_type="application/json; charset=utf-8")


class MethodListView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request={"application/json": OpenApiTypes.OBJECT},
                   responses={201: OpenApiTypes.OBJECT, 400: RejectionSerializer},
                   description='Register a method: {"method_card": {...}, "method": {...dependency manifest...}}.')
    def post(self, request):
        try:
            method = services.register_method(body=request.data, actor=request.user)
        except services.RunCardRejected as error:
            return rejection(error)
        return Response({"method_id": method.method_id, "name": method.name, "class": method.method_class,
                         "dependency_class": method.dependency_class or None}, status=status.HTTP_201_CREATED)


DisqualificationSerializer = inline_serializer("Disqualification", {
    "id": serializers.IntegerField(), "target": serializers.ChoiceField(choices=["run_card", "method"]),
    "run_card": serializers.UUIDField(allow_null=True), "method_id": serializers.CharField(allow_null=True),
    "reason": serializers.CharField(), "disqualified_at": serializers.DateTimeField(),
    "lifted_at": serializers.DateTimeField(allow_null=True), "lift_reason": serializers.CharField()})
ReasonSerializer = inline_serializer("DisqualificationReason", {"reason": serializers.CharField()})


def disqualification_view(found) -> dict:
    return {"id": found.pk, "target": found.target,
            "run_card": str(found.run_card.public_id) if found.run_card_id else None,
            "method_id": found.method.method_id if found.method_id else None, "reason": found.reason,
            "disqualified_at": found.disqualified_at, "lifted_at": found.lifted_at, "lift_reason": found.lift_reason}


def given_reason(request) -> str:
    return request.data.get("reason", "") if isinstance(request.data, dict) else ""


class RunCardDisqualificationView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=ReasonSerializer, responses={201: DisqualificationSerializer, 202: OpenApiTypes.OBJECT,
                                                        400: OpenApiTypes.OBJECT, 403: OpenApiTypes.OBJECT,
                                                        409: OpenApiTypes.OBJECT},
                   description="Disqualify a run card (benchmark specification §9.2): it leaves every ranking and "
                   "the install read's default order (`trust` = disqualified there) and stays reachable, marked. "
                   "Maintainers, or governance staff of the card's steward with a `secret` token. The reason is "
                   "required and public; the community's audit log records it. For governance staff it is a decision "
                   "of their organization (docs/governance.md): where k = 1 it applies at once (201); otherwise the "
                   "answer is 202 with the decision that k other members sign on its page.")
    def post(self, request, public_id):
        card = visible_card_or_error(request, public_id)
        verdict = check(request.user, "run_card.disqualify_here", card)
        if not verdict:
            raise PermissionDenied(verdict.reason)
        decision = decisions.disqualify_or_propose(actor=request.user, run_card=card, reason=given_reason(request))
        if decision is not None and decision.state != DecisionState.EXECUTED:
            return Response({"decision": str(decision.public_id), "state": decision.state,
                             "threshold": decision.threshold, "eligible": decision.eligible_count,
                             "payload_hash": decision.payload_hash,
                             "url": reverse("governance:decision", args=[decision.public_id])},
                            status=status.HTTP_202_ACCEPTED)
        found = Disqualification.objects.select_related("run_card__dataset_version__dataset", "method").get(
            run_card=card, lifted_at__isnull=True)
        return Response(disqualification_view(found), status=status.HTTP_201_CREATED)


class MethodDisqualificationView(APIView):
    permission_classes = [permissions.IsAdminUser]

    @extend_schema(request=ReasonSerializer, responses={201: DisqualificationSerializer, 400: OpenApiTypes.OBJECT,
                                                        409: OpenApiTypes.OBJECT},
                   description="Disqualify a method everywhere (maintainers only): every run card of it leaves every "
                   "ranking.")
    def post(self, request, method_id):
        method = get_object_or_404(Method, method_id=method_id)
        found = services.disqualify(actor=request.user, method=method, reason=given_reason(request))
        return Response(disqualification_view(found), status=status.HTTP_201_CREATED)


class LiftDisqualificationView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=ReasonSerializer, responses={200: DisqualificationSerializer, 400: OpenApiTypes.OBJECT,
                                                        404: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT},
                   description="Lift a disqualification, with the reason: the card (or the method's cards) are "
                   "ranked again; the disqualification stays on record.")
    def post(self, request, pk: int):
        found = get_object_or_404(Disqualification.objects.select_related("run_card__dataset_version__dataset",
                                                                          "method"), pk=pk)
        allowed = (check(request.user, "run_card.disqualify_here", found.run_card) if found.run_card_id
                   else check(request.user, "method.disqualify", found.method))
        if not allowed:
            raise NotFound("No such disqualification among those you may lift.")
        found = services.lift_disqualification(actor=request.user, disqualification=found,
                                               reason=given_reason(request))
        return Response(disqualification_view(found))
