"""Redraw the demo agents' committed pictures: `python -m dev.demo_pictures`.

Run it after changing the drawing (`marketplace/services/demo_images.py`) or the demo agents
(`marketplace/services/demo.py`); a unit test checks the committed files match. It lives here, not beside the
drawing, because it needs the seed's agent names and the seed needs the drawing: the services import no cycle.
"""

from __future__ import annotations

from pathlib import Path

from marketplace.services import demo, demo_images


def write_all(names: list[str]) -> list[Path]:
    """(Re)write the pictures of these agents; the demo seed's names are the ones shipped."""
    demo_images.IMAGE_DIR.mkdir(exist_ok=True)
    paths = []
    for name in names:
        path = demo_images.IMAGE_DIR / f"{demo_images.slug(name)}.svg"
        path.write_text(demo_images.render(name), encoding="utf-8")
        paths.append(path)
    demo_images.read.cache_clear()
    return paths


if __name__ == "__main__":
    written = write_all(demo.demo_agent_names())
    print(f"Wrote {len(written)} pictures, {sum(p.stat().st_size for p in written)} bytes in all.")
