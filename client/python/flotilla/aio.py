"""The asyncio client (``grpc.aio``): the same stubs and helpers as
:class:`flotilla.Client`, awaited."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

import grpc
import grpc.aio

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
from flotilla.watch import AsyncWatch, Reconnect

AsyncStatusWatch = AsyncWatch[status_pb2.WatchStatusResponse, status_pb2.WatchEvent]
AsyncActionWatch = AsyncWatch[action_pb2.WatchActionsResponse, action_pb2.ActionEvent]
AsyncContainerClusterWatch = AsyncWatch[
    container_cluster_pb2.WatchContainerClustersResponse, container_cluster_pb2.ContainerClusterEvent
]


def _details(conn: Connection, details: grpc.aio.ClientCallDetails, unary: bool) -> grpc.aio.ClientCallDetails:
    metadata = grpc.aio.Metadata(*list(details.metadata or ()))
    for key, value in conn.metadata():
        metadata.add(key, value)
    timeout = details.timeout
    if timeout is None and unary:
        timeout = conn.timeout
    return grpc.aio.ClientCallDetails(
        details.method, timeout, metadata, details.credentials, details.wait_for_ready
    )


class _UnaryUnary(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def intercept_unary_unary(
        self, continuation: Callable[..., Any], client_call_details: grpc.aio.ClientCallDetails, request: Any
    ) -> Any:
        call = await continuation(_details(self._conn, client_call_details, True), request)
        try:
            await call
        except grpc.aio.AioRpcError as error:
            raise FlotillaError.from_rpc_error(error) from None
        return call


class _UnaryStream(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def intercept_unary_stream(
        self, continuation: Callable[..., Any], client_call_details: grpc.aio.ClientCallDetails, request: Any
    ) -> Any:
        return await continuation(_details(self._conn, client_call_details, False), request)


class AsyncClient:
    """The asyncio flavour of :class:`flotilla.Client` (same arguments).

    >>> async with AsyncClient("localhost:50051") as client:
    ...     await client.lifecycle.GetProject(GetProjectRequest(name="projects/demo"))
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
        conn = self.connection
        interceptors = [_UnaryUnary(conn), _UnaryStream(conn)]
        if conn.tls:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=conn.root_certificates,
                private_key=conn.private_key,
                certificate_chain=conn.certificate_chain,
            )
            self.channel = grpc.aio.secure_channel(
                conn.target, credentials, options=CHANNEL_OPTIONS, interceptors=interceptors
            )
        else:
            self.channel = grpc.aio.insecure_channel(conn.target, options=CHANNEL_OPTIONS, interceptors=interceptors)
        self.lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(self.channel)
        self.status = status_pb2_grpc.StatusServiceStub(self.channel)
        self.actions = action_pb2_grpc.ActionServiceStub(self.channel)
        self.container_clusters = container_cluster_pb2_grpc.ContainerClusterServiceStub(self.channel)
        self.access = access_pb2_grpc.AccessServiceStub(self.channel)
        self.simulator = simulator_pb2_grpc.SimulatorServiceStub(self.channel)

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.close()

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
    ) -> AsyncStatusWatch:
        """WatchStatus of a deployment intent group or a cluster, resuming by itself."""
        request = watch.status_request(name, output, apps, clusters, resources)
        return AsyncWatch(
            lambda token: self.status.WatchStatus(watch.with_token(request, token)),
            lambda m: m.events,
            watch.status_heartbeat,
            resume_token=resume_token,
            heartbeats=heartbeats,
            reconnect=self.reconnect,
        )

    def watch_actions(
        self, cluster: str, *, node_name: str = "", resume_token: str = "", heartbeats: bool = False
    ) -> AsyncActionWatch:
        """WatchActions of a cluster (or one node of it), resuming by itself."""
        request = action_pb2.WatchActionsRequest(cluster=cluster, node_name=node_name)
        return AsyncWatch(
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
    ) -> AsyncContainerClusterWatch:
        """WatchContainerClusters, resuming by itself."""
        request = container_cluster_pb2.WatchContainerClustersRequest(states=list(states))
        return AsyncWatch(
            lambda token: self.container_clusters.WatchContainerClusters(watch.with_token(request, token)),
            lambda m: m.events,
            watch.container_cluster_heartbeat,
            resume_token=resume_token,
            heartbeats=heartbeats,
            reconnect=self.reconnect,
        )
