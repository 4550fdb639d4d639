"""Audit actions become an enum (AuditAction): the choices live in the migration state only; no SQL runs."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('organizations', '0001_moved_from_governance'),
    ]

    operations = [
        migrations.AlterField(
            model_name='auditevent',
            name='action',
            field=models.CharField(choices=[('organization.created', 'Organization created'), ('organization.changed', 'Organization changed'), ('membership.added', 'Member added'), ('membership.role_changed', "Member's role changed"), ('membership.removed', 'Member removed'), ('invitation.sent', 'Invitation sent'), ('invitation.revoked', 'Invitation revoked'), ('consent.granted', 'Consent granted'), ('consent.revoked', 'Consent revoked'), ('dataset.published', 'Dataset published'), ('dataset.withdrawn', 'Dataset withdrawn from public view'), ('dataset_version.frozen', 'Dataset version frozen'), ('secret_entries.shown', 'Secret entries shown'), ('run_card.secret_text_refused', 'Run card refused for holding secret text'), ('verification_tier.changed', 'Verification tier changed'), ('campaign.opened', 'Review campaign opened'), ('campaign.paused', 'Review campaign paused'), ('campaign.resumed', 'Review campaign resumed'), ('campaign.closed', 'Review campaign closed'), ('campaign.speaker_added', 'Speaker added to a campaign'), ('campaign.speaker_removed', 'Speaker removed from a campaign'), ('gate_policy.changed', 'Validation gate policy changed'), ('review.decision', 'Review gate decision recorded'), ('review.ratings_exported', 'Ratings exported'), ('terms.published', 'Participation terms published'), ('terms.accepted', 'Participation terms accepted'), ('submission.state_changed', 'Method submission state changed'), ('ownership.transferred', 'Ownership transferred')], max_length=60),
        ),
    ]
