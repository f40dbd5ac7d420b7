"""One thing a scan found: its kind (models.FindingKind), a name, where (an archive's member) and a detail."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Finding:
    kind: str
    name: str
    member: str | None = None
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "member": self.member, "detail": self.detail}
