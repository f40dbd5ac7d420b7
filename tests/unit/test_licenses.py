"""License keys: the format, one key per purchase, the status rule, activation limits, disable / enable and the
reads of buyers, vendors and admins."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import LicenseKey, Order, OrderStatus, Purchase
from marketplace.models.base import utcnow
from marketplace.services import licenses
from marketplace.services.errors import Conflict, Forbidden, InvalidParameter, NotFound, Unauthorized
from marketplace.services.licenses import keys
from tests import factories


def _key_of(user_id: str, agent_id: str) -> LicenseKey:
    with db.session_scope() as session:
        return session.exec(select(LicenseKey).where(LicenseKey.user_id == user_id,
                                                     LicenseKey.agent_id == agent_id)).one()


@pytest.fixture
def sale():
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor, price_cents=1500)
    buyer = factories.make_user()
    factories.make_purchase(buyer, agent)
    return vendor, agent, buyer, _key_of(buyer.id, agent.id)


def test_a_key_is_four_groups_of_crockford_base32_and_masked_but_for_its_end():
    key = keys.new_key()
    assert keys.KEY_RE.match(key) and len(key) == 23
    assert len({keys.new_key() for _ in range(1000)}) == 1000
    assert keys.mask(key) == "XXXXX-XXXXX-XXXXX-" + key[-5:]
    assert keys.normalize(f"  {key.lower()} ") == key
    assert keys.normalize("ILOU0-00000-00000-00000") is None


def test_activate_validate_deactivate(sale):
    _vendor, agent, _buyer, key = sale
    done = licenses.activate(license_key=key.key, instance_name="laptop", address="1.2.3.4")
    assert done.ok and done.instance is not None and done.instance.name == "laptop"
    assert done.key is not None and done.key.activation_usage == 1 and done.key.activation_limit == 3
    assert done.key.status == "active" and done.key.agent_id == agent.id and done.key.expires_at is None
    checked = licenses.validate(license_key=key.key, instance_id=done.instance.id, address="1.2.3.4")
    assert checked.ok and checked.instance is not None and checked.instance.id == done.instance.id
    gone = licenses.deactivate(license_key=key.key, instance_id=done.instance.id, address="1.2.3.4")
    assert gone.ok and gone.key is not None and gone.key.activation_usage == 0
    again = licenses.deactivate(license_key=key.key, instance_id=done.instance.id, address="1.2.3.4")
    assert not again.ok and not again.found and again.error == licenses.INSTANCE_NOT_FOUND


def test_a_wrong_key_says_nothing_about_other_keys(sale):
    _vendor, _agent, _buyer, key = sale
    for wrong in (keys.new_key(), "not a key", key.key[:-1] + ("0" if key.key[-1] != "0" else "1")):
        answer = licenses.validate(license_key=wrong, instance_id=None, address=None)
        assert answer == licenses.public.NOT_FOUND


def test_the_limit_holds_under_concurrent_activations(sale):
    _vendor, _agent, _buyer, key = sale
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda n: licenses.activate(license_key=key.key, instance_name=f"pc {n}",
                                                            address=None), range(8)))
    assert sum(a.ok for a in answers) == 3
    assert {a.error for a in answers if not a.ok} == {licenses.LIMIT_REACHED}
    assert _key_of(key.user_id, key.agent_id).activation_usage == 3


def test_status_follows_the_access_rule(sale):
    _vendor, _agent, buyer, key = sale
    with db.session_scope() as session:
        purchase = session.exec(select(Purchase).where(Purchase.id == key.purchase_id)).one()
        purchase.access_until = utcnow() - timedelta(minutes=1)
        session.add(purchase)
    assert licenses.validate(license_key=key.key, instance_id=None, address=None).key.status == "expired"
    with db.session_scope() as session:
        order = session.exec(select(Order).where(Order.user_id == buyer.id)).one()
        order.status = OrderStatus.REFUNDED
        session.add(order)
    answer = licenses.validate(license_key=key.key, instance_id=None, address=None)
    assert not answer.ok and answer.key.status == "refunded"
    assert licenses.activate(license_key=key.key, instance_name="x", address=None).error == \
        licenses.NOT_ACTIVE["refunded"]


def test_disable_and_enable_by_the_vendor_or_an_admin_only(sale):
    vendor, _agent, buyer, key = sale
    other = factories.make_vendor()
    with pytest.raises(Forbidden):
        licenses.set_disabled(actor=other, key_id=key.id, disabled=True)
    with pytest.raises(Forbidden):
        licenses.set_disabled(actor=buyer, key_id=key.id, disabled=True)
    with pytest.raises(Unauthorized):
        licenses.set_disabled(actor=None, key_id=key.id, disabled=True)
    with pytest.raises(NotFound):
        licenses.set_disabled(actor=vendor, key_id="nope", disabled=True, reason="Leaked")
    view = licenses.set_disabled(actor=vendor, key_id=key.id, disabled=True, reason="Leaked")
    assert view.status == "disabled" and view.key == keys.mask(key.key)
    with pytest.raises(Conflict):
        licenses.set_disabled(actor=vendor, key_id=key.id, disabled=True, reason="Leaked")
    assert licenses.validate(license_key=key.key, instance_id=None, address=None).key.status == "disabled"
    admin = factories.make_admin()
    assert licenses.set_disabled(actor=admin, key_id=key.id, disabled=False).status == "active"
    assert factories.audit_actions() == [("license.disable", "license_key", key.id),
                                         ("license.enable", "license_key", key.id)]


def test_reads_for_buyer_vendor_and_admin(sale):
    vendor, agent, buyer, key = sale
    done = licenses.activate(license_key=key.key, instance_name="desk", address=None)
    mine = licenses.buyer_keys(actor=buyer)
    assert [k.key for k in mine] == [key.key] and [a.name for a in mine[0].activations] == ["desk"]
    rows, total = licenses.vendor_keys(actor=vendor, agent_id=agent.id)
    assert total == 1 and rows[0].key == keys.mask(key.key) and rows[0].buyer_email == ""
    with pytest.raises(Forbidden):
        licenses.vendor_keys(actor=factories.make_vendor(), agent_id=agent.id)
    rows, total = licenses.admin_keys(actor=factories.make_admin(), search=key.key[-5:])
    assert total == 1 and rows[0].buyer_email == buyer.email
    with pytest.raises(InvalidParameter):
        licenses.admin_keys(actor=factories.make_admin(), limit=0)
    with pytest.raises(NotFound):
        licenses.deactivate_instance(actor=factories.make_user(), instance_id=done.instance.id)
    with pytest.raises(NotFound):
        licenses.deactivate_instance(actor=buyer, instance_id="x" * 65)
    with pytest.raises(Unauthorized):
        licenses.deactivate_instance(actor=None, instance_id=done.instance.id)
    licenses.deactivate_instance(actor=buyer, instance_id=done.instance.id)
    assert licenses.buyer_keys(actor=buyer)[0].activations == ()


def _migrate(engine, target: str, *, down: bool = False) -> None:
    from alembic.config import Config

    from alembic import command
    from marketplace.config import PROJECT_ROOT

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, target)


def test_purchases_from_before_keys_get_one_when_migrated(tmp_path):
    """Revision 0018 gives every existing purchase its key (and every agent the default limit of 3)."""
    from sqlalchemy import text
    from sqlmodel import Session

    from marketplace.models import Agent, User

    engine = db.build_engine(f"sqlite:///{tmp_path / 'old.db'}")
    _migrate(engine, "head")
    with Session(engine) as session:
        buyers = [User(username=f"old{n}", email=f"old{n}@example.com") for n in range(2)]
        agent = Agent(name="Legacy")
        session.add_all([*buyers, agent])
        session.flush()
        session.add_all([Purchase(user_id=b.id, agent_id=agent.id, purchase_price_cents=100) for b in buyers])
        session.commit()
    _migrate(engine, "0017", down=True)
    _migrate(engine, "head")
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT key, key_hash FROM license_keys")).all()
        limit = conn.execute(text("SELECT activation_limit FROM agents")).scalar_one()
    assert len(rows) == 2 and len({key for key, _ in rows}) == 2 and limit == 3
    assert all(keys.KEY_RE.match(key) and keys.key_hash(key) == digest for key, digest in rows)
    engine.dispose()
