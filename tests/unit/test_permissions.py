import pytest

from marketplace.models import Role, User
from marketplace.models.base import utcnow
from marketplace.services.errors import Forbidden, Unauthorized
from marketplace.services.permissions import require_admin, require_user, require_vendor


def _user(role: str = Role.USER, approved: bool = False) -> User:
    return User(username="u", email="u@x.io", role=role, is_vendor_approved=approved)


def test_require_user():
    with pytest.raises(Unauthorized):
        require_user(None)
    deleted = _user()
    deleted.deleted_at = utcnow()
    with pytest.raises(Unauthorized):
        require_user(deleted)
    assert require_user(_user()).username == "u"


def test_require_vendor():
    with pytest.raises(Unauthorized):
        require_vendor(None)
    with pytest.raises(Forbidden):
        require_vendor(_user())
    with pytest.raises(Forbidden):
        require_vendor(_user(Role.VENDOR, approved=False))
    assert require_vendor(_user(Role.VENDOR, approved=True))
    assert require_vendor(_user(Role.ADMIN))


def test_require_admin():
    with pytest.raises(Unauthorized):
        require_admin(None)
    with pytest.raises(Forbidden):
        require_admin(_user(Role.VENDOR, approved=True))
    assert require_admin(_user(Role.ADMIN))
