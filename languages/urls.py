from django.urls import path

from . import views

app_name = "languages"

urlpatterns = [
    path("language/", views.choose_language, name="choose"),
    path("orgs/<slug:slug>/languages/", views.community_languages, name="community_languages"),
    path("orgs/<slug:slug>/languages/<str:code>/", views.translate, name="translate"),
]
