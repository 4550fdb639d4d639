from django.db import migrations, models


def counted_signers_from_the_audit_log(apps, schema_editor):
    """An executed decision's counted signers, as its `decision.executed` audit event recorded them."""
    Decision = apps.get_model("governance", "Decision")
    AuditEvent = apps.get_model("organizations", "AuditEvent")
    executed = {str(public_id): pk for pk, public_id in
                Decision.objects.filter(state="executed").values_list("pk", "public_id")}
    if not executed:
        return
    events = AuditEvent.objects.filter(action="decision.executed").values_list("details", flat=True)
    for details in events.iterator():
        pk = executed.get(str(details.get("decision", "")))
        if pk is not None and isinstance(details.get("signers"), list):
            Decision.objects.filter(pk=pk).update(counted_signers=details["signers"])


class Migration(migrations.Migration):

    dependencies = [
        ('governance', '0006_decisions'),
        ('organizations', '0016_organization_name_visible'),
    ]

    operations = [
        migrations.AddField(
            model_name='decision',
            name='counted_signers',
            field=models.JSONField(blank=True, default=list, help_text='The user ids of the members whose approvals executed it, as counted then: the record keeps them whatever roles those members hold later.'),
        ),
        migrations.RunPython(counted_signers_from_the_audit_log, migrations.RunPython.noop),
    ]
