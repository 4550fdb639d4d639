"""Every model of this app now lives in `organizations` or `submissions`: it leaves this app's migration state only,
after the apps that point at it have moved their foreign keys. Nothing happens in the database."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('organizations', '0001_moved_from_governance'),
        ('submissions', '0001_moved_from_governance'),
        ('corpus', '0009_organization_moved'),
        ('review', '0003_organization_moved'),
        ('governance', '0004_method_submissions'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='invitation',
                name='accepted_by',
            ),
            migrations.RemoveField(
                model_name='invitation',
                name='invited_by',
            ),
            migrations.RemoveField(
                model_name='invitation',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='membership',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='membership',
                name='user',
            ),
            migrations.RemoveField(
                model_name='methodsubmission',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='methodsubmission',
                name='run_card',
            ),
            migrations.RemoveField(
                model_name='methodsubmission',
                name='submitter',
            ),
            migrations.RemoveField(
                model_name='methodsubmission',
                name='terms_acceptance',
            ),
            migrations.RemoveField(
                model_name='submissionevent',
                name='submission',
            ),
            migrations.RemoveField(
                model_name='ownershiptransfer',
                name='submission',
            ),
            migrations.RemoveField(
                model_name='ownershiptransfer',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='participationterms',
                name='organization',
            ),
            migrations.RemoveField(
                model_name='ownershiptransfer',
                name='recorded_by',
            ),
            migrations.RemoveField(
                model_name='ownershiptransfer',
                name='run_card',
            ),
            migrations.RemoveField(
                model_name='ownershiptransfer',
                name='terms',
            ),
            migrations.RemoveField(
                model_name='participationterms',
                name='published_by',
            ),
            migrations.RemoveField(
                model_name='termsacceptance',
                name='terms',
            ),
            migrations.RemoveField(
                model_name='submissionevent',
                name='actor',
            ),
            migrations.RemoveField(
                model_name='termsacceptance',
                name='user',
            ),
            migrations.DeleteModel(
                name='AuditEvent',
            ),
            migrations.DeleteModel(
                name='Invitation',
            ),
            migrations.DeleteModel(
                name='Membership',
            ),
            migrations.DeleteModel(
                name='MethodSubmission',
            ),
            migrations.DeleteModel(
                name='Organization',
            ),
            migrations.DeleteModel(
                name='OwnershipTransfer',
            ),
            migrations.DeleteModel(
                name='ParticipationTerms',
            ),
            migrations.DeleteModel(
                name='SubmissionEvent',
            ),
            migrations.DeleteModel(
                name='TermsAcceptance',
            ),
        ]),
    ]
