from django.urls import path

from . import views

app_name = "corpus"

urlpatterns = [
    path("", views.dataset_list, name="datasets"),
    path("import/", views.import_corpus, name="import"),
    path("d/<str:identifier>/", views.dataset_detail, name="dataset"),
    path("versions/<int:pk>/", views.version_detail, name="version"),
    path("versions/<int:pk>/entries/", views.entry_list, name="entries"),
    path("versions/<int:pk>/entries/new/", views.entry_create, name="entry_create"),
    path("versions/<int:pk>/export.json", views.export_version, name="export"),
    path("versions/<int:pk>/next-version/", views.next_version, name="next_version"),
    path("versions/<int:pk>/publication/", views.set_public, name="set_public"),
    path("entries/<int:pk>/", views.entry_detail, name="entry"),
    path("entries/<int:pk>/edit/", views.entry_edit, name="entry_edit"),
]
