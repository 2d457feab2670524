"""The synchronous client: one stub per service over one channel."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence, Union

import grpc

from flotilla._connection import CHANNEL_OPTIONS, DEFAULT_ADDRESS, DEFAULT_TIMEOUT, Connection, connection
from flotilla.errors import FlotillaError
from flotilla.v1 import (
    access_pb2_grpc,
    action_pb2,
    action_pb2_grpc,
    container_cluster_pb2,
    container_cluster_pb2_grpc,
    lifecycle_pb2_grpc,
    simulator_pb2_grpc,
    status_pb2,
    status_pb2_grpc,
)
from flotilla import watch
from flotilla.watch import Reconnect, Watch

StatusWatch = Watch[status_pb2.WatchStatusResponse, status_pb2.WatchEvent]
ActionWatch = Watch[action_pb2.WatchActionsResponse, action_pb2.ActionEvent]
ContainerClusterWatch = Watch[
    container_cluster_pb2.WatchContainerClustersResponse, container_cluster_pb2.ContainerClusterEvent
]


class _Details(grpc.ClientCallDetails):
    def __init__(
        self, base: grpc.ClientCallDetails, metadata: list[tuple[str, Union[str, bytes]]], timeout: Optional[float]
    ) -> None:
        self.method = base.method
        self.timeout = timeout
        self.metadata = tuple(metadata)
        self.credentials = base.credentials
        self.wait_for_ready = getattr(base, "wait_for_ready", None)
        self.compression = getattr(base, "compression", None)


def _with_token(conn: Connection, details: grpc.ClientCallDetails, unary: bool) -> _Details:
    metadata: list[tuple[str, Union[str, bytes]]] = list(details.metadata or [])
    metadata.extend(conn.metadata())
    timeout = details.timeout
    if timeout is None and unary:
        timeout = conn.timeout
    return _Details(details, metadata, timeout)


class _Interceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Sends the bearer token, applies the default timeout to unary calls, and raises
    failed unary calls as FlotillaError."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def _single_response(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, request: Any) -> Any:
        outcome = continuation(_with_token(self._conn, details, True), request)
        error = outcome.exception()
        if error is not None:
            raise FlotillaError.from_rpc_error(error) from None
        return outcome

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, request: Any) -> Any:
        return self._single_response(continuation, details, request)

    def intercept_stream_unary(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, requests: Any) -> Any:
        return self._single_response(continuation, details, requests)

    def intercept_unary_stream(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, request: Any) -> Any:
        return continuation(_with_token(self._conn, details, False), request)

    def intercept_stream_stream(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails, requests: Any) -> Any:
        return continuation(_with_token(self._conn, details, False), requests)


def open_channel(conn: Connection, interceptors: Sequence[Any] = ()) -> grpc.Channel:
    if conn.tls:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=conn.root_certificates,
            private_key=conn.private_key,
            certificate_chain=conn.certificate_chain,
        )
        channel = grpc.secure_channel(conn.target, credentials, options=CHANNEL_OPTIONS)
    else:
        channel = grpc.insecure_channel(conn.target, options=CHANNEL_OPTIONS)
    return grpc.intercept_channel(channel, _Interceptor(conn), *interceptors)


class Client:
    """A connection to a Flotilla server, with a stub per service.

    >>> with Client("localhost:50051") as client:   # token from $FLOTILLA_TOKEN
    ...     client.lifecycle.GetProject(GetProjectRequest(name="projects/demo"))

    Failed unary calls raise :class:`~flotilla.FlotillaError`. Unary calls time out
    after ``timeout`` seconds unless given their own; streams never do.
    """

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        *,
        token: Optional[str] = None,
        token_file: Optional[str] = None,
        ca_certificate_file: Optional[str] = None,
        client_certificate_file: Optional[str] = None,
        client_key_file: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        reconnect: Reconnect = Reconnect(),
    ) -> None:
        self.connection = connection(
            address,
            token=token,
            token_file=token_file,
            ca_certificate_file=ca_certificate_file,
            client_certificate_file=client_certificate_file,
            client_key_file=client_key_file,
            timeout=timeout,
        )
        self.reconnect = reconnect
        self.channel = open_channel(self.connection)
        self.lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(self.channel)
        self.status = status_pb2_grpc.StatusServiceStub(self.channel)
        self.actions = action_pb2_grpc.ActionServiceStub(self.channel)
        self.container_clusters = container_cluster_pb2_grpc.ContainerClusterServiceStub(self.channel)
        self.access = access_pb2_grpc.AccessServiceStub(self.channel)
        self.simulator = simulator_pb2_grpc.SimulatorServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def watch_status(
        self,
        name: str,
        *,
        output: "status_pb2.StatusOutput.ValueType" = status_pb2.STATUS_OUTPUT_UNSPECIFIED,
        apps: Iterable[str] = (),
        clusters: Iterable[str] = (),
        resources: Iterable[str] = (),
        resume_token: str = "",
        heartbeats: bool = False,
    ) -> StatusWatch:
        """WatchStatus of a deployment intent group or a cluster, resuming by itself."""
        request = watch.status_request(name, output, apps, clusters, resources)
        return Watch(
            lambda token: self.status.WatchStatus(watch.with_token(request, token)),
            lambda m: m.events,
            watch.status_heartbeat,
            resume_token=resume_token,
            heartbeats=heartbeats,
            reconnect=self.reconnect,
        )

    def watch_actions(
        self, cluster: str, *, node_name: str = "", resume_token: str = "", heartbeats: bool = False
    ) -> ActionWatch:
        """WatchActions of a cluster (or one node of it), resuming by itself."""
        request = action_pb2.WatchActionsRequest(cluster=cluster, node_name=node_name)
        return Watch(
            lambda token: self.actions.WatchActions(watch.with_token(request, token)),
            lambda m: m.events,
            watch.action_heartbeat,
            resume_token=resume_token,
            heartbeats=heartbeats,
            reconnect=self.reconnect,
        )

    def watch_container_clusters(
        self,
        *,
        states: Iterable["container_cluster_pb2.ContainerClusterState.ValueType"] = (),
        resume_token: str = "",
        heartbeats: bool = False,
    ) -> ContainerClusterWatch:
        """WatchContainerClusters, resuming by itself."""
        request = container_cluster_pb2.WatchContainerClustersRequest(states=list(states))
        return Watch(
            lambda token: self.container_clusters.WatchContainerClusters(watch.with_token(request, token)),
            lambda m: m.events,
            watch.container_cluster_heartbeat,
            resume_token=resume_token,
            heartbeats=heartbeats,
            reconnect=self.reconnect,
        )
