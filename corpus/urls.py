from django.urls import path

from . import bulk_views, label_views, views

app_name = "corpus"

urlpatterns = [
    path("", views.dataset_list, name="datasets"),
    path("import/", views.import_corpus, name="import"),
    path("d/<str:identifier>/", views.dataset_detail, name="dataset"),
    path("d/<str:identifier>/consent/", views.consent, name="consent"),
    path("d/<str:identifier>/labels/", label_views.labels, name="labels"),
    path("d/<str:identifier>/consent/<int:pk>/revoke/", views.consent_revoke, name="consent_revoke"),
    path("d/<str:identifier>/consent/<int:pk>/document/", views.consent_document, name="consent_document"),
    path("versions/<int:pk>/", views.version_detail, name="version"),
    path("versions/<int:pk>/entries/", views.entry_list, name="entries"),
    path("versions/<int:pk>/entries/new/", views.entry_create, name="entry_create"),
    path("versions/<int:pk>/export.json", views.export_version, name="export"),
    path("versions/<int:pk>/next-version/", views.next_version, name="next_version"),
    path("versions/<int:pk>/freeze/", views.freeze, name="freeze"),
    path("versions/<int:pk>/publication/", views.set_public, name="set_public"),
    path("versions/<int:pk>/held-out/activate/", views.activate_held_out, name="activate_held_out"),
    path("versions/<int:pk>/rotate-segments/", views.rotate_segments, name="rotate_segments"),
    path("versions/<int:pk>/bulk-import/", bulk_views.bulk_import, name="bulk_import"),
    path("versions/<int:pk>/bulk-import/<int:staged_pk>/confirm/", bulk_views.bulk_import_confirm,
         name="bulk_import_confirm"),
    path("versions/<int:pk>/export/entries.<str:file_format>", bulk_views.bulk_export, name="bulk_export"),
    path("entries/<int:pk>/", views.entry_detail, name="entry"),
    path("entries/<int:pk>/edit/", views.entry_edit, name="entry_edit"),
]
