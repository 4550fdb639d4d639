"""Reviewers' sign-offs on declared dependencies and rights holders' permissions for A2 dependencies: evidence,
append-only (a PostgreSQL trigger refuses UPDATE and DELETE)."""

import django.db.models.deletion
import django.utils.timezone
import submissions.models
from django.conf import settings
from django.db import migrations, models

from common.append_only import append_only_triggers


class Migration(migrations.Migration):

    dependencies = [
        ('submissions', '0004_submission_development_data'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='DependencySignOff',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('dependency_id', models.CharField(help_text="The dependency's id in method.json.", max_length=200)),
                ('manifest_sha256', models.CharField(help_text='The manifest the sign-off was given on.', max_length=64)),
                ('license_checked', models.BooleanField(help_text="The reviewer checked the dependency's licence.")),
                ('source_checked', models.BooleanField(help_text='The reviewer checked where the dependency comes from.')),
                ('comment', models.TextField(blank=True)),
                ('signed_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('reviewer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('submission', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='sign_offs', to='submissions.methodsubmission')),
            ],
            options={
                'ordering': ['submission', 'dependency_id', '-signed_at'],
                'constraints': [models.UniqueConstraint(fields=('submission', 'dependency_id', 'manifest_sha256'), name='signoff_once_per_manifest'), models.CheckConstraint(condition=models.Q(('license_checked', True), ('source_checked', True)), name='signoff_licence_and_source_checked'), models.CheckConstraint(condition=models.Q(models.Q(('dependency_id', ''), _negated=True), models.Q(('manifest_sha256', ''), _negated=True)), name='signoff_names_dependency_and_manifest')],
            },
        ),
        migrations.CreateModel(
            name='RightsHolderPermission',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('dependency_id', models.CharField(help_text="The A2 dependency's id in method.json.", max_length=200)),
                ('rights_holder', models.CharField(help_text='Who holds the rights and gave the permission.', max_length=300)),
                ('document', models.FileField(blank=True, max_length=255, upload_to=submissions.models.permission_document_path)),
                ('document_name', models.CharField(blank=True, help_text="The uploaded file's original name.", max_length=255)),
                ('document_reference', models.CharField(blank=True, help_text='A URL or an archive reference.', max_length=500)),
                ('notes', models.TextField(blank=True)),
                ('recorded_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('recorded_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('submission', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='rights_permissions', to='submissions.methodsubmission')),
            ],
            options={
                'ordering': ['submission', 'dependency_id'],
                'constraints': [models.UniqueConstraint(fields=('submission', 'dependency_id'), name='rights_permission_once'), models.CheckConstraint(condition=models.Q(models.Q(('document', ''), _negated=True), models.Q(('document_reference', ''), _negated=True), _connector='OR'), name='rights_permission_documented'), models.CheckConstraint(condition=models.Q(models.Q(('rights_holder', ''), _negated=True), models.Q(('dependency_id', ''), _negated=True)), name='rights_permission_names_holder')],
            },
        ),
        append_only_triggers("submissions_dependencysignoff", "submissions_rightsholderpermission"),
    ]
