"""POSTing one webhook delivery to a vendor's server, connecting only to addresses the caller checked.

The caller resolves the name and checks every address (services/webhooks/addresses.py); the connection goes
to the first of those that answers, while TLS still verifies the certificate for the URL's host name (SNI), and
the Host header names it. Redirects are not followed (an answer is an answer: 3xx is not a success).
"""

from __future__ import annotations

import http.client
import socket
import ssl
from collections.abc import Sequence
from urllib.parse import SplitResult

MAX_ANSWER_BYTES = 64 * 1024  # read and dropped: the status code is all that counts


class WebhookHttpError(Exception):
    """No answer: refused, reset, timed out, a TLS failure."""


def _connect(addresses: Sequence[str], port: int, timeout: float) -> socket.socket:
    error: OSError | None = None
    for address in addresses:
        try:
            return socket.create_connection((address, port), timeout=timeout)
        except OSError as failed:
            error = failed
    raise WebhookHttpError(f"could not connect: {error}")


class _Pinned(http.client.HTTPConnection):
    """An HTTP(S) connection to checked addresses rather than to what the host name resolves to now."""

    def __init__(self, parts: SplitResult, port: int, addresses: Sequence[str], timeout: float) -> None:
        super().__init__(parts.hostname or "", port, timeout=timeout)
        self._parts, self._addresses = parts, addresses

    def connect(self) -> None:
        sock = _connect(self._addresses, self.port, self.timeout or 10)
        if self._parts.scheme == "https":
            context = ssl.create_default_context()
            sock = context.wrap_socket(sock, server_hostname=self._parts.hostname)
        self.sock = sock


def post(
    *, parts: SplitResult, port: int, addresses: Sequence[str], body: bytes, headers: dict[str, str], timeout: float
) -> int:
    """The answer's status code; `WebhookHttpError` when there was no answer within `timeout` seconds."""
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    connection = _Pinned(parts, port, addresses, timeout)
    try:
        connection.request("POST", path, body=body, headers={**headers, "Content-Length": str(len(body))})
        answer = connection.getresponse()
        answer.read(MAX_ANSWER_BYTES)
        return answer.status
    except (OSError, http.client.HTTPException) as error:
        raise WebhookHttpError(str(error) or type(error).__name__) from None
    finally:
        connection.close()
