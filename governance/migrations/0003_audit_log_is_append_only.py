"""On PostgreSQL the database itself refuses to change or remove audit events (common.append_only).

TRUNCATE is not refused (test databases are flushed with it); an emptied log verifies as an empty
chain, so backups of the log matter (docs/deploy.md).
"""

from django.db import migrations

from common.append_only import append_only_triggers


class Migration(migrations.Migration):
    dependencies = [("governance", "0002_auditevent")]

    operations = [append_only_triggers("governance_auditevent")]
