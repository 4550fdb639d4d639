from django.urls import path

from common import offline

from .views.curation import (
    batch_detail,
    batch_guideline,
    batch_into_corpus,
    batch_new,
    batch_sources,
    batch_status,
    source_release,
    version_card,
)
from .views.figures import batch_pay, dashboard, dashboard_export
from .views.own_work import home, my_work, withdraw
from .views.shared import service_worker
from .views.translating import offline_shell, skip, translate, translate_start, upcoming
from .views.verifying import analysis_check, declare_conflict, verify, verify_shell, verify_start, verify_upcoming

app_name = "elicitation"

urlpatterns = [
    path("", home, name="home"),
    path("new/", batch_new, name="batch_new"),
    path("b/<uuid:public_id>/", batch_detail, name="batch"),
    path("b/<uuid:public_id>/sources/", batch_sources, name="batch_sources"),
    path("b/<uuid:public_id>/status/", batch_status, name="batch_status"),
    path("b/<uuid:public_id>/guideline/", batch_guideline, name="batch_guideline"),
    path("b/<uuid:public_id>/corpus/", batch_into_corpus, name="batch_into_corpus"),
    path("b/<uuid:public_id>/dashboard/", dashboard, name="dashboard"),
    path("b/<uuid:public_id>/dashboard.csv", dashboard_export, name="dashboard_export"),
    path("b/<uuid:public_id>/pay/", batch_pay, name="batch_pay"),
    path("b/<uuid:public_id>/versions/<int:pk>/card.md", version_card, name="version_card"),
    path("b/<uuid:public_id>/translate/", translate_start, name="translate_start"),
    path("b/<uuid:public_id>/upcoming/", upcoming, name="upcoming"),
    path("b/<uuid:public_id>/shell/", offline_shell, name="offline_shell"),
    path("sw.js", service_worker, name="service_worker"),
    path("offline/", offline.offline_notice, name="offline_notice"),
    path("b/<uuid:public_id>/verify/", verify_start, name="verify_start"),
    path("b/<uuid:public_id>/verify/upcoming/", verify_upcoming, name="verify_upcoming"),
    path("b/<uuid:public_id>/verify/shell/", verify_shell, name="verify_shell"),
    path("sources/<uuid:public_id>/", translate, name="translate"),
    path("sources/<uuid:public_id>/skip/", skip, name="skip"),
    path("sources/<uuid:public_id>/release/", source_release, name="source_release"),
    path("translations/<uuid:public_id>/", verify, name="verify"),
    path("translations/<uuid:public_id>/conflict/", declare_conflict, name="declare_conflict"),
    path("analyses/<int:pk>/check/", analysis_check, name="analysis_check"),
    path("me/", my_work, name="my_work"),
    path("me/withdraw/", withdraw, name="withdraw"),
]
