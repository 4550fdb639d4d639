from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from corpus import api as corpus_api
from elicitation import api as elicitation_api
from languages.activation import InterfaceJavaScriptCatalog
from leaderboard import api as leaderboard_api

from . import views

# The admin signs in through allauth's form, which asks for the second factor.
admin.site.login = secure_admin_login(admin.site.login)

router = DefaultRouter()
router.register("datasets", corpus_api.DatasetViewSet, basename="dataset")
router.register("dataset-versions", corpus_api.DatasetVersionViewSet, basename="dataset-version")
router.register("entries", corpus_api.EntryViewSet, basename="entry")

api_urls = [
    path("corpus-imports/", corpus_api.CorpusImportView.as_view(), name="corpus-import"),
    path("elicitation/batches/<uuid:public_id>/sources/", elicitation_api.BatchSourcesView.as_view(),
         name="elicitation-batch-sources"),
    path("run-cards/", leaderboard_api.RunCardListView.as_view(), name="run-card-list"),
    path("run-cards/<uuid:public_id>/", leaderboard_api.RunCardDetailView.as_view(), name="run-card-detail"),
    path("run-cards/<uuid:public_id>/results/", leaderboard_api.RunCardResultsView.as_view(), name="run-card-results"),
    path("run-cards/<uuid:public_id>/gds-verification/", leaderboard_api.GdsVerificationView.as_view(),
         name="run-card-gds-verification"),
    path("run-cards/<uuid:public_id>/disqualification/", leaderboard_api.RunCardDisqualificationView.as_view(),
         name="run-card-disqualification"),
    path("methods/<str:method_id>/disqualification/", leaderboard_api.MethodDisqualificationView.as_view(),
         name="method-disqualification"),
    path("disqualifications/<int:pk>/lift/", leaderboard_api.LiftDisqualificationView.as_view(),
         name="disqualification-lift"),
    path("leaderboard/", leaderboard_api.LeaderboardView.as_view(), name="leaderboard-api"),
    path("leaderboard/<uuid:public_id>/method-config/", leaderboard_api.MethodConfigView.as_view(),
         name="leaderboard-method-config"),
    path("methods/", leaderboard_api.MethodListView.as_view(), name="method-list"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("", include(router.urls)),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("jsi18n/", InterfaceJavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("datasets/", include("corpus.urls")),
    path("leaderboard/", include("leaderboard.urls")),
    path("review/me/delete-account/", views.delete_account, name="delete_account"),
    path("review/me/withdraw-all/", views.withdraw_all, name="withdraw_all"),
    path("review/", include("review.urls")),
    path("elicit/", include("elicitation.urls")),
    path("speakers/", include("speakers.urls")),
    path("accounts/profile/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("", include("organizations.urls")),
    path("", include("governance.urls")),
    path("", include("languages.urls")),
    path("", include("submissions.urls")),
    path("api/v1/", include(api_urls)),
    path("supabase/", include("submissions.harness.urls")),
    path("admin/", admin.site.urls),
]
