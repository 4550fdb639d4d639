from django.urls import path

from . import views

app_name = "speakers"

urlpatterns = [
    path("", views.my_languages, name="my_languages"),
    path("skills/<int:pk>/", views.change_skill, name="change_skill"),
    path("skills/<int:pk>/remove/", views.remove_skill, name="remove_skill"),
    path("vouch/<slug:slug>/", views.vouch, name="vouch"),
    path("attestations/<int:pk>/withdraw/", views.withdraw_attestation, name="withdraw_attestation"),
    path("orgs/<slug:slug>/", views.organization_speakers, name="organization"),
    path("orgs/<slug:slug>/attest/<int:skill_pk>/", views.attest, name="attest"),
    path("orgs/<slug:slug>/practice/", views.practice_settings, name="practice_settings"),
    path("orgs/<slug:slug>/practice/items/new/", views.practice_item, name="practice_item_new"),
    path("orgs/<slug:slug>/practice/items/<int:pk>/", views.practice_item, name="practice_item"),
    path("orgs/<slug:slug>/practice/items/<int:pk>/retire/", views.retire_practice_item, name="retire_practice_item"),
    path("practice/<slug:slug>/", views.practice, name="practice"),
    path("practice/<slug:slug>/<int:attempt>/result/", views.practice_result, name="practice_result"),
    path("practice/<slug:slug>/<int:attempt>/<int:position>/", views.practice_step, name="practice_step"),
]
