"""S3 for tests: moto's server on a free loopback port, a bucket with the CORS the upload client needs, and a
fixture that points the app's storage at it for one test.

moto does not check presigned signatures or POST policies (size ranges), so those rules are covered by the
local backend's tests and the upload token unit tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import httpx
import pytest
from botocore.config import Config

from marketplace.config import settings
from marketplace.integrations.storage import LocalStorage, S3Storage, get_storage
from tests.ports import free_port

BUCKET = "marketplace-test"
REGION = "us-east-1"
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
SITE_ORIGIN = "http://localhost:3000"
# What the README asks of a real bucket: the site may PUT and POST, and the client can read each part's ETag.
CORS = {"CORSRules": [{"AllowedOrigins": [SITE_ORIGIN], "AllowedMethods": ["GET", "PUT", "POST"],
                       "AllowedHeaders": ["*"], "ExposeHeaders": ["ETag"], "MaxAgeSeconds": 3000}]}



def s3_client(endpoint: str):
    return boto3.client("s3", endpoint_url=endpoint, region_name=REGION, **CREDENTIALS,
                        config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """moto's S3 server in a thread, for the whole run."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def fresh_bucket(endpoint: str) -> None:
    """Forget every bucket, then create the test bucket with its CORS rules."""
    httpx.post(f"{endpoint}/moto-api/reset").raise_for_status()
    client = s3_client(endpoint)
    client.create_bucket(Bucket=BUCKET)
    client.put_bucket_cors(Bucket=BUCKET, CORSConfiguration=CORS)


@pytest.fixture
def s3_storage(moto_endpoint: str) -> Iterator[S3Storage]:
    """Switch settings and `get_storage()` to S3 on an empty bucket for one test, then back."""
    fresh_bucket(moto_endpoint)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                            ("AWS_DEFAULT_REGION", REGION)):
            patch.setenv(name, value)
        patch.delenv("AWS_SESSION_TOKEN", raising=False)
        patch.setattr(settings, "storage_backend", "s3")
        patch.setattr(settings, "s3_bucket", BUCKET)
        patch.setattr(settings, "s3_endpoint_url", moto_endpoint)
        patch.setattr(settings, "s3_region", REGION)
        get_storage.cache_clear()
        storage = get_storage()
        assert isinstance(storage, S3Storage)
        try:
            yield storage
        finally:
            get_storage.cache_clear()
    get_storage.cache_clear()


@pytest.fixture
def local_storage(tmp_path) -> Iterator[LocalStorage]:
    """The local backend on a temp folder for one test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(settings, "storage_backend", "local")
        patch.setattr(settings, "storage_dir", str(tmp_path / "files"))
        get_storage.cache_clear()
        storage = get_storage()
        assert isinstance(storage, LocalStorage)
        yield storage
    get_storage.cache_clear()
