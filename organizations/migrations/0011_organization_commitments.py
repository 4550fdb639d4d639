"""An organization's commitments (benchmark specification §8.4) and the audit action recording their changes."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('organizations', '0010_decision_audit_actions'),
    ]

    operations = [
        migrations.AddField(
            model_name='organization',
            name='commitments_changed_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='organization',
            name='community_relationship',
            field=models.TextField(blank=True, help_text='How it represents the community: its mandate and the evidence of it.'),
        ),
        migrations.AddField(
            model_name='organization',
            name='evaluable_commitment',
            field=models.TextField(blank=True, help_text='Its commitment to keep the benchmark evaluable (how long, under which conditions).'),
        ),
        migrations.AddField(
            model_name='organization',
            name='evaluation_pause_reason',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='organization',
            name='evaluation_paused_until',
            field=models.DateField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='organization',
            name='key_custody',
            field=models.TextField(blank=True, help_text='Who holds the keys to its secret segments, and how.'),
        ),
        migrations.AddField(
            model_name='organization',
            name='relationship_evidence',
            field=models.CharField(blank=True, help_text="Where that evidence is kept (e.g. a council resolution's reference).", max_length=300),
        ),
        migrations.AlterField(
            model_name='auditevent',
            name='action',
            field=models.CharField(choices=[('organization.created', 'Organization created'), ('organization.changed', 'Organization changed'), ('organization.commitments_changed', "Organization's commitments changed"), ('membership.added', 'Member added'), ('membership.role_changed', "Member's role changed"), ('membership.removed', 'Member removed'), ('invitation.sent', 'Invitation sent'), ('invitation.revoked', 'Invitation revoked'), ('consent.granted', 'Consent granted'), ('consent.revoked', 'Consent revoked'), ('dataset.published', 'Dataset published'), ('dataset.withdrawn', 'Dataset withdrawn from public view'), ('dataset_version.frozen', 'Dataset version frozen'), ('secret_entries.shown', 'Secret entries shown'), ('run_card.secret_text_refused', 'Run card refused for holding secret text'), ('verification_tier.changed', 'Verification tier changed'), ('campaign.opened', 'Review campaign opened'), ('campaign.paused', 'Review campaign paused'), ('campaign.resumed', 'Review campaign resumed'), ('campaign.closed', 'Review campaign closed'), ('campaign.speaker_added', 'Speaker added to a campaign'), ('campaign.speaker_removed', 'Speaker removed from a campaign'), ('gate_policy.changed', 'Validation gate policy changed'), ('review.decision', 'Review gate decision recorded'), ('review.ratings_exported', 'Ratings exported'), ('terms.published', 'Participation terms published'), ('terms.accepted', 'Participation terms accepted'), ('submission.state_changed', 'Method submission state changed'), ('ownership.transferred', 'Ownership transferred'), ('campaign.instructions_changed', "Review campaign's instructions changed"), ('rating_examples.changed', "Community's rating examples changed"), ('review.speaker_excluded', "Speaker's ratings excluded from a campaign's figures"), ('review.speaker_included', "Speaker's ratings counted again in a campaign's figures"), ('review.ratings_withdrawn', 'Speaker withdrew their ratings of a campaign'), ('review.speaker_credit_changed', 'Speaker changed how they are credited'), ('pay.rate_changed', "Speakers' pay rate changed"), ('pay.payment_recorded', 'Payment to a speaker recorded'), ('pay.timesheet_exported', 'Timesheet exported'), ('account.deleted', 'Account deleted and anonymised'), ('interface_language.added', 'Interface language added'), ('interface_translation.changed', 'Interface translation changed'), ('corpus.imported', 'Corpus file imported'), ('corpus.entry_added', 'Corpus entry added'), ('corpus.entry_changed', 'Corpus entry changed'), ('corpus.bulk_imported', 'Corpus entries imported in bulk'), ('dataset_version.created', 'Dataset version created'), ('dataset_version.segments_rotated', 'Entries rotated between segments into a new version'), ('dataset_version.held_out_activated', 'Held-out segment made scorable'), ('run_card.disqualified', 'Run card or method disqualified'), ('run_card.disqualification_lifted', 'Disqualification lifted'), ('tier_bands.changed', 'Quality-tier bands changed'), ('speaker_skill.attested', "Speaker's language skill attested"), ('speaker_skill.attestation_withdrawn', "Attestation of a speaker's language skill withdrawn"), ('practice.round_changed', 'Practice round settings changed'), ('practice.item_changed', 'Practice item written, changed or retired'), ('practice.passed', 'Practice round passed'), ('practice.failed', 'Practice round failed'), ('conflict.declared', 'Conflict of interest declared'), ('conflict.withdrawn', 'Declared conflict of interest withdrawn'), ('decision.opened', 'Decision proposed'), ('decision.amended', 'Decision changed (earlier signatures are stale)'), ('decision.signed', 'Decision signed'), ('decision.executed', 'Decision executed'), ('decision.rejected', 'Decision rejected'), ('decision.expired', 'Decision expired'), ('decision.withdrawn', 'Decision withdrawn'), ('decision.failed', 'Decision could not be executed'), ('decision_policy.changed', 'Signatures a kind of decision needs changed')], max_length=60),
        ),
        migrations.AddConstraint(
            model_name='organization',
            constraint=models.CheckConstraint(condition=models.Q(('evaluation_paused_until__isnull', True), models.Q(('evaluation_pause_reason', ''), _negated=True), _connector='OR'), name='organization_pause_has_reason'),
        ),
    ]
