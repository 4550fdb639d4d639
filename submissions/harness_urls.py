"""`MT_EVAL_SUPABASE_URL=https://<host>/supabase`: the paths the upstream harness appends to it."""

from django.urls import path

from . import harness_api

app_name = "harness"
urlpatterns = [
    path("rest/v1/run_cards", harness_api.run_cards, name="run_cards"),
    path("rest/v1/run_card_entries", harness_api.run_card_entries, name="run_card_entries"),
    path("rest/v1/datasets", harness_api.datasets, name="datasets"),
    path("functions/v1/submit-run", harness_api.anonymous_submit, name="anonymous_submit"),
    path("auth/v1/token", harness_api.token, name="token"),
]
