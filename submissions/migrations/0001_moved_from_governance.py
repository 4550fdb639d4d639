"""Participation terms, their acceptances, method submissions, their history and ownership transfers move here from
`governance` in the migration state only: the tables keep their names (db_table), so their rows, constraints and
append-only triggers stay as they are. Content types follow."""

import django.db.models.deletion
import django.utils.timezone
import submissions.models
import uuid
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
        ('leaderboard', '0001_initial'),
        ('organizations', '0001_moved_from_governance'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='MethodSubmission',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('public_id', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                    ('method_id', models.CharField(help_text='From the method card.', max_length=200)),
                    ('method_name', models.CharField(help_text='From the method card.', max_length=200)),
                    ('declared_class', models.CharField(help_text="The manifest's dependency_class.", max_length=2)),
                    ('derived_class', models.CharField(help_text="Derived from the manifest's dependencies.", max_length=2)),
                    ('deciding_dependency', models.CharField(blank=True, help_text='The dependency that decides the derived class.', max_length=200)),
                    ('open_leaderboard_only', models.BooleanField(default=False, help_text='Class A2 (non-substitutable external API): open leaderboard only, flagged.')),
                    ('package', models.FileField(max_length=255, upload_to=submissions.models.submission_package_path)),
                    ('package_name', models.CharField(help_text="The uploaded file's original name.", max_length=255)),
                    ('package_sha256', models.CharField(max_length=64)),
                    ('package_size', models.PositiveBigIntegerField()),
                    ('files', models.JSONField(help_text="The package's files: path, size and kind of each.")),
                    ('method_card', models.JSONField()),
                    ('manifest', models.JSONField(help_text='method.json as submitted.')),
                    ('cost_report', models.JSONField()),
                    ('state', models.CharField(choices=[('submitted', 'Submitted'), ('manifest_audited', 'Manifest audited'), ('awaiting_sandbox', 'Awaiting sandbox run'), ('evaluated', 'Evaluated'), ('in_review', 'In community review'), ('approved', 'Approved'), ('rejected', 'Rejected'), ('ownership_transferred', 'Ownership transferred')], default='submitted', max_length=24)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='method_submissions', to='organizations.organization')),
                    ('run_card', models.ForeignKey(blank=True, help_text="The gold_standard run card governance's sandbox produced.", null=True, on_delete=django.db.models.deletion.PROTECT, related_name='method_submissions', to='leaderboard.runcard')),
                    ('submitter', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='method_submissions', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'governance_methodsubmission',
                    'ordering': ['-created_at', '-pk'],
                },
            ),
            migrations.CreateModel(
                name='ParticipationTerms',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('version', models.CharField(help_text='A label such as 1, 2025-1 or 1.1.', max_length=40)),
                    ('text', models.TextField(help_text='The terms a submitter accepts.')),
                    ('transfer_clause', models.TextField(help_text='The ownership-transfer clause (SPEC §5).')),
                    ('published_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='participation_terms', to='organizations.organization')),
                    ('published_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'verbose_name': 'participation terms',
                    'verbose_name_plural': 'participation terms',
                    'db_table': 'governance_participationterms',
                    'ordering': ['organization', '-published_at', '-pk'],
                },
            ),
            migrations.CreateModel(
                name='OwnershipTransfer',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('public_id', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                    ('method_id', models.CharField(db_index=True, max_length=200)),
                    ('method_name', models.CharField(max_length=200)),
                    ('developer_keeps', models.JSONField(default=list)),
                    ('governance_gets', models.JSONField(default=list)),
                    ('notes', models.TextField(blank=True)),
                    ('recorded_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('organization', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='ownership_transfers', to='organizations.organization')),
                    ('recorded_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('run_card', models.ForeignKey(help_text='The gold_standard run card that made the method eligible.', on_delete=django.db.models.deletion.PROTECT, related_name='+', to='leaderboard.runcard')),
                    ('submission', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='transfer', to='submissions.methodsubmission')),
                    ('terms', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='transfers', to='submissions.participationterms')),
                ],
                options={
                    'db_table': 'governance_ownershiptransfer',
                    'ordering': ['-recorded_at'],
                },
            ),
            migrations.CreateModel(
                name='SubmissionEvent',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('from_state', models.CharField(blank=True, max_length=24)),
                    ('to_state', models.CharField(choices=[('submitted', 'Submitted'), ('manifest_audited', 'Manifest audited'), ('awaiting_sandbox', 'Awaiting sandbox run'), ('evaluated', 'Evaluated'), ('in_review', 'In community review'), ('approved', 'Approved'), ('rejected', 'Rejected'), ('ownership_transferred', 'Ownership transferred')], max_length=24)),
                    ('note', models.TextField(blank=True)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('actor', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('submission', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='events', to='submissions.methodsubmission')),
                ],
                options={
                    'verbose_name': 'submission event',
                    'db_table': 'governance_submissionevent',
                    'ordering': ['submission', 'created_at', 'pk'],
                },
            ),
            migrations.CreateModel(
                name='TermsAcceptance',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('accepted_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('terms', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='acceptances', to='submissions.participationterms')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='terms_acceptances', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'governance_termsacceptance',
                    'ordering': ['-accepted_at'],
                },
            ),
            migrations.AddField(
                model_name='methodsubmission',
                name='terms_acceptance',
                field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='submissions', to='submissions.termsacceptance'),
            ),
            migrations.AddConstraint(
                model_name='participationterms',
                constraint=models.UniqueConstraint(fields=('organization', 'version'), name='terms_unique_version'),
            ),
            migrations.AddConstraint(
                model_name='participationterms',
                constraint=models.CheckConstraint(condition=models.Q(models.Q(('version', ''), _negated=True), models.Q(('text', ''), _negated=True), models.Q(('transfer_clause', ''), _negated=True)), name='terms_version_text_and_clause_required'),
            ),
            migrations.AddConstraint(
                model_name='submissionevent',
                constraint=models.CheckConstraint(condition=models.Q(('to_state__in', ['submitted', 'manifest_audited', 'awaiting_sandbox', 'evaluated', 'in_review', 'approved', 'rejected', 'ownership_transferred'])), name='submissionevent_state_valid'),
            ),
            migrations.AddConstraint(
                model_name='termsacceptance',
                constraint=models.UniqueConstraint(fields=('terms', 'user'), name='terms_accepted_once'),
            ),
            migrations.AddIndex(
                model_name='methodsubmission',
                index=models.Index(fields=['organization', 'state'], name='submission_org_state'),
            ),
            migrations.AddConstraint(
                model_name='methodsubmission',
                constraint=models.CheckConstraint(condition=models.Q(('state__in', ['submitted', 'manifest_audited', 'awaiting_sandbox', 'evaluated', 'in_review', 'approved', 'rejected', 'ownership_transferred'])), name='submission_state_valid'),
            ),
            migrations.AddConstraint(
                model_name='methodsubmission',
                constraint=models.CheckConstraint(condition=models.Q(('derived_class__in', ['S', 'O', 'A1', 'A2'])), name='submission_class_not_x'),
            ),
            migrations.AddConstraint(
                model_name='methodsubmission',
                constraint=models.CheckConstraint(condition=models.Q(('declared_class', models.F('derived_class'))), name='submission_declared_class_is_derived'),
            ),
            migrations.AddConstraint(
                model_name='methodsubmission',
                constraint=models.CheckConstraint(condition=models.Q(models.Q(('derived_class', 'A2'), ('open_leaderboard_only', True)), models.Q(models.Q(('derived_class', 'A2'), _negated=True), ('open_leaderboard_only', False)), _connector='OR'), name='submission_a2_open_leaderboard_only'),
            ),
            migrations.AddConstraint(
                model_name='methodsubmission',
                constraint=models.CheckConstraint(condition=models.Q(('run_card__isnull', False), models.Q(('state__in', ['evaluated', 'in_review', 'approved', 'ownership_transferred']), _negated=True), _connector='OR'), name='submission_run_card_once_evaluated'),
            ),
            migrations.AddConstraint(
                model_name='methodsubmission',
                constraint=models.UniqueConstraint(condition=models.Q(('run_card__isnull', False)), fields=('run_card',), name='submission_run_card_unique'),
            ),
        ]),
        move_content_types("governance", "submissions", "participationterms", "termsacceptance", "methodsubmission",
                           "submissionevent", "ownershiptransfer"),
    ]
