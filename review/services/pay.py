"""Review's writes about pay: a campaign's own rate and its timesheet exports. Pay policies, payments and credit
choices are the ledger's (ledger.services)."""

from decimal import Decimal

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from ledger.models import PayPolicy
from ledger.services import checked_pay_rate
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require

from ..models import Campaign
from .errors import NotAllowed, ReviewError


@transaction.atomic
def set_campaign_rate(*, actor: User, campaign: Campaign, hourly_rate: Decimal | None, currency: str = "") -> Campaign:
    """A campaign's own hourly rate (None: back to the organization's), audited. Amounts owed follow the rate in
    force; payments already recorded stay as they were."""
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    code = "" if hourly_rate is None else checked_pay_rate(hourly_rate, currency)
    policy = PayPolicy.objects.filter(organization_id=campaign.organization_id).first()
    in_force = code if hourly_rate is not None else (policy.currency if policy else "")
    if campaign.payments.exclude(currency=in_force).exists():
        raise ReviewError(_("Payments of this campaign were recorded in another currency."), "currency")
    campaign.hourly_rate, campaign.currency = hourly_rate, code
    campaign.save(update_fields=["hourly_rate", "currency"])
    record_event(AuditAction.PAY_RATE_CHANGED, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"hourly_rate": None if hourly_rate is None else str(hourly_rate), "currency": code})
    return campaign


@transaction.atomic
def record_timesheet_export(*, actor: User, campaign: Campaign, file_format: str, rows: int) -> None:
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    record_event(AuditAction.TIMESHEET_EXPORTED, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"format": file_format, "speakers": rows})
