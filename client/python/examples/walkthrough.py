"""Flotilla's walk-through in Python: build an application, deploy it to two clusters,
watch it become Applied and Ready, read its summary, terminate it and watch it go.

    FLOTILLA_SERVER=localhost:50051 FLOTILLA_TOKEN=$(cat flotilla-data/admin.token) \\
        python examples/walkthrough.py
"""

from __future__ import annotations

import os
import sys

from flotilla import Client, FlotillaError, names
from flotilla.v1 import lifecycle_pb2 as lc
from flotilla.v1 import status_pb2 as st

FRONTEND = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
spec:
  replicas: 1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: frontend-config
data:
  theme: dark
"""
CACHE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: cache\n"


def settled(counts: st.WatchEvent) -> bool:
    """Every resource Applied, Present and Ready."""
    rsync, cluster, ready = counts.rsync_status, counts.cluster_status, counts.readiness
    busy = rsync.pending + rsync.retrying + rsync.failed + cluster.not_present + cluster.unknown
    return rsync.applied > 0 and busy == 0 and ready.not_ready == 0


def create_application(client: Client) -> str:
    """Creates the application and its placement; returns the group's name."""
    # A project, a composite app with two apps, a profile that patches frontend.
    project = names.project("tour")
    client.lifecycle.CreateProject(lc.CreateProjectRequest(project_id="tour"))
    web = names.composite_app("tour", "web", "v1")
    client.lifecycle.CreateCompositeApp(
        lc.CreateCompositeAppRequest(parent=project, composite_app_id="web", version_id="v1")
    )
    for app_id, manifests in (("frontend", FRONTEND), ("cache", CACHE)):
        client.lifecycle.CreateApp(
            lc.CreateAppRequest(parent=web, app_id=app_id, app=lc.App(manifests=manifests))
        )
    client.lifecycle.CreateCompositeProfile(
        lc.CreateCompositeProfileRequest(parent=web, composite_profile_id="default")
    )
    patch = lc.ManifestPatch(target_kind="Deployment")
    patch.merge_patch.update({"spec": {"replicas": 3}})
    client.lifecycle.CreateAppProfile(
        lc.CreateAppProfileRequest(
            parent=names.composite_profile(web, "default"),
            app_profile_id="frontend",
            app_profile=lc.AppProfile(app="frontend", patches=[patch]),
        )
    )

    # Two simulated clusters, and a group placing frontend and cache on both.
    client.lifecycle.CreateClusterProvider(lc.CreateClusterProviderRequest(cluster_provider_id="lab"))
    for cluster_id in ("lab1", "lab2"):
        client.lifecycle.CreateCluster(
            lc.CreateClusterRequest(
                parent=names.cluster_provider("lab"),
                cluster_id=cluster_id,
                cluster=lc.Cluster(connection_mode=lc.CONNECTION_MODE_EMBEDDED_SIM, labels={"site": "lab"}),
            )
        )
    group = names.deployment_intent_group(web, "prod")
    client.lifecycle.CreateDeploymentIntentGroup(
        lc.CreateDeploymentIntentGroupRequest(
            parent=web,
            deployment_intent_group_id="prod",
            deployment_intent_group=lc.DeploymentIntentGroup(composite_profile="default"),
        )
    )
    for app_id in ("frontend", "cache"):
        client.lifecycle.CreatePlacementIntent(
            lc.CreatePlacementIntentRequest(
                parent=group,
                placement_intent_id=app_id,
                placement_intent=lc.PlacementIntent(
                    app=app_id, cluster_provider="lab", cluster_names=["lab1", "lab2"]
                ),
            )
        )

    return group


def main() -> None:
    client = Client(os.environ.get("FLOTILLA_SERVER", "localhost:50051"))
    group = create_application(client)

    # Approve and instantiate, then watch until every resource is Applied and Ready.
    client.lifecycle.ApproveDeploymentIntentGroup(lc.ApproveDeploymentIntentGroupRequest(name=group))
    client.lifecycle.InstantiateDeploymentIntentGroup(lc.InstantiateDeploymentIntentGroupRequest(name=group))
    with client.watch_status(group) as watch:
        for event in watch:
            if event.type == st.WATCH_EVENT_TYPE_COUNTS_CHANGED and settled(event):
                break
    print("instantiated: every resource applied and ready")

    summary = client.status.GetDeploymentIntentGroupStatus(
        st.GetDeploymentIntentGroupStatusRequest(name=group, output=st.STATUS_OUTPUT_SUMMARY)
    )
    print(
        f"summary: state {summary.state}, applied {summary.rsync_status.applied}, "
        f"present {summary.cluster_status.present}, ready {summary.readiness.ready}"
    )

    # A refused transition says why, in a form a program can act on.
    try:
        client.lifecycle.InstantiateDeploymentIntentGroup(lc.InstantiateDeploymentIntentGroupRequest(name=group))
    except FlotillaError as error:
        print(f"instantiate again: {error.code().name} {error.reason} (state {error.metadata['current_state']})")

    # Terminate, and watch until the group is TERMINATED with nothing left applied.
    client.lifecycle.TerminateDeploymentIntentGroup(lc.TerminateDeploymentIntentGroupRequest(name=group))
    state = ""
    with client.watch_status(group) as watch:
        for event in watch:
            if event.type == st.WATCH_EVENT_TYPE_LIFECYCLE_CHANGED:
                state = event.state
            if event.type == st.WATCH_EVENT_TYPE_COUNTS_CHANGED and state == "TERMINATED":
                rsync = event.rsync_status
                if rsync.applied + rsync.pending + rsync.retrying == 0:
                    break
    print(f"terminated: {state}")
    client.close()


if __name__ == "__main__":
    try:
        main()
    except FlotillaError as error:
        sys.exit(f"flotilla: {error}")
