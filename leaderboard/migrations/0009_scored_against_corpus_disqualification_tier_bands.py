"""Scores against the stored corpus, disqualifications and per-pair quality-tier bands."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from leaderboard.state import table_triggers


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboard', '0008_drop_fk_indexes_led_by_composites'),
        ('organizations', '0008_corpus_and_leaderboard_audit_actions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='runcard',
            name='corpus_mismatches',
            field=models.PositiveIntegerField(default=0, help_text='Results whose source or expected text differs from the stored entry: a card with any is never shown as verified (its scores are computed against the stored entries).'),
        ),
        migrations.AddField(
            model_name='runcard',
            name='development_data',
            field=models.JSONField(blank=True, help_text='The card\'s declaration of the development entries its method used (docs/run-cards.md, "Declarations"); null when it declares nothing.', null=True),
        ),
        migrations.AddField(
            model_name='runcard',
            name='recomputed_bleu',
            field=models.FloatField(blank=True, help_text='Corpus BLEU against the stored references, when the card reports BLEU.', null=True),
        ),
        migrations.AddField(
            model_name='runcard',
            name='recomputed_exact_match_rate',
            field=models.FloatField(blank=True, help_text='Exact-match rate against the stored references (NFC), shown and ranked.', null=True),
        ),
        migrations.AddField(
            model_name='runcard',
            name='recomputed_ter',
            field=models.FloatField(blank=True, help_text='Corpus TER against the stored references, when the card reports TER.', null=True),
        ),
        migrations.AddField(
            model_name='runcard',
            name='variant_lint',
            field=models.JSONField(blank=True, help_text='The variant-class lint (verification.variant_class_lint); null when it does not apply.', null=True),
        ),
        migrations.CreateModel(
            name='Disqualification',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.TextField()),
                ('disqualified_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('lifted_at', models.DateTimeField(blank=True, null=True)),
                ('lift_reason', models.TextField(blank=True)),
                ('disqualified_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('lifted_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('method', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='disqualifications', to='leaderboard.method')),
                ('run_card', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='disqualifications', to='leaderboard.runcard')),
            ],
            options={
                'ordering': ['-disqualified_at'],
                'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('method__isnull', True), ('run_card__isnull', False)), models.Q(('method__isnull', False), ('run_card__isnull', True)), _connector='OR'), name='disqualification_one_target'), models.CheckConstraint(condition=models.Q(('reason', ''), _negated=True), name='disqualification_reason_given'), models.CheckConstraint(condition=models.Q(models.Q(('lift_reason', ''), ('lifted_at__isnull', True), ('lifted_by__isnull', True)), models.Q(('lifted_at__isnull', False), ('lifted_by__isnull', False), models.Q(('lift_reason', ''), _negated=True)), _connector='OR'), name='disqualification_lifted_with_reason'), models.UniqueConstraint(condition=models.Q(('lifted_at__isnull', True), ('run_card__isnull', False)), fields=('run_card',), name='disqualification_one_active_per_card'), models.UniqueConstraint(condition=models.Q(('lifted_at__isnull', True), ('method__isnull', False)), fields=('method',), name='disqualification_one_active_per_method')],
            },
        ),
        migrations.CreateModel(
            name='TierBands',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('language_pair', models.CharField(help_text="The pair's key (corpus.language_pairs.pair_key).", max_length=100)),
                ('emerging', models.FloatField(default=0.3)),
                ('functional', models.FloatField(default=0.5)),
                ('deployable', models.FloatField(default=0.7)),
                ('fluent', models.FloatField(default=0.85)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('organization', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='organizations.organization')),
                ('updated_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('organization', 'language_pair'), name='tierbands_one_per_pair'), models.CheckConstraint(condition=models.Q(('deployable__lt', models.F('fluent')), ('emerging__gt', 0), ('emerging__lt', models.F('functional')), ('fluent__lt', 1), ('functional__lt', models.F('deployable'))), name='tierbands_strictly_increasing_within_0_1')],
            },
        ),
        # A disqualification or new bands change what the public leaderboard shows (leaderboard/state.py).
        table_triggers("leaderboard_disqualification", ("INSERT", "UPDATE", "DELETE")),
        table_triggers("leaderboard_tierbands", ("INSERT", "UPDATE", "DELETE")),
    ]
