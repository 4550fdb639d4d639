"""allauth hooks: an invitation held in the session is honoured when its invitee signs up (ACCOUNT_ADAPTER)."""

from allauth.account.adapter import DefaultAccountAdapter

from .services import InvitationError, accept_invitation

PENDING_INVITATION_KEY = "pending_invitation_token"


class AccountAdapter(DefaultAccountAdapter):
    def save_user(self, request, user, form, commit=True):
        user = super().save_user(request, user, form, commit=commit)
        token = request.session.pop(PENDING_INVITATION_KEY, None) if request is not None else None
        if token and commit:
            try:
                accept_invitation(token=token, actor=user)
            except InvitationError:
                pass
        return user
