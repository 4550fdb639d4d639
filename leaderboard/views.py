"""The leaderboard, a run card's page, and disqualifying or reinstating a card or a method."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.errors import ApplicationError
from corpus.labels import DOMAIN_LABELS, SEGMENT_LABELS, choice_label
from corpus.models import Domain
from corpus.views import withdrawn_response
from governance.models import DecisionState
from organizations.permissions import permitted

from . import decisions, selectors, services
from .models import ConflictDeclaration, Disqualification, Method


def leaderboard(request):
    """The ranking. An anonymous visitor with no message waiting gets the whole page from the cache, under the
    leaderboard's state stamp (`selectors.leaderboard_page` says why that is never stale); others get the
    rendered ranking from it. Both are cached per interface language: a French visitor never gets the page an
    English one rendered."""
    key = None
    if not request.user.is_authenticated and not len(messages.get_messages(request)):
        key = selectors.whole_answer_key("page", request.get_full_path())
        html = cache.get(key) if key is not None else None
        if html is not None:
            return HttpResponse(html)
    response = leaderboard_response(request)
    if key is not None and response.status_code == 200:
        cache.set(key, response.content, selectors.LEADERBOARD_CACHE_SECONDS)
    return response


def leaderboard_response(request):
    """The rankings of one dataset version — the one asked for, or the one with the most verified cards — official
    before open, each scoring standard that has rows (the one asked for alone, paged)."""
    query = selectors.LeaderboardQuery.from_params(request.GET)
    context = {"query": query, "standards": list(selectors.STANDARDS), "domains": list(DOMAIN_LABELS.items()),
               "segments": list(SEGMENT_LABELS.items()), "rankings": selectors.RANKINGS}
    if query.errors:
        return render(request, "leaderboard/leaderboard.html", context, status=400)
    stamp = selectors.public_stamp(request.user)
    view = selectors.ranking_view(request.user, query, stamp)
    sections = selectors.ranking_sections(request.user, view, request.GET.get("page"), stamp=stamp)
    params = request.GET.copy()
    params.pop("page", None)
    shown = view.query
    empty = not any(section.ranked.rows for section in sections)
    kept = {"language_pair": query.language_pair, "scope": shown.scope, "segment": shown.segment,
            "domain": shown.domain, "sort": shown.sort}
    if shown.scope == "version":
        kept |= {"dataset": shown.dataset, "version": shown.version}

    def address(**changes) -> str:
        return "?" + urlencode({name: value for name, value in (kept | changes).items()
                                if value and not (name == "scope" and value == "version")
                                and not (name == "sort" and value == "primary")})

    return render(request, "leaderboard/leaderboard.html", context | {
        "view": view, "query_string": params.urlencode(), "empty": empty,
        "sections": [(section, address(ranking=section.query.ranking, standard=section.query.standard))
                     for section in sections],
        "single": bool(query.ranking) and query.standard_given,
        "version_links": [(choice, address(dataset=choice.dataset, version=choice.version, scope="",
                                           language_pair="")) for choice in view.choices[:50]],
        "pair_link": address(scope="pair", dataset="", version="", language_pair=(
            query.language_pair or (view.chosen.pair if view.chosen else ""))),
        "all_link": address(scope="all", dataset="", version="", language_pair=""),
        "other_standard": selectors.other_standard(request.user, query) if empty and query.standard_given else None,
        "domain_label": choice_label("domain", query.domain) if query.domain in Domain.values else "",
    })


def card_detail(request, public_id):
    card = selectors.visible_card(request.user, public_id)
    if card is None:
        withdrawn = selectors.withdrawn_card(public_id)
        if withdrawn is None:
            raise Http404("No such run card.")
        return withdrawn_response(request, withdrawn)
    results = selectors.visible_results(request.user, card)
    page = Paginator(results, 50).get_page(request.GET.get("page"))
    page.object_list = selectors.shown_results(request.user, page.object_list, where=request.path)
    return render(request, "leaderboard/card_detail.html", {
        "card": card,
        "row": selectors.row_view(card, None),
        "results": page,
        "hidden_results": card.result_count - results.count(),
        "others": selectors.same_setup_cards(request.user, card)[:20],
        "domain_scores": [(choice_label("domain", score.domain), score)
                          for score in card.domain_scores.order_by("domain")],
    })



@login_required
@require_POST
def disqualify_card(request, public_id):
    card = selectors.visible_card(request.user, public_id)
    if card is None or not permitted(request.user, "run_card.disqualify_here", card):
        raise Http404("No such run card among those you may disqualify.")
    try:
        decision = decisions.disqualify_or_propose(actor=request.user, run_card=card,
                                                   reason=request.POST.get("reason", ""))
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        if decision is not None and decision.state != DecisionState.EXECUTED:
            messages.success(request, _("Proposed: the disqualification waits for %(k)s signatures of other "
                                        "governance staff.") % {"k": decision.threshold})
            return redirect("governance:decision", public_id=decision.public_id)
        messages.success(request, _("The run card is disqualified: it left every ranking."))
    return redirect("leaderboard:card", public_id=card.public_id)


@login_required
@require_POST
def disqualify_method(request, method_id: str):
    method = get_object_or_404(Method, method_id=method_id)
    if not permitted(request.user, "method.disqualify", method):
        raise Http404("No such method among those you may disqualify.")
    try:
        services.disqualify(actor=request.user, method=method, reason=request.POST.get("reason", ""))
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("The method is disqualified: its run cards left every ranking."))
    return redirect("submissions:method", method_id=method.method_id)


@login_required
@require_POST
def lift_disqualification(request, pk: int):
    found = get_object_or_404(Disqualification.objects.select_related("run_card__dataset_version__dataset",
                                                                      "method"), pk=pk)
    allowed = (permitted(request.user, "run_card.disqualify_here", found.run_card) if found.run_card
               else permitted(request.user, "method.disqualify", found.method))
    if not allowed:
        raise Http404("No such disqualification among those you may lift.")
    try:
        services.lift_disqualification(actor=request.user, disqualification=found,
                                       reason=request.POST.get("reason", ""))
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("The disqualification is lifted: it is ranked again."))
    if found.run_card is not None:
        return redirect("leaderboard:card", public_id=found.run_card.public_id)
    return redirect("submissions:method", method_id=found.method.method_id)


@login_required
@require_POST
def declare_conflict(request, public_id=None, method_id: str | None = None):
    """The signed-in person declares their own conflict of interest with a run card (they can see) or a method."""
    card = method = None
    if public_id is not None:
        card = selectors.visible_card(request.user, public_id)
        if card is None:
            raise Http404("No such run card.")
    else:
        method = get_object_or_404(Method, method_id=method_id)
    try:
        services.declare_conflict(actor=request.user, run_card=card, method=method,
                                  reason=request.POST.get("reason", ""))
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Conflict of interest declared: you will not be asked to review it, nor record "
                                    "a decision on it."))
    return conflict_target_page(card, method)


@login_required
@require_POST
def withdraw_conflict(request, pk: int):
    found = get_object_or_404(ConflictDeclaration.objects.select_related("run_card", "method"), pk=pk,
                              user=request.user)
    try:
        services.withdraw_conflict(actor=request.user, declaration=found)
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Your declaration of a conflict of interest is withdrawn."))
    return conflict_target_page(found.run_card, found.method)


def conflict_target_page(card, method):
    if card is not None:
        return redirect(reverse("leaderboard:card", kwargs={"public_id": card.public_id}) + "#conflict")
    return redirect(reverse("submissions:method", kwargs={"method_id": method.method_id}) + "#conflict")
