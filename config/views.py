from django.shortcuts import render

from corpus.selectors import visible_versions


def home(request):
    return render(request, "home.html", {"versions": visible_versions(request.user).order_by("-imported_at")[:5]})
