"""Flotilla's Python client.

Generated messages and stubs live in :mod:`flotilla.v1` (proto package
``flotilla.v1``); this package adds what makes them pleasant:

- :class:`Client` and :class:`AsyncClient`: one stub per service over one channel,
  bearer token (``$FLOTILLA_TOKEN`` by default), TLS/mTLS, a default timeout;
- :class:`FlotillaError`: failed calls with the gRPC code, ``ErrorInfo`` reason and
  metadata, field and precondition violations decoded;
- ``watch_status`` / ``watch_actions`` / ``watch_container_clusters``: iterators of
  events that reconnect and resume by themselves, each event seen exactly once;
- :func:`pages` / :func:`apages`: every item of a ``List*`` call;
- :mod:`flotilla.names`: validated resource-name builders.
"""

from flotilla import names
from flotilla._connection import DEFAULT_ADDRESS, TOKEN_ENV, Connection, connection
from flotilla.aio import AsyncClient
from flotilla.client import Client
from flotilla.errors import FieldViolation, FlotillaError, PreconditionViolation
from flotilla.pages import apages, pages
from flotilla.watch import AsyncWatch, Reconnect, Watch

__all__ = [
    "DEFAULT_ADDRESS",
    "TOKEN_ENV",
    "AsyncClient",
    "AsyncWatch",
    "Client",
    "Connection",
    "FieldViolation",
    "FlotillaError",
    "PreconditionViolation",
    "Reconnect",
    "Watch",
    "apages",
    "connection",
    "names",
    "pages",
]
