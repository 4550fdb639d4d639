"""`MT_EVAL_SUPABASE_URL=https://<host>/supabase`: the paths the upstream harness appends to it."""

from django.urls import path

from . import views

app_name = "harness"
urlpatterns = [
    path("rest/v1/run_cards", views.run_cards, name="run_cards"),
    path("rest/v1/run_card_entries", views.run_card_entries, name="run_card_entries"),
    path("rest/v1/datasets", views.datasets, name="datasets"),
    path("rest/v1/trading_card_index", views.trading_card_index, name="trading_card_index"),
    path("rest/v1/trading_card_detail", views.trading_card_detail, name="trading_card_detail"),
    path("rest/v1/rpc/queue_top", views.queue_top, name="queue_top"),
    path("rest/v1/<path:name>", views.unknown_table, name="unknown_table"),
    path("functions/v1/submit-run", views.anonymous_submit, name="anonymous_submit"),
    path("auth/v1/token", views.token, name="token"),
]
