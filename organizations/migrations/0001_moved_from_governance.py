"""Organizations, memberships, invitations and the audit log move here from `governance` in the migration state
only: the tables keep their names (db_table), so their rows, constraints and append-only trigger stay as they are.
Content types follow, so admin history and permissions keep pointing at the same models."""

import django.db.models.deletion
import django.utils.timezone
import organizations.models
from django.conf import settings
from common.moved_models import move_content_types
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('governance', '0004_method_submissions'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('auth', '0012_alter_user_first_name_max_length'),
        ('admin', '0003_logentry_add_action_flag_choices'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Organization',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=200)),
                    ('slug', models.SlugField(max_length=60, unique=True)),
                    ('languages', models.JSONField(blank=True, default=list, help_text='BCP 47 codes of the languages it stewards.')),
                    ('principles', models.TextField(blank=True, help_text='The principles it operates under, e.g. OCAP®, CARE.')),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ],
                options={
                    'db_table': 'governance_organization',
                    'ordering': ['name'],
                },
            ),
            migrations.CreateModel(
                name='Membership',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('role', models.CharField(choices=[('governance', 'Governance staff'), ('curator', 'Corpus curator'), ('speaker', 'Speaker')], max_length=20)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='organizations.organization')),
                ],
                options={
                    'db_table': 'governance_membership',
                    'ordering': ['organization__name', 'role'],
                    'constraints': [models.UniqueConstraint(fields=('user', 'organization', 'role'), name='membership_unique_role'), models.CheckConstraint(condition=models.Q(('role__in', ['governance', 'curator', 'speaker'])), name='membership_role_valid')],
                },
            ),
            migrations.CreateModel(
                name='Invitation',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('email', models.EmailField(max_length=254)),
                    ('role', models.CharField(choices=[('curator', 'Corpus curator'), ('speaker', 'Speaker')], max_length=20)),
                    ('token', models.CharField(default=organizations.models.new_invitation_token, max_length=64, unique=True)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('expires_at', models.DateTimeField(default=organizations.models.default_invitation_expiry)),
                    ('accepted_at', models.DateTimeField(blank=True, null=True)),
                    ('accepted_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('invited_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invitations', to='organizations.organization')),
                ],
                options={
                    'db_table': 'governance_invitation',
                    'ordering': ['-created_at'],
                    'constraints': [models.CheckConstraint(condition=models.Q(('role__in', ['curator', 'speaker'])), name='invitation_role_valid')],
                },
            ),
            migrations.CreateModel(
                name='AuditEvent',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('action', models.CharField(max_length=60)),
                    ('object_type', models.CharField(blank=True, max_length=60)),
                    ('object_id', models.CharField(blank=True, max_length=100)),
                    ('details', models.JSONField(blank=True, default=dict)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('previous_hash', models.CharField(max_length=64)),
                    ('hash', models.CharField(max_length=64, unique=True)),
                    ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('organization', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='audit_events', to='organizations.organization')),
                ],
                options={
                    'db_table': 'governance_auditevent',
                    'ordering': ['-id'],
                    'indexes': [models.Index(fields=['organization', 'action'], name='auditevent_org_action')],
                },
            ),
        ]),
        move_content_types("governance", "organizations", "organization", "membership", "invitation", "auditevent"),
    ]
