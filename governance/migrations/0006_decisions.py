"""Decisions, their signatures (append-only, refused by a trigger as well) and the policy setting k per kind."""

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.conf import settings
from django.db import migrations, models

from common.append_only import append_only_triggers


class Migration(migrations.Migration):

    dependencies = [
        ('governance', '0005_models_moved_to_organizations_and_submissions'),
        ('organizations', '0010_decision_audit_actions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Decision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('public_id', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ('kind', models.CharField(max_length=60)),
                ('subject', models.CharField(help_text="What it is about, as its kind names it (e.g. a submission's public id).", max_length=200)),
                ('summary', models.CharField(max_length=300)),
                ('payload', models.JSONField()),
                ('payload_hash', models.CharField(max_length=64)),
                ('revision', models.PositiveIntegerField(default=1)),
                ('threshold', models.PositiveSmallIntegerField()),
                ('eligible_count', models.PositiveSmallIntegerField()),
                ('fast', models.BooleanField(default=False, help_text='A restriction: one signature, applied at once.')),
                ('state', models.CharField(choices=[('open', 'Open for signatures'), ('executed', 'Executed'), ('rejected', 'Rejected'), ('expired', 'Expired'), ('withdrawn', 'Withdrawn by its proposer'), ('failed', 'Could not be executed')], default='open', max_length=12)),
                ('opened_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('executable_after', models.DateTimeField()),
                ('expires_at', models.DateTimeField()),
                ('closed_at', models.DateTimeField(blank=True, null=True)),
                ('outcome_note', models.TextField(blank=True)),
                ('executed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('organization', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='decisions', to='organizations.organization')),
                ('proposer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-opened_at', '-pk'],
            },
        ),
        migrations.CreateModel(
            name='DecisionPolicy',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(max_length=60)),
                ('threshold', models.PositiveSmallIntegerField(default=1, help_text='k: the approvals a decision needs.')),
                ('min_open_hours', models.PositiveIntegerField(blank=True, help_text="The least time a decision stays open before it executes (k ≥ 2); empty: the kind's default.", null=True)),
                ('changed_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('organization', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='decision_policies', to='organizations.organization')),
            ],
            options={
                'ordering': ['organization', 'kind'],
            },
        ),
        migrations.CreateModel(
            name='Signature',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('verdict', models.CharField(choices=[('approve', 'Approve'), ('reject', 'Reject')], max_length=8)),
                ('checked', models.JSONField(blank=True, default=list, help_text='The checks the signer says they made.')),
                ('comment', models.TextField(blank=True)),
                ('revision', models.PositiveIntegerField()),
                ('payload_hash', models.CharField(max_length=64)),
                ('as_proposer', models.BooleanField(default=False, help_text='The proposal itself, where one signature decides (k = 1, or a restriction).')),
                ('signed_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('decision', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='signatures', to='governance.decision')),
                ('signer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['signed_at', 'pk'],
            },
        ),
        migrations.AddIndex(
            model_name='decision',
            index=models.Index(fields=['organization', 'state'], name='decision_org_state'),
        ),
        migrations.AddConstraint(
            model_name='decision',
            constraint=models.CheckConstraint(condition=models.Q(('threshold__gte', 1)), name='decision_threshold_positive'),
        ),
        migrations.AddConstraint(
            model_name='decision',
            constraint=models.CheckConstraint(condition=models.Q(('state__in', ['open', 'executed', 'rejected', 'expired', 'withdrawn', 'failed'])), name='decision_state_valid'),
        ),
        migrations.AddConstraint(
            model_name='decision',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('closed_at__isnull', True), ('state', 'open')), models.Q(models.Q(('state', 'open'), _negated=True), ('closed_at__isnull', False)), _connector='OR'), name='decision_closed_when_not_open'),
        ),
        migrations.AddConstraint(
            model_name='decision',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('state', 'executed'), _negated=True), ('executed_by__isnull', False), _connector='OR'), name='decision_executed_by_someone'),
        ),
        migrations.AddConstraint(
            model_name='decision',
            constraint=models.UniqueConstraint(condition=models.Q(('state', 'open')), fields=('organization', 'kind', 'subject'), name='decision_one_open_per_subject'),
        ),
        migrations.AddConstraint(
            model_name='decisionpolicy',
            constraint=models.UniqueConstraint(fields=('organization', 'kind'), name='decisionpolicy_one_per_kind'),
        ),
        migrations.AddConstraint(
            model_name='decisionpolicy',
            constraint=models.CheckConstraint(condition=models.Q(('threshold__gte', 1), ('threshold__lte', 50)), name='decisionpolicy_threshold_range'),
        ),
        migrations.AddConstraint(
            model_name='signature',
            constraint=models.UniqueConstraint(fields=('decision', 'signer', 'revision'), name='signature_once_per_revision'),
        ),
        migrations.AddConstraint(
            model_name='signature',
            constraint=models.CheckConstraint(condition=models.Q(('verdict__in', ['approve', 'reject'])), name='signature_verdict_valid'),
        ),
        migrations.AddConstraint(
            model_name='signature',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('verdict', 'reject'), _negated=True), models.Q(('comment', ''), _negated=True), _connector='OR'), name='signature_reject_has_comment'),
        ),
        append_only_triggers("governance_signature"),
    ]
