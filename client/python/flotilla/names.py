# Generated from proto/ by scripts/gen-clients.sh (the kinds' resource declarations);
# do not edit.
"""Validated builders of Flotilla resource names (AIP-122 paths).

Each id must be an RFC 1123 label, as the server requires: 1-63 characters of
``[a-z0-9-]``, starting and ending with a letter or digit. A bad id raises
``ValueError`` before any call is made.
"""

from __future__ import annotations

import re

_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")


def check_id(id_: str) -> str:
    """Returns ``id_`` if it is a valid id, else raises ``ValueError`` saying why."""
    if not _LABEL.match(id_):
        raise ValueError(
            f"{id_!r} is not a valid id: 1-63 characters of [a-z0-9-], "
            "starting and ending with a letter or digit"
        )
    return id_


def project(project_id: str) -> str:
    """``projects/{project}``"""
    return f"projects/{check_id(project_id)}"


def composite_app(project_id: str, composite_app_id: str, version_id: str) -> str:
    """``projects/{project}/compositeApps/{composite_app}/versions/{version}``"""
    return f"projects/{check_id(project_id)}/compositeApps/{check_id(composite_app_id)}/versions/{check_id(version_id)}"


def app(composite_app_name: str, app_id: str) -> str:
    """``projects/{project}/compositeApps/{composite_app}/versions/{version}/apps/{app}``"""
    return f"{composite_app_name}/apps/{check_id(app_id)}"


def composite_profile(composite_app_name: str, composite_profile_id: str) -> str:
    """``projects/{project}/compositeApps/{composite_app}/versions/{version}/compositeProfiles/{composite_profile}``"""
    return f"{composite_app_name}/compositeProfiles/{check_id(composite_profile_id)}"


def app_profile(composite_profile_name: str, app_profile_id: str) -> str:
    """``projects/{project}/compositeApps/{composite_app}/versions/{version}/compositeProfiles/{composite_profile}/appProfiles/{app_profile}``"""
    return f"{composite_profile_name}/appProfiles/{check_id(app_profile_id)}"


def deployment_intent_group(composite_app_name: str, deployment_intent_group_id: str) -> str:
    """``projects/{project}/compositeApps/{composite_app}/versions/{version}/deploymentIntentGroups/{deployment_intent_group}``"""
    return f"{composite_app_name}/deploymentIntentGroups/{check_id(deployment_intent_group_id)}"


def placement_intent(deployment_intent_group_name: str, placement_intent_id: str) -> str:
    """``projects/{project}/compositeApps/{composite_app}/versions/{version}/deploymentIntentGroups/{deployment_intent_group}/placementIntents/{placement_intent}``"""
    return f"{deployment_intent_group_name}/placementIntents/{check_id(placement_intent_id)}"


def cluster_provider(cluster_provider_id: str) -> str:
    """``clusterProviders/{cluster_provider}``"""
    return f"clusterProviders/{check_id(cluster_provider_id)}"


def cluster(cluster_provider_id: str, cluster_id: str) -> str:
    """``clusterProviders/{cluster_provider}/clusters/{cluster}``"""
    return f"clusterProviders/{check_id(cluster_provider_id)}/clusters/{check_id(cluster_id)}"


def network_intent(cluster_name: str, network_intent_id: str) -> str:
    """``clusterProviders/{cluster_provider}/clusters/{cluster}/networkIntents/{network_intent}``"""
    return f"{cluster_name}/networkIntents/{check_id(network_intent_id)}"


def cluster_kv_pair(cluster_name: str, kv_pair_id: str) -> str:
    """``clusterProviders/{cluster_provider}/clusters/{cluster}/kvPairs/{kv_pair}``"""
    return f"{cluster_name}/kvPairs/{check_id(kv_pair_id)}"
