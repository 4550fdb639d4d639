from django.urls import path

from . import views

app_name = "elicitation"

urlpatterns = [
    path("", views.home, name="home"),
    path("new/", views.batch_new, name="batch_new"),
    path("b/<uuid:public_id>/", views.batch_detail, name="batch"),
    path("b/<uuid:public_id>/sources/", views.batch_sources, name="batch_sources"),
    path("b/<uuid:public_id>/status/", views.batch_status, name="batch_status"),
    path("b/<uuid:public_id>/guideline/", views.batch_guideline, name="batch_guideline"),
    path("b/<uuid:public_id>/corpus/", views.batch_into_corpus, name="batch_into_corpus"),
    path("b/<uuid:public_id>/dashboard/", views.dashboard, name="dashboard"),
    path("b/<uuid:public_id>/dashboard.csv", views.dashboard_export, name="dashboard_export"),
    path("b/<uuid:public_id>/pay/", views.batch_pay, name="batch_pay"),
    path("b/<uuid:public_id>/versions/<int:pk>/card.md", views.version_card, name="version_card"),
    path("b/<uuid:public_id>/translate/", views.translate_start, name="translate_start"),
    path("b/<uuid:public_id>/upcoming/", views.upcoming, name="upcoming"),
    path("b/<uuid:public_id>/shell/", views.offline_shell, name="offline_shell"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("b/<uuid:public_id>/verify/", views.verify_start, name="verify_start"),
    path("b/<uuid:public_id>/verify/upcoming/", views.verify_upcoming, name="verify_upcoming"),
    path("sources/<uuid:public_id>/", views.translate, name="translate"),
    path("sources/<uuid:public_id>/skip/", views.skip, name="skip"),
    path("sources/<uuid:public_id>/release/", views.source_release, name="source_release"),
    path("translations/<uuid:public_id>/", views.verify, name="verify"),
    path("translations/<uuid:public_id>/conflict/", views.declare_conflict, name="declare_conflict"),
    path("analyses/<int:pk>/check/", views.analysis_check, name="analysis_check"),
    path("me/", views.my_work, name="my_work"),
    path("me/withdraw/", views.withdraw, name="withdraw"),
]
