from django.urls import path

from common import offline

from . import calibration_views
from .views.campaigns import (
    campaign_detail,
    campaign_guidance,
    campaign_new,
    campaign_speakers,
    campaign_status,
    campaigns,
    rating_examples,
    ratings_export,
)
from .views.decisions import decision, gate_policy, speaker_exclusion
from .views.pay import pay_policy, timesheet, timesheet_export
from .views.rating import campaign_done, campaign_start, offline_shell, queue, rate, service_worker, undo, upcoming
from .views.speaker_rights import my_credit, my_ratings, withdraw

app_name = "review"

urlpatterns = [
    path("", queue, name="queue"),
    path("c/<uuid:public_id>/", campaign_start, name="campaign_start"),
    path("c/<uuid:public_id>/done/", campaign_done, name="campaign_done"),
    path("c/<uuid:public_id>/undo/", undo, name="undo"),
    path("c/<uuid:public_id>/upcoming/", upcoming, name="upcoming"),
    path("c/<uuid:public_id>/shell/", offline_shell, name="offline_shell"),
    path("sw.js", service_worker, name="service_worker"),
    path("offline/", offline.offline_notice, name="offline_notice"),
    path("items/<uuid:public_id>/", rate, name="rate"),
    path("campaigns/", campaigns, name="campaigns"),
    path("campaigns/new/<uuid:public_id>/", campaign_new, name="campaign_new"),
    path("campaigns/<uuid:public_id>/", campaign_detail, name="campaign"),
    path("campaigns/<uuid:public_id>/status/", campaign_status, name="campaign_status"),
    path("campaigns/<uuid:public_id>/speakers/", campaign_speakers, name="campaign_speakers"),
    path("campaigns/<uuid:public_id>/decision/", decision, name="decision"),
    path("campaigns/<uuid:public_id>/speakers/<int:speaker_id>/exclusion/", speaker_exclusion,
         name="speaker_exclusion"),
    path("campaigns/<uuid:public_id>/ratings.<str:file_format>", ratings_export, name="ratings_export"),
    path("orgs/<slug:slug>/gate/", gate_policy, name="gate_policy"),
    path("orgs/<slug:slug>/calibration/", calibration_views.calibration, name="calibration"),
    path("orgs/<slug:slug>/rating-examples/", rating_examples, name="rating_examples"),
    path("campaigns/<uuid:public_id>/instructions/", campaign_guidance, name="campaign_guidance"),
    path("campaigns/<uuid:public_id>/timesheet/", timesheet, name="timesheet"),
    path("campaigns/<uuid:public_id>/timesheet.<str:file_format>", timesheet_export, name="timesheet_export"),
    path("orgs/<slug:slug>/pay/", pay_policy, name="pay_policy"),
    path("me/", my_ratings, name="my_ratings"),
    path("me/credit/<slug:slug>/", my_credit, name="my_credit"),
    path("me/campaigns/<uuid:public_id>/withdraw/", withdraw, name="withdraw"),
]
