from django.shortcuts import render

from corpus.selectors import visible_versions
from review.selectors import waiting_item_count


def home(request):
    return render(request, "home.html", {
        "versions": visible_versions(request.user).order_by("-imported_at")[:5],
        "waiting_items": waiting_item_count(request.user),
    })
