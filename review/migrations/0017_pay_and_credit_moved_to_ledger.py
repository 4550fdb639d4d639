"""The pay and credit ledger's models now live in `ledger`: they leave this app's migration state only, after
`ledger` took them over. Nothing happens in the database."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0001_moved_from_review'),
        ('review', '0016_campaign_speaker_title'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='paypolicy',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='paypolicy',
                name='updated_by',
            ),
            migrations.RemoveField(
                model_name='speakercredit',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='speakercredit',
                name='user',
            ),
            migrations.DeleteModel(
                name='Payment',
            ),
            migrations.DeleteModel(
                name='PayPolicy',
            ),
            migrations.DeleteModel(
                name='SpeakerCredit',
            ),
        ]),
    ]
