
from django.contrib import messages
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import render

from corpus.labels import DOMAIN_LABELS, SEGMENT_LABELS, choice_label
from corpus.models import Domain
from corpus.views import withdrawn_response

from . import selectors


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
    query = selectors.LeaderboardQuery.from_params(request.GET)
    rows, page, ranking_cache_key = [], None, None
    if not query.errors:
        ranking = selectors.leaderboard_page(request.user, query, request.GET.get("page"))
        rows, page, ranking_cache_key = ranking.rows, ranking.page, ranking.cache_key
    params = request.GET.copy()
    params.pop("page", None)
    other = selectors.other_standard(request.user, query) if not rows and not query.errors else None
    return render(request, "leaderboard/leaderboard.html", {
        "query": query, "rows": rows, "page": page, "query_string": params.urlencode(), "other_standard": other,
        "ranking_cache_key": ranking_cache_key,
        "domain_label": choice_label("domain", query.domain) if query.domain in Domain.values else "",
        "standards": list(selectors.STANDARDS), "domains": list(DOMAIN_LABELS.items()),
        "segments": list(SEGMENT_LABELS.items()),
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
        "domain_scores": [(choice_label("domain", score.domain), score)
                          for score in card.domain_scores.order_by("domain")],
    })

