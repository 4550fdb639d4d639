import hashlib

from django.contrib import messages
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import render

from corpus.models import Domain, Segment
from corpus.views import withdrawn_response

from . import selectors


def leaderboard(request):
    """The ranking. An anonymous visitor with no message waiting gets the whole page from the cache, under the
    leaderboard's state stamp (`selectors.leaderboard_page` says why that is never stale); others get the
    rendered ranking from it."""
    key = None
    if not request.user.is_authenticated and not len(messages.get_messages(request)):
        stamp = selectors.leaderboard_stamp()
        if stamp is not None:
            key = f"leaderboard-page:{stamp}:{hashlib.sha256(request.get_full_path().encode()).hexdigest()[:32]}"
            html = cache.get(key)
            if html is not None:
                return HttpResponse(html)
    response = leaderboard_response(request)
    if key is not None and response.status_code == 200:
        cache.set(key, response.content, selectors.LEADERBOARD_CACHE_SECONDS)
    return response


def leaderboard_response(request):
    query = selectors.LeaderboardQuery.from_params(request.GET)
    rows, page, ranking_cache_key = [], None, None
    if not query.errors:
        ranking = selectors.leaderboard_page(request.user, query, request.GET.get("page"))
        rows, page, ranking_cache_key = ranking.rows, ranking.page, ranking.cache_key
    params = request.GET.copy()
    params.pop("page", None)
    return render(request, "leaderboard/leaderboard.html", {
        "query": query, "rows": rows, "page": page, "query_string": params.urlencode(),
        "ranking_cache_key": ranking_cache_key,
        "standards": list(selectors.STANDARDS), "domains": Domain.choices, "segments": Segment.choices,
    }, status=400 if query.errors else 200)


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
        "domain_scores": [(Domain(score.domain).label, score) for score in card.domain_scores.order_by("domain")],
    })

