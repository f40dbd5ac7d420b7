"""The demo agents' pictures are served as long-cached static files, and only they are."""

from __future__ import annotations

from marketplace.services import demo, demo_images


def test_a_demo_agents_picture_is_served_with_a_long_immutable_cache(client):
    demo.seed()
    agent = next(a for a in client.get("/api/agents", params={"search": "BlogSmith"}).json()
                 if a["name"] == "BlogSmith")
    assert agent["imageUrl"].startswith("/api/demo-images/blogsmith.svg?v=")
    answer = client.get(agent["imageUrl"])
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("image/svg+xml")
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.content == demo_images.render("BlogSmith").encode()


def test_unknown_or_crafted_names_answer_a_json_404(client):
    for name in ("no-such-agent.svg", "..%2Fdemo.py", "BlogSmith.svg", "blogsmith.png"):
        answer = client.get(f"/api/demo-images/{name}")
        assert answer.status_code == 404, name
        assert answer.headers["cache-control"] == "no-store"
        assert answer.json()["message"]
