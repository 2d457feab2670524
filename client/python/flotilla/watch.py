"""Watches that survive lost connections and server restarts.

A Flotilla watch (``WatchStatus``, ``WatchActions``, ``WatchContainerClusters``) starts
with a snapshot, then a ``SYNCED`` event, then live events; every event carries a resume
token. :class:`Watch` (and :class:`AsyncWatch`) hand out the events one at a time and,
when the stream breaks with ``UNAVAILABLE`` (server restart, network cut) or ends, open
it again after the last event handed out: the caller sees every event exactly once.

Heartbeats only move the resume token and are not handed out unless asked for. A
``RESYNC_REQUIRED`` event is handed out: the server could no longer resume (the token
is older than its retention) and a fresh snapshot follows, so drop what you built.
Other errors (a bad request, a revoked token) raise :class:`~flotilla.FlotillaError`.
"""

from __future__ import annotations

import asyncio
import copy
import time
from dataclasses import dataclass
from typing import (
    Any,
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Generator,
    Generic,
    Iterable,
    Iterator,
    Optional,
    Protocol,
    Sequence,
    TypeVar,
)

import grpc

from flotilla.errors import FlotillaError
from flotilla.v1 import action_pb2, container_cluster_pb2, status_pb2

RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE})
"""The codes a watch reconnects after; anything else is raised."""


class Event(Protocol):
    @property
    def resume_token(self) -> str: ...


class Resumable(Protocol):
    resume_token: str


E = TypeVar("E", bound=Event)
M = TypeVar("M")
Q = TypeVar("Q", bound=Resumable)


@dataclass(frozen=True)
class Reconnect:
    """How a watch reconnects: exponential backoff between attempts, and how long it
    may stay disconnected before it gives up (``None``: never)."""

    initial_backoff: float = 0.1
    max_backoff: float = 2.0
    give_up_after: Optional[float] = 120.0

    def delay(self, attempt: int) -> float:
        return float(min(self.max_backoff, self.initial_backoff * (2**attempt)))


class _Resumer(Generic[M, E]):
    """The state both flavours share: the token, the attempt count, the policy."""

    def __init__(
        self,
        events: Callable[[M], Sequence[E]],
        is_heartbeat: Callable[[E], bool],
        resume_token: str,
        heartbeats: bool,
        reconnect: Reconnect,
    ) -> None:
        self.events = events
        self.is_heartbeat = is_heartbeat
        self.resume_token = resume_token
        self.heartbeats = heartbeats
        self.reconnect = reconnect
        self.reconnects = 0
        self._attempt = 0
        self._down_since: Optional[float] = None

    def handed(self, event: E) -> bool:
        """Records an event; whether the caller should see it."""
        self._attempt, self._down_since = 0, None
        if event.resume_token:
            self.resume_token = event.resume_token
        return self.heartbeats or not self.is_heartbeat(event)

    def failed(self, error: Optional[grpc.RpcError]) -> float:
        """The stream broke (or ended): the delay before the next attempt, or raises."""
        if error is not None:
            code = error.code() if callable(getattr(error, "code", None)) else None
            if code not in RETRYABLE:
                raise FlotillaError.from_rpc_error(error) from None
        now = time.monotonic()
        if self._down_since is None:
            self._down_since = now
        limit = self.reconnect.give_up_after
        if limit is not None and now - self._down_since > limit:
            if error is not None:
                raise FlotillaError.from_rpc_error(error) from None
            raise FlotillaError(grpc.StatusCode.UNAVAILABLE, "the watch stream keeps ending")
        delay = self.reconnect.delay(self._attempt)
        self._attempt += 1
        self.reconnects += 1
        return delay


class Watch(Generic[M, E]):
    """An iterator over a watch's events that resumes by itself (see the module doc).

    ``resume_token`` is the token of the last event handed out: save it to resume
    later, in another process, with the ``resume_token`` argument of the watch call.
    ``reconnects`` counts the streams opened again. ``close()`` cancels the stream.
    """

    def __init__(
        self,
        open_stream: Callable[[str], Iterable[M]],
        events: Callable[[M], Sequence[E]],
        is_heartbeat: Callable[[E], bool],
        *,
        resume_token: str = "",
        heartbeats: bool = False,
        reconnect: Reconnect = Reconnect(),
    ) -> None:
        self._open = open_stream
        self._state = _Resumer(events, is_heartbeat, resume_token, heartbeats, reconnect)
        self._stream: Optional[Iterable[M]] = None
        self._iterator = self._run()

    @property
    def resume_token(self) -> str:
        return self._state.resume_token

    @property
    def reconnects(self) -> int:
        return self._state.reconnects

    def __iter__(self) -> Iterator[E]:
        return self

    def __next__(self) -> E:
        return next(self._iterator)

    def close(self) -> None:
        self._cancel()
        self._iterator.close()

    def __enter__(self) -> "Watch[M, E]":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def _cancel(self) -> None:
        cancel = getattr(self._stream, "cancel", None)
        if callable(cancel):
            cancel()
        self._stream = None

    def _run(self) -> Generator[E, None, None]:
        state = self._state
        while True:
            error: Optional[grpc.RpcError] = None
            try:
                self._stream = self._open(state.resume_token)
                for message in self._stream:
                    for event in state.events(message):
                        if state.handed(event):
                            yield event
            except grpc.RpcError as e:
                error = e
            finally:
                self._cancel()
            time.sleep(state.failed(error))


class AsyncWatch(Generic[M, E]):
    """The asyncio flavour of :class:`Watch`: ``async for event in watch``."""

    def __init__(
        self,
        open_stream: Callable[[str], AsyncIterable[M]],
        events: Callable[[M], Sequence[E]],
        is_heartbeat: Callable[[E], bool],
        *,
        resume_token: str = "",
        heartbeats: bool = False,
        reconnect: Reconnect = Reconnect(),
    ) -> None:
        self._open = open_stream
        self._state = _Resumer(events, is_heartbeat, resume_token, heartbeats, reconnect)
        self._stream: Optional[AsyncIterable[M]] = None
        self._iterator = self._run()

    @property
    def resume_token(self) -> str:
        return self._state.resume_token

    @property
    def reconnects(self) -> int:
        return self._state.reconnects

    def __aiter__(self) -> AsyncIterator[E]:
        return self

    async def __anext__(self) -> E:
        return await self._iterator.__anext__()

    async def aclose(self) -> None:
        self._cancel()
        await self._iterator.aclose()

    async def __aenter__(self) -> "AsyncWatch[M, E]":
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.aclose()

    def _cancel(self) -> None:
        cancel = getattr(self._stream, "cancel", None)
        if callable(cancel):
            cancel()
        self._stream = None

    async def _run(self) -> AsyncGenerator[E, None]:
        state = self._state
        while True:
            error: Optional[grpc.RpcError] = None
            try:
                self._stream = self._open(state.resume_token)
                async for message in self._stream:
                    for event in state.events(message):
                        if state.handed(event):
                            yield event
            except grpc.RpcError as e:
                error = e
            finally:
                self._cancel()
            await asyncio.sleep(state.failed(error))


# The three watches, declared once for both clients: the request and the heartbeat test.


def status_request(
    name: str,
    output: "status_pb2.StatusOutput.ValueType",
    apps: "Iterable[str]",
    clusters: "Iterable[str]",
    resources: "Iterable[str]",
) -> "status_pb2.WatchStatusRequest":
    return status_pb2.WatchStatusRequest(
        name=name,
        output=output,
        apps=list(apps),
        clusters=list(clusters),
        resources=list(resources),
    )


def status_heartbeat(event: "status_pb2.WatchEvent") -> bool:
    return event.type == status_pb2.WATCH_EVENT_TYPE_HEARTBEAT


def action_heartbeat(event: "action_pb2.ActionEvent") -> bool:
    return event.type == action_pb2.ACTION_EVENT_TYPE_HEARTBEAT


def container_cluster_heartbeat(event: "container_cluster_pb2.ContainerClusterEvent") -> bool:
    return event.type == container_cluster_pb2.CONTAINER_CLUSTER_EVENT_TYPE_HEARTBEAT


def with_token(request: Q, token: str) -> Q:
    """A copy of a watch request resuming after `token`."""
    resumed = copy.deepcopy(request)
    resumed.resume_token = token
    return resumed
