"""License keys: one per purchase, checked over the public API by the vendor's agent.

The modules, by what they hold (callers use the names below):
- `keys`: the key's format, its hash (how it is looked up) and constant-time comparison, masking.
- `status`: the one status rule (active / expired / disabled / refunded), read from `services.access`.
- `issue`: `ensure_key` (or `issue_key` for a purchase row just inserted), called wherever a purchase is
  recorded, in that transaction.
- `public`: what `/api/licenses/activate|validate|deactivate` do (no session), with their rate limits.
- `manage`: disable / enable by the agent's vendor or an admin; a buyer deactivating one of their machines.
- `reads`: the buyer's keys, a vendor's agent's keys and all keys for admins.
"""

from marketplace.services.licenses.issue import ensure_key, issue_key
from marketplace.services.licenses.keys import mask, new_key
from marketplace.services.licenses.manage import (
    ALREADY_DISABLED,
    KEY_NOT_FOUND,
    NOT_DISABLED,
    REASON_REQUIRED,
    REASON_TOO_LONG,
    deactivate_instance,
    set_disabled,
)
from marketplace.services.licenses.public import (
    INSTANCE_NOT_FOUND,
    LIMIT_REACHED,
    NOT_ACTIVE,
    Answer,
    Instance,
    KeyState,
    activate,
    deactivate,
    validate,
)
from marketplace.services.licenses.reads import (
    AGENT_NOT_FOUND,
    NOT_YOUR_AGENT,
    ActivationView,
    KeyView,
    admin_keys,
    buyer_keys,
    disabled_reasons_by_purchase,
    key_of,
    keys_by_purchase,
    vendor_keys,
)
from marketplace.services.licenses.status import status_of

__all__ = [
    "AGENT_NOT_FOUND",
    "ALREADY_DISABLED",
    "INSTANCE_NOT_FOUND",
    "KEY_NOT_FOUND",
    "LIMIT_REACHED",
    "NOT_ACTIVE",
    "NOT_DISABLED",
    "NOT_YOUR_AGENT",
    "REASON_REQUIRED",
    "REASON_TOO_LONG",
    "ActivationView",
    "Answer",
    "Instance",
    "KeyState",
    "KeyView",
    "activate",
    "admin_keys",
    "buyer_keys",
    "deactivate",
    "deactivate_instance",
    "disabled_reasons_by_purchase",
    "ensure_key",
    "issue_key",
    "key_of",
    "keys_by_purchase",
    "mask",
    "new_key",
    "set_disabled",
    "status_of",
    "validate",
    "vendor_keys",
]
