"""Admin for maintainers. Organizations, memberships and invitations change here only through the same
services as the pages, so each change is audited."""

from django import forms
from django.contrib import admin, messages

from common.admin import SafeAdmin

from . import services
from .models import Invitation, Membership, Organization, Role


@admin.register(Organization)
class OrganizationAdmin(SafeAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    fields = ["name", "slug", "languages", "principles"]

    def get_prepopulated_fields(self, request, obj=None):
        return {} if obj is not None else {"slug": ["name"]}

    def get_readonly_fields(self, request, obj=None):
        return ["slug"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        if change:
            stored = Organization.objects.get(pk=obj.pk)
            changes = {name: form.cleaned_data[name] for name in form.changed_data if name != "slug"}
            services.update_organization(organization=stored, actor=request.user, **changes)
        else:
            created, _ = services.create_organization(
                slug=obj.slug,
                name=obj.name,
                languages=obj.languages,
                principles=obj.principles,
                actor=request.user,
            )
            obj.pk = created.pk

    def has_delete_permission(self, request, obj=None):
        return False


class SpeakerOnlyForm(forms.ModelForm):
    """Site staff grant only the speaker role in the admin: the roles that read a community's secrets come from
    its governance staff (invitations) or the operator's `add_member`, so no maintainer gives them to
    themselves here. Removing roles and changing one to speaker stay possible."""

    role = forms.ChoiceField(choices=[(Role.SPEAKER, Role.SPEAKER.label)])


@admin.register(Membership)
class MembershipAdmin(SafeAdmin):
    list_display = ["user", "organization", "role"]
    list_filter = ["role", "organization"]
    search_fields = ["user__email"]
    raw_id_fields = ["user"]
    fields = ["user", "organization", "role"]
    form = SpeakerOnlyForm

    def get_readonly_fields(self, request, obj=None):
        return ["user", "organization"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        if change:
            services.change_role(membership=obj, role=obj.role, actor=request.user)
        else:
            _, _, _ = services.add_member(
                email=obj.user.email,
                organization=obj.organization,
                role=obj.role,
                actor=request.user,
            )
            obj.pk = Membership.objects.get(user=obj.user, organization=obj.organization, role=obj.role).pk

    def delete_model(self, request, obj):
        self.delete_queryset(request, [obj])

    def delete_queryset(self, request, queryset):
        for membership in queryset:
            try:
                services.remove_member(membership=membership, actor=request.user)
            except services.MembershipError as error:
                self.message_user(request, f"{membership}: {error}", level=messages.ERROR)


@admin.register(Invitation)
class InvitationAdmin(SafeAdmin):
    list_display = ["email", "organization", "role", "created_at", "accepted_at"]
    list_filter = ["role", "organization"]
    search_fields = ["email"]
    fields = ["organization", "email", "role"]
    form = SpeakerOnlyForm

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request)

    def save_model(self, request, obj, form, change):
        invitation = services.invite_member(
            organization=obj.organization,
            email=obj.email,
            role=obj.role,
            actor=request.user,
        )
        obj.pk = invitation.pk

    def delete_model(self, request, obj):
        services.revoke_invitation(invitation=obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        for invitation in queryset:
            services.revoke_invitation(invitation=invitation, actor=request.user)
