from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from corpus import api as corpus_api

from . import views

router = DefaultRouter()
router.register("datasets", corpus_api.DatasetViewSet, basename="dataset")
router.register("dataset-versions", corpus_api.DatasetVersionViewSet, basename="dataset-version")
router.register("entries", corpus_api.EntryViewSet, basename="entry")

api_urls = [
    path("corpus-imports/", corpus_api.CorpusImportView.as_view(), name="corpus-import"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("", include(router.urls)),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("datasets/", include("corpus.urls")),
    path("accounts/profile/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("", include("governance.urls")),
    path("api/v1/", include(api_urls)),
    path("admin/", admin.site.urls),
]
