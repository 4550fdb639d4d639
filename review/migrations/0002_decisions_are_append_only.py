"""Decisions are evidence: on PostgreSQL the database refuses to change or delete them too."""

from django.db import migrations

from common.append_only import append_only_triggers


class Migration(migrations.Migration):
    dependencies = [("review", "0001_initial")]

    operations = [append_only_triggers("review_decision")]
