from django.urls import path

from . import calibration_views, views

app_name = "review"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("c/<uuid:public_id>/", views.campaign_start, name="campaign_start"),
    path("c/<uuid:public_id>/done/", views.campaign_done, name="campaign_done"),
    path("c/<uuid:public_id>/undo/", views.undo, name="undo"),
    path("c/<uuid:public_id>/upcoming/", views.upcoming, name="upcoming"),
    path("c/<uuid:public_id>/shell/", views.offline_shell, name="offline_shell"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("items/<uuid:public_id>/", views.rate, name="rate"),
    path("campaigns/", views.campaigns, name="campaigns"),
    path("campaigns/new/<uuid:public_id>/", views.campaign_new, name="campaign_new"),
    path("campaigns/<uuid:public_id>/", views.campaign_detail, name="campaign"),
    path("campaigns/<uuid:public_id>/status/", views.campaign_status, name="campaign_status"),
    path("campaigns/<uuid:public_id>/speakers/", views.campaign_speakers, name="campaign_speakers"),
    path("campaigns/<uuid:public_id>/decision/", views.decision, name="decision"),
    path("campaigns/<uuid:public_id>/speakers/<int:speaker_id>/exclusion/", views.speaker_exclusion,
         name="speaker_exclusion"),
    path("campaigns/<uuid:public_id>/ratings.<str:file_format>", views.ratings_export, name="ratings_export"),
    path("orgs/<slug:slug>/gate/", views.gate_policy, name="gate_policy"),
    path("orgs/<slug:slug>/calibration/", calibration_views.calibration, name="calibration"),
    path("orgs/<slug:slug>/rating-examples/", views.rating_examples, name="rating_examples"),
    path("campaigns/<uuid:public_id>/instructions/", views.campaign_guidance, name="campaign_guidance"),
    path("campaigns/<uuid:public_id>/timesheet/", views.timesheet, name="timesheet"),
    path("campaigns/<uuid:public_id>/timesheet.<str:file_format>", views.timesheet_export, name="timesheet_export"),
    path("orgs/<slug:slug>/pay/", views.pay_policy, name="pay_policy"),
    path("me/", views.my_ratings, name="my_ratings"),
    path("me/credit/<slug:slug>/", views.my_credit, name="my_credit"),
    path("me/campaigns/<uuid:public_id>/withdraw/", views.withdraw, name="withdraw"),
    path("me/withdraw-all/", views.withdraw_all, name="withdraw_all"),
    path("me/delete-account/", views.delete_account, name="delete_account"),
]
