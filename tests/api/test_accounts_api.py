import time

import pyotp

from marketplace.api.deps import SESSION_COOKIE


def test_register_sets_httponly_session_cookie_and_returns_camel_case(client):
    response = client.post("/api/register", json={"username": "neo", "email": "neo@example.com", "password": "matrix1"})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["username"] == "neo" and body["role"] == "user"
    assert {"firstName", "lastName", "isVendorApproved", "profileImageUrl", "isAuthenticated"} <= body.keys()
    assert "passwordHash" not in body and "password_hash" not in body
    cookie = response.headers["set-cookie"]
    assert f"{SESSION_COOKIE}=" in cookie and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    assert client.get("/api/user").json()["email"] == "neo@example.com"
    assert client.get("/api/auth/user").json()["username"] == "neo"


def test_register_validation_errors_are_json_400(client):
    response = client.post("/api/register", json={"username": "ab", "email": "x@y.co", "password": "secret1"})
    assert response.status_code == 400
    assert response.json() == {"message": "Username must be at least 3 characters", "field": "username"}
    missing = client.post("/api/register", json={"username": "abc"})
    assert missing.status_code == 422 and "email" in missing.json()["message"]


def test_register_conflict_is_409(client, make_user):
    make_user("taken")
    response = client.post("/api/register", json={"username": "taken", "email": "new@example.com",
                                                  "password": "secret1"})
    assert response.status_code == 409


def test_signed_out_user_endpoints_answer_401(client):
    assert client.get("/api/user").status_code == 401
    assert client.get("/api/auth/user").json() == {"message": "Unauthorized"}
    profile = {"firstName": "a", "lastName": "b", "email": "a@b.co"}
    assert client.put("/api/user/profile", json=profile).status_code == 401


def test_login_by_username_or_email_and_logout(client, make_user):
    user = make_user("trinity")
    response = client.post("/api/login", json={"username": "trinity@example.com", "password": "secret123"})
    assert response.status_code == 200
    assert client.get("/api/user").json()["id"] == user.id
    assert client.post("/api/logout").status_code == 204
    assert client.get("/api/user").status_code == 401


def test_logout_deletes_the_server_side_session(client, make_user):
    make_user("morpheus")
    client.post("/api/login", json={"username": "morpheus", "password": "secret123"})
    token = client.cookies.get(SESSION_COOKIE)
    client.post("/api/logout")
    client.cookies.set(SESSION_COOKIE, token)  # replaying the old cookie must not work
    assert client.get("/api/user").status_code == 401


def test_login_errors(client, make_user):
    make_user("smith")
    bad = client.post("/api/login", json={"username": "smith", "password": "nope"})
    assert bad.status_code == 401 and bad.json() == {"message": "Invalid username or password"}
    empty = client.post("/api/login", json={"username": " ", "password": "x"})
    assert empty.status_code == 400 and empty.json()["message"] == "Username or email is required"


def test_login_throttled_with_429(client, make_user):
    make_user("oracle")
    for _ in range(5):
        client.post("/api/login", json={"username": "oracle", "password": "wrong"})
    response = client.post("/api/login", json={"username": "oracle", "password": "secret123"})
    assert response.status_code == 429
    assert response.json()["message"].startswith("Too many failed sign-in attempts")


def test_two_factor_sign_up_confirm_and_sign_in(client):
    response = client.post("/api/register", json={"username": "tank", "email": "tank@example.com",
                                                  "password": "secret1", "enable2FA": True})
    setup = response.json()["twoFactorSetup"]
    assert setup["otpauthUrl"].startswith("otpauth://totp/") and setup["qrCodeSvg"].startswith("data:image/svg")
    totp = pyotp.TOTP(setup["secret"])
    assert client.post("/api/user/2fa/confirm", json={"code": "12345x"}).status_code == 400
    assert client.post("/api/user/2fa/confirm", json={"code": totp.now()}).json()["twoFactorEnabled"] is True
    client.post("/api/logout")
    missing = client.post("/api/login", json={"username": "tank", "password": "secret1"})
    assert missing.status_code == 401 and "code required" in missing.json()["message"]
    assert missing.json()["field"] == "twoFactorCode"
    next_code = totp.at(time.time() + totp.interval)  # the confirmation spent the current step
    ok = client.post("/api/login", json={"username": "tank", "password": "secret1", "enable2FA": True,
                                         "twoFactorCode": next_code})
    assert ok.status_code == 200
    replay = client.post("/api/login", json={"username": "tank", "password": "secret1", "enable2FA": True,
                                             "twoFactorCode": next_code})
    assert replay.status_code == 401


def test_profile_update(client, make_user, login):
    user = make_user("switch")
    login(user)
    response = client.put("/api/user/profile", json={"firstName": "Sw", "lastName": "Itch", "email": "s@x.io",
                                                     "currentPassword": "secret123"})
    assert response.status_code == 200 and response.json()["firstName"] == "Sw"
    assert (response.json()["email"], response.json()["pendingEmail"]) == ("switch@example.com", "s@x.io")
    bad = client.put("/api/user/profile", json={"firstName": "", "lastName": "Itch", "email": "s@x.io"})
    assert bad.status_code == 400 and bad.json()["message"] == "First name is required"
    bad_email = client.put("/api/user/profile", json={"firstName": "a", "lastName": "b", "email": "nope"})
    assert bad_email.json()["message"] == "Invalid email address"
    make_user("other", email="other@x.io")
    assert client.put("/api/user/profile", json={"firstName": "a", "lastName": "b", "email": "other@x.io",
                                                 "currentPassword": "secret123"}).status_code == 409


def test_get_login_redirects_to_login_page(client):
    response = client.get("/api/login", follow_redirects=False)
    assert response.status_code == 302 and response.headers["location"] == "/login"


def test_unknown_api_path_is_json_404(client):
    response = client.get("/api/does-not-exist")
    assert response.status_code == 404 and "message" in response.json()


def test_cross_origin_writes_refused(client, make_user):
    make_user("cypher")
    response = client.post("/api/login", json={"username": "cypher", "password": "secret123"},
                           headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    same = client.post("/api/login", json={"username": "cypher", "password": "secret123"},
                       headers={"Origin": "http://localhost:3000"})
    assert same.status_code == 200


def test_openapi_docs_served_without_internet(client):
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and "cdn." not in docs.text
    assert client.get("/api/docs-assets/swagger-ui-bundle.js").status_code == 200
    assert "/api/login" in client.get("/api/openapi.json").json()["paths"]


def test_demo_switch_role(client, make_user, login, demo_mode):
    assert client.post("/api/dev/switch-role", json={"role": "admin"}).status_code == 401
    login(make_user("apoc"))
    assert client.post("/api/dev/switch-role", json={"role": "overlord"}).status_code == 400
    response = client.post("/api/dev/switch-role", json={"role": "vendor"})
    assert response.json()["user"]["role"] == "vendor"
    assert client.get("/api/user").json()["isVendorApproved"] is True


def test_demo_routes_404_when_demo_mode_off(client, make_user, login):
    login(make_user("mouse"))  # no DEMO_MODE: off
    assert client.post("/api/dev/switch-role", json={"role": "admin"}).status_code == 404
    assert client.post("/api/admin/init-demo-data").status_code == 404
