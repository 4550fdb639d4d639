from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("", views.profile, name="profile"),
    path("public-name/", views.public_name, name="public_name"),
    path("tokens/", views.create_token, name="create_token"),
    path("tokens/<int:token_id>/revoke/", views.revoke_token, name="revoke_token"),
]
