"""The pay and credit ledger's models (pay policies, payments and their corrections, speakers' credit choices) move
here from `review` in the migration state only: the tables keep their names (db_table), so their rows, constraints
and the payments' append-only trigger stay as they are. Content types follow, so admin history and permissions keep
pointing at the same models."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from common.moved_models import move_content_types


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('organizations', '0009_speakers_ledger_audit_actions'),
        ('review', '0015_campaign_variety'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Payment',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('amount', models.DecimalField(decimal_places=2, max_digits=10)),
                    ('currency', models.CharField(max_length=3)),
                    ('paid_on', models.DateField()),
                    ('reference', models.CharField(blank=True, max_length=200)),
                    ('note', models.TextField(blank=True)),
                    ('recorded_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='payments', to='review.campaign')),
                    ('corrects', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='corrections', to='ledger.payment')),
                    ('recorded_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('speaker', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'review_payment',
                    'ordering': ['recorded_at', 'pk'],
                    'constraints': [models.CheckConstraint(condition=models.Q(('amount', 0), _negated=True), name='payment_amount_not_zero'), models.CheckConstraint(condition=models.Q(('amount__gt', 0), ('corrects__isnull', False), _connector='OR'), name='payment_negative_only_as_correction'), models.CheckConstraint(condition=models.Q(('corrects__isnull', True), models.Q(('note', ''), _negated=True), _connector='OR'), name='payment_correction_says_why'), models.CheckConstraint(condition=models.Q(('currency__regex', '^[A-Z]{3}$')), name='payment_currency_code')],
                },
            ),
            migrations.CreateModel(
                name='PayPolicy',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('hourly_rate', models.DecimalField(decimal_places=2, max_digits=8)),
                    ('currency', models.CharField(max_length=3)),
                    ('default_seconds_per_rating', models.PositiveIntegerField(default=45)),
                    ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('organization', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='pay_policy', to='organizations.organization')),
                    ('updated_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'review_paypolicy',
                    'constraints': [models.CheckConstraint(condition=models.Q(('currency__regex', '^[A-Z]{3}$'), ('hourly_rate__gte', 0)), name='paypolicy_rate_and_currency'), models.CheckConstraint(condition=models.Q(('default_seconds_per_rating__gte', 1), ('default_seconds_per_rating__lte', 900)), name='paypolicy_default_seconds_in_range')],
                },
            ),
            migrations.CreateModel(
                name='SpeakerCredit',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('choice', models.CharField(choices=[('name', 'By my name'), ('display_name', 'By a name I choose'), ('anonymous', 'Anonymously')], default='anonymous', max_length=12)),
                    ('display_name', models.CharField(blank=True, max_length=100)),
                    ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('organization', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='speaker_credits', to='organizations.organization')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'review_speakercredit',
                    'constraints': [models.UniqueConstraint(fields=('organization', 'user'), name='speakercredit_one_per_organization'), models.CheckConstraint(condition=models.Q(('choice__in', ['name', 'display_name', 'anonymous'])), name='speakercredit_choice_valid'), models.CheckConstraint(condition=models.Q(models.Q(('choice', 'display_name'), _negated=True), models.Q(('display_name', ''), _negated=True), _connector='OR'), name='speakercredit_display_name_given')],
                },
            ),
        ]),
        move_content_types("review", "ledger", "paypolicy", "payment", "speakercredit"),
    ]
