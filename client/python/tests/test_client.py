"""The Python client against a real flotilla-server: the walk-through, errors, paging,
and a watch that survives a server restart."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from conftest import Server
from flotilla import AsyncClient, Client, FlotillaError, apages, names, pages
from flotilla.v1 import lifecycle_pb2 as lc
from flotilla.v1 import status_pb2 as st

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))
import walkthrough  # noqa: E402


def test_walkthrough_example_runs_green(server: Server) -> None:
    env = dict(os.environ, FLOTILLA_SERVER=server.address, FLOTILLA_TOKEN=server.token)
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "walkthrough.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "instantiated: every resource applied and ready"
    # 2 documents of frontend and 1 of cache on each of 2 clusters; present and ready
    # count frontend's 3 pods (its profile patched replicas to 3) on each cluster too
    assert lines[1] == "summary: state INSTANTIATED, applied 6, present 12, ready 12", lines
    assert lines[2] == "instantiate again: FAILED_PRECONDITION INVALID_STATE_TRANSITION (state INSTANTIATED)"
    assert lines[3] == "terminated: TERMINATED"


def readme_block(heading: str, language: str) -> str:
    readme = (Path(__file__).resolve().parents[3] / "docs" / "guide" / "clients.md").read_text()
    section = readme.split(f"\n{heading}\n", 1)[1]
    return section.split(f"```{language}\n", 1)[1].split("```", 1)[0]


def test_the_readme_snippet_runs_verbatim(demo_server: Server) -> None:
    code = readme_block("### Python", "python").replace("localhost:50051", demo_server.address)
    env = dict(os.environ, FLOTILLA_TOKEN=demo_server.token)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ready: 8 resources applied\n"


def test_a_refused_transition_carries_reason_and_precondition(server: Server) -> None:
    with server.client() as client:
        group = walkthrough.create_application(client)
        with pytest.raises(FlotillaError) as refused:
            client.lifecycle.InstantiateDeploymentIntentGroup(
                lc.InstantiateDeploymentIntentGroupRequest(name=group)
            )
    error = refused.value
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert isinstance(error, grpc.RpcError)
    assert error.reason == "INVALID_STATE_TRANSITION"
    assert error.metadata["current_state"] == "CREATED"
    assert [(v.type, v.subject) for v in error.precondition_violations] == [("STATE", group)]
    assert "INVALID_STATE_TRANSITION" in str(error)


def test_a_bad_name_carries_field_violations(server: Server) -> None:
    with server.client() as client:
        with pytest.raises(FlotillaError) as refused:
            client.lifecycle.CreateProject(lc.CreateProjectRequest(project_id="Bad_Name"))
    error = refused.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.fields == ["project_id"], error
    assert "RFC 1123" in error.field_violations[0].description
    # The name builders refuse it before any call is made.
    with pytest.raises(ValueError, match="not a valid id"):
        names.project("Bad_Name")


def test_unauthenticated_without_a_token(server: Server) -> None:
    with Client(server.address, token="flt_not-a-token") as client:
        with pytest.raises(FlotillaError) as refused:
            client.lifecycle.ListProjects(lc.ListProjectsRequest())
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_pages_yield_every_item_once(server: Server) -> None:
    ids = [f"p{i:02}" for i in range(7)]
    with server.client() as client:
        for project_id in ids:
            client.lifecycle.CreateProject(lc.CreateProjectRequest(project_id=project_id))
        request = lc.ListProjectsRequest(page_size=2)
        seen = [p.name for p in pages(client.lifecycle.ListProjects, request, lambda r: r.projects)]
        assert request.page_token == "", "the caller's request is not changed"
    assert sorted(seen) == [names.project(i) for i in ids]


def test_async_client_pages_and_errors(server: Server) -> None:
    async def run() -> None:
        async with AsyncClient(server.address, token=server.token) as client:
            await client.lifecycle.CreateProject(lc.CreateProjectRequest(project_id="one"))
            await client.lifecycle.CreateProject(lc.CreateProjectRequest(project_id="two"))
            request = lc.ListProjectsRequest(page_size=1)
            seen = [p.name async for p in apages(client.lifecycle.ListProjects, request, lambda r: r.projects)]
            assert sorted(seen) == ["projects/one", "projects/two"]
            with pytest.raises(FlotillaError) as refused:
                await client.lifecycle.CreateProject(lc.CreateProjectRequest(project_id="one"))
            assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS

    asyncio.run(run())


Key = tuple[str, str, str, str]
State = dict[Key, tuple[int, int, int]]


def apply(state: State, event: st.WatchEvent) -> None:
    if event.type == st.WATCH_EVENT_TYPE_RESOURCE_CHANGED:
        r = event.resource
        state[(event.app_name, event.cluster, r.gvk.kind, r.name)] = (
            r.rsync_status,
            r.cluster_status,
            r.readiness,
        )


def snapshot(client: Client, group: str) -> State:
    state: State = {}
    with client.watch_status(group) as watch:
        for event in watch:
            if event.type == st.WATCH_EVENT_TYPE_SYNCED:
                return state
            apply(state, event)
    raise AssertionError("the watch ended")


def counts(event: st.WatchEvent) -> tuple[Any, ...]:
    r, c, d = event.rsync_status, event.cluster_status, event.readiness
    return (r.pending, r.applied, r.failed, r.retrying, c.present, c.not_present, c.unknown, d.ready, d.not_ready)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "kill-9"])
def test_a_watch_survives_a_server_restart_without_losing_or_repeating_events(server: Server, sig: int) -> None:
    client = server.client()
    group = walkthrough.create_application(client)
    client.lifecycle.ApproveDeploymentIntentGroup(lc.ApproveDeploymentIntentGroupRequest(name=group))
    state: State = {}
    tokens: list[str] = []
    restarted_after = -1
    watch = client.watch_status(group)
    synced = False
    for event in watch:
        tokens.append(event.resume_token)
        apply(state, event)
        if event.type == st.WATCH_EVENT_TYPE_SYNCED and not synced:
            synced = True
            client.lifecycle.InstantiateDeploymentIntentGroup(
                lc.InstantiateDeploymentIntentGroupRequest(name=group)
            )
        elif synced and restarted_after < 0 and event.type == st.WATCH_EVENT_TYPE_RESOURCE_CHANGED:
            # The first resource change of the instantiate: restart the server now,
            # in the middle of the rollout, under the open stream.
            restarted_after = len(tokens)
            server.restart(sig)
        elif event.type == st.WATCH_EVENT_TYPE_COUNTS_CHANGED and restarted_after > 0:
            if walkthrough.settled(event):
                break
    watch.close()
    client.close()
    assert watch.reconnects >= 1, "the stream was cut by the restart"
    assert len(tokens) > restarted_after, "events arrived after the restart"
    assert len(set(tokens)) == len(tokens), "no event is handed out twice"
    with server.client() as fresh:
        assert state == snapshot(fresh, group), "the events add up to a fresh snapshot"


def test_the_async_watch_survives_a_server_restart_too(server: Server) -> None:
    async def run() -> None:
        async with AsyncClient(server.address, token=server.token) as client:
            group = await asyncio.to_thread(lambda: walkthrough.create_application(server.client()))
            await client.lifecycle.ApproveDeploymentIntentGroup(lc.ApproveDeploymentIntentGroupRequest(name=group))
            await client.lifecycle.InstantiateDeploymentIntentGroup(
                lc.InstantiateDeploymentIntentGroupRequest(name=group)
            )
            state: State = {}
            tokens: list[str] = []
            restarted_after = -1
            watch = client.watch_status(group)
            async for event in watch:
                tokens.append(event.resume_token)
                apply(state, event)
                if event.type == st.WATCH_EVENT_TYPE_SYNCED and restarted_after < 0:
                    restarted_after = len(tokens)
                    await asyncio.to_thread(server.restart, signal.SIGKILL)
                elif event.type == st.WATCH_EVENT_TYPE_COUNTS_CHANGED and restarted_after > 0:
                    if walkthrough.settled(event):
                        break
            await watch.aclose()
            assert watch.reconnects >= 1
            assert len(set(tokens)) == len(tokens)
        with server.client() as fresh:
            assert state == snapshot(fresh, group)

    asyncio.run(run())


def test_action_and_container_cluster_watches_start_with_a_snapshot(server: Server) -> None:
    from flotilla.v1 import action_pb2, container_cluster_pb2

    with server.client() as client:
        walkthrough.create_application(client)
        with client.watch_actions(names.cluster("lab", "lab1")) as actions:
            assert next(actions).type == action_pb2.ACTION_EVENT_TYPE_SYNCED
            assert actions.resume_token
        with client.watch_container_clusters() as clusters:
            assert next(clusters).type == container_cluster_pb2.CONTAINER_CLUSTER_EVENT_TYPE_SYNCED
        with pytest.raises(FlotillaError) as refused:
            next(client.watch_actions(names.cluster("lab", "nowhere")))
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_canonical_json_field_mask_updates_only_its_fields(server: Server) -> None:
    from google.protobuf import json_format

    with server.client() as client:
        client.lifecycle.CreateProject(
            lc.CreateProjectRequest(project_id="masked", project=lc.Project(description="before"))
        )
        request = json_format.Parse(
            '{"project": {"name": "projects/masked", "description": "after",'
            ' "labels": {"team": "x"}}, "update_mask": "description"}',
            lc.UpdateProjectRequest(),
        )
        assert list(request.update_mask.paths) == ["description"]
        updated = client.lifecycle.UpdateProject(request)
    assert updated.description == "after"
    assert dict(updated.labels) == {}, "labels are outside the mask"


def test_a_kind_only_the_proto_declares_round_trips_with_its_generated_name(server: Server) -> None:
    cluster = names.cluster("lab", "lab1")
    with server.client() as client:
        client.lifecycle.CreateClusterProvider(lc.CreateClusterProviderRequest(cluster_provider_id="lab"))
        client.lifecycle.CreateCluster(
            lc.CreateClusterRequest(
                parent=names.cluster_provider("lab"),
                cluster_id="lab1",
                cluster=lc.Cluster(connection_mode=lc.CONNECTION_MODE_EMBEDDED_SIM),
            )
        )
        created = client.lifecycle.CreateClusterKvPair(
            lc.CreateClusterKvPairRequest(
                parent=cluster, kv_pair_id="net", cluster_kv_pair=lc.ClusterKvPair(pairs={"mtu": "1450"})
            )
        )
        assert created.name == names.cluster_kv_pair(cluster, "net")
        fetched = client.lifecycle.GetClusterKvPair(lc.GetClusterKvPairRequest(name=created.name))
        assert dict(fetched.pairs) == {"mtu": "1450"} and fetched.etag == created.etag
        with pytest.raises(FlotillaError) as refused:
            client.lifecycle.CreateClusterKvPair(
                lc.CreateClusterKvPairRequest(parent=cluster, kv_pair_id="bad", cluster_kv_pair=lc.ClusterKvPair(pairs={"": "x"}))
            )
    assert refused.value.fields == ["cluster_kv_pair.pairs"], refused.value
    with pytest.raises(ValueError, match="not a valid id"):
        names.cluster_kv_pair(cluster, "Bad_Id")


def test_a_manifest_at_the_nesting_limit_decodes_here(server: Server) -> None:
    """The server takes documents nested 32 deep (objects and arrays, the document
    itself included) and refuses deeper ones: this client's decoder (upb, which stops at
    100 nested messages) reads what the server sends back of the deepest it takes."""
    import json

    def document(depth: int) -> str:
        inner: Any = "leaf"
        for _ in range(depth - 1):
            inner = {"k": inner}
        return json.dumps([{"apiVersion": "v1", "kind": "Widget", "metadata": {"name": "deep"}, "spec": inner}])

    with server.client() as client:
        group = walkthrough.create_application(client)
        cache = names.app(names.composite_app("tour", "web", "v1"), "cache")
        with pytest.raises(FlotillaError) as refused:
            client.lifecycle.UpdateApp(
                lc.UpdateAppRequest(app=lc.App(name=cache, manifests=document(33)))
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert refused.value.fields[0].startswith("app.manifests[0].spec.k"), refused.value
        client.lifecycle.UpdateApp(lc.UpdateAppRequest(app=lc.App(name=cache, manifests=document(32))))
        client.lifecycle.ApproveDeploymentIntentGroup(lc.ApproveDeploymentIntentGroupRequest(name=group))
        client.lifecycle.InstantiateDeploymentIntentGroup(
            lc.InstantiateDeploymentIntentGroupRequest(name=group)
        )
        rendered = client.lifecycle.ListRenderedResources(lc.ListRenderedResourcesRequest(parent=group))
        deep = [r for r in rendered.rendered_resources if r.resource_name == "deep"]
        assert len(deep) == 2, rendered  # one per cluster
        value: Any = deep[0].manifest["spec"]
        depth = 1
        while not isinstance(value, str):
            value, depth = value["k"], depth + 1
        assert (value, depth) == ("leaf", 32)
