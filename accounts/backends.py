"""Django's and allauth's authentication backends, reading the signed-in user of each request through a compiled,
prepared query (common.compiled): every signed-in request reads its user by primary key, and building that query
cost the ORM more than running it. What is read, and every check on it, is Django's."""

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend

from common.compiled import CompiledQuery, loaded

from .models import User

USER_COLUMNS = tuple(field.attname for field in User._meta.concrete_fields)
_USER_BY_ID = CompiledQuery(lambda pk: User._default_manager.filter(pk=pk).order_by().values_list(*USER_COLUMNS),
                            pk=int)


def user_by_id(user_id) -> User | None:
    """The user whose primary key is `user_id` (as a session keeps it: a string), None when there is none."""
    try:
        pk = int(user_id)
    except (TypeError, ValueError):
        return None
    row = _USER_BY_ID.first(pk=pk)
    return None if row is None else loaded(User, USER_COLUMNS, row)


class ReadsUserByIdMixin:
    def get_user(self, user_id):
        user = user_by_id(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None


class ModelBackend(ReadsUserByIdMixin, DjangoModelBackend):
    """Django's backend: password sign-in by e-mail, permissions."""


class AuthenticationBackend(ReadsUserByIdMixin, AllauthBackend):
    """allauth's backend: sign-in through allauth's forms and flows."""
