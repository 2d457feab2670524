"""Connection settings shared by the sync and asyncio clients."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional, Sequence

DEFAULT_ADDRESS = "localhost:50051"
"""Where the server listens by default."""

TOKEN_ENV = "FLOTILLA_TOKEN"
"""The environment variable the client reads its bearer token from by default."""

DEFAULT_TIMEOUT = 30.0
"""Seconds a unary call may take unless the call or the client says otherwise."""

# Reconnect quickly after a server restart: gRPC's default backoff grows to two minutes.
CHANNEL_OPTIONS: Sequence[tuple[str, int]] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
    ("grpc.keepalive_time_ms", 30000),
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
)


@dataclass(frozen=True)
class Connection:
    """Where and how to connect. Build it with :func:`connection`."""

    target: str
    tls: bool
    token: Optional[str]
    root_certificates: Optional[bytes]
    private_key: Optional[bytes]
    certificate_chain: Optional[bytes]
    timeout: Optional[float]

    def __repr__(self) -> str:  # never show the token
        token = "***" if self.token else None
        return f"Connection(target={self.target!r}, tls={self.tls}, token={token})"

    def metadata(self) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.token}")] if self.token else []


def connection(
    address: str = DEFAULT_ADDRESS,
    *,
    token: Optional[str] = None,
    token_file: Optional[str] = None,
    ca_certificate_file: Optional[str] = None,
    client_certificate_file: Optional[str] = None,
    client_key_file: Optional[str] = None,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
) -> Connection:
    """Resolves the connection settings.

    ``address`` is ``host:port``, ``http://host:port`` (plaintext) or
    ``https://host:port`` (TLS); without a scheme, TLS is used when a CA certificate is
    given. The token is ``token``, else the contents of ``token_file``, else
    ``$FLOTILLA_TOKEN``. ``client_certificate_file`` and ``client_key_file`` give mTLS.
    """
    tls: Optional[bool] = None
    target = address
    if address.startswith("https://"):
        tls, target = True, address[len("https://") :]
    elif address.startswith("http://"):
        tls, target = False, address[len("http://") :]
    elif "://" in address:
        raise ValueError(f"address {address!r}: the scheme must be http or https")
    target = target.rstrip("/")
    if tls is False and (ca_certificate_file or client_certificate_file):
        raise ValueError(f"address {address!r} is plaintext but TLS files were given")
    if (client_certificate_file is None) != (client_key_file is None):
        raise ValueError("client_certificate_file and client_key_file go together")
    if token is None and token_file is not None:
        with open(token_file, encoding="utf-8") as f:
            token = f.read().strip()
        if not token:
            raise ValueError(f"token file {token_file} is empty")
    if token is None:
        token = os.environ.get(TOKEN_ENV, "").strip() or None
    return Connection(
        target=target,
        tls=bool(tls) or (tls is None and ca_certificate_file is not None),
        token=token.strip() if token else None,
        root_certificates=_read(ca_certificate_file),
        private_key=_read(client_key_file),
        certificate_chain=_read(client_certificate_file),
        timeout=timeout,
    )


def _read(path: Optional[str]) -> Optional[bytes]:
    if path is None:
        return None
    with open(path, "rb") as f:
        return f.read()
