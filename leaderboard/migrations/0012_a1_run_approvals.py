"""Per-run approvals of class A1 runs on secret segments (docs/corpus.md, "A1 runs on secret sources").

Existing data: every run card already accepted on gold_standard or held_out entries whose method is registered as
class A1 gets a `legacy` approval, used by that card, dated when the card was accepted and naming no decision. Those
cards were accepted when the dataset-wide consent to A1 gateway disclosure was the only record of the community's
agreement (and no rule checked it), so nothing already scored is taken away; every later run needs its own approval.
The consent records' `gateway_disclosure` column is left as it is: it stays the community's consent, which each
approval now requires, and is no longer read as an approval of any run."""

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.db import migrations, models


SECRET = ("gold_standard", "held_out")


def approve_earlier_a1_cards(apps, schema_editor):
    RunCard = apps.get_model("leaderboard", "RunCard")
    RunCardResult = apps.get_model("leaderboard", "RunCardResult")
    A1RunApproval = apps.get_model("leaderboard", "A1RunApproval")
    cards = RunCard.objects.filter(is_secret=True, method__dependency_class="A1").select_related("method")
    for card in cards.iterator():
        segments = [card.segment] if card.segment in SECRET else sorted(set(
            RunCardResult.objects.filter(run_card=card, entry__segment__in=SECRET)
            .values_list("entry__segment", flat=True))) or list(SECRET)
        A1RunApproval.objects.create(
            dataset_version_id=card.dataset_version_id, segments=segments, method_id=card.method.method_id,
            legacy=True, approved_at=card.submitted_at, run_card=card, used_at=card.submitted_at,
            note="Accepted before A1 runs were approved one by one.")


class Migration(migrations.Migration):

    dependencies = [
        ('corpus', '0014_public_download_for_the_harness'),
        ('governance', '0006_decisions'),
        ('leaderboard', '0011_run_card_triggers_on_sqlite'),
    ]

    operations = [
        migrations.CreateModel(
            name='A1RunApproval',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('public_id', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ('segments', models.JSONField(help_text='The secret segments the run may disclose (gold_standard, held_out).')),
                ('method_id', models.CharField(help_text='The method whose run is approved.', max_length=200)),
                ('submission', models.UUIDField(blank=True, help_text='The method submission the run is of, when approved from one.', null=True)),
                ('legacy', models.BooleanField(default=False, help_text='Written by the migration for a card accepted before per-run approvals.')),
                ('note', models.TextField(blank=True)),
                ('approved_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('used_at', models.DateTimeField(blank=True, null=True)),
                ('dataset_version', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='a1_run_approvals', to='corpus.datasetversion')),
                ('decision', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='governance.decision')),
                ('run_card', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='a1_run_approval', to='leaderboard.runcard')),
            ],
            options={
                'ordering': ['-approved_at', '-pk'],
                'indexes': [models.Index(condition=models.Q(('run_card__isnull', True)), fields=['method_id', 'dataset_version'], name='a1_approval_unused')],
                'constraints': [models.CheckConstraint(condition=models.Q(('legacy', True), ('decision__isnull', False), _connector='OR'), name='a1_approval_decided_or_legacy'), models.CheckConstraint(condition=models.Q(models.Q(('run_card__isnull', True), ('used_at__isnull', True)), models.Q(('run_card__isnull', False), ('used_at__isnull', False)), _connector='OR'), name='a1_approval_used_with_its_card'), models.CheckConstraint(condition=models.Q(('method_id', ''), _negated=True), name='a1_approval_names_method')],
            },
        ),
        migrations.RunPython(approve_earlier_a1_cards, migrations.RunPython.noop),
    ]
