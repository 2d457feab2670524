#!/usr/bin/env bash
# A first, rough measurement (not the P1-P6 benchmark of DESIGN §14, which comes with
# flotilla-bench): the latency of instantiating 100 apps x 10 documents x 100 clusters
# = 100,000 resources through grpcurl against a release build, on SQLite or, given a
# database URL, PostgreSQL. Clusters are AGENT clusters with no agent, so rsync only
# marks the resources Retrying. Needs grpcurl and bc; build with
# `cargo build --release -p flotilla-server` first.
#   scripts/perf-instantiate.sh                                   # SQLite
#   scripts/perf-instantiate.sh postgres://postgres@127.0.0.1/db  # PostgreSQL (empty db)
set -euo pipefail
server="$(cd "$(dirname "$0")/.." && pwd)/target/release/flotilla-server"
DB_URL="${1:-}"
dir=$(mktemp -d)
cd "$dir"
args=(--listen 127.0.0.1:50171 --sim false --data-dir "$dir")
if [ -n "$DB_URL" ]; then export FLOTILLA_DATABASE_URL="$DB_URL"; fi
RUST_LOG=${RUST_LOG:-warn} "$server" "${args[@]}" > server.log 2>&1 &
pid=$!
sleep 1
A() { grpcurl -plaintext -d "$1" localhost:50171 "flotilla.v1.LifecycleService/$2" > /dev/null; }
A '{"project_id":"p"}' CreateProject
A '{"parent":"projects/p","composite_app_id":"ca","version_id":"v1"}' CreateCompositeApp
A '{"parent":"projects/p/compositeApps/ca/versions/v1","composite_profile_id":"prof"}' CreateCompositeProfile
A '{"cluster_provider_id":"cp"}' CreateClusterProvider
for c in $(seq 1 100); do A "{\"parent\":\"clusterProviders/cp\",\"cluster_id\":\"c$c\",\"cluster\":{\"connection_mode\":\"CONNECTION_MODE_AGENT\",\"labels\":{\"fleet\":\"edge\"}}}" CreateCluster; done
A '{"parent":"projects/p/compositeApps/ca/versions/v1","deployment_intent_group_id":"d","deployment_intent_group":{"composite_profile":"prof"}}' CreateDeploymentIntentGroup
docs=""
for d in $(seq 1 10); do docs+="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm$d\ndata:\n  k: v\n---\n"; done
for a in $(seq 1 100); do
  A "{\"parent\":\"projects/p/compositeApps/ca/versions/v1\",\"app_id\":\"a$a\",\"app\":{\"manifests\":\"$docs\"}}" CreateApp
  A "{\"parent\":\"projects/p/compositeApps/ca/versions/v1/deploymentIntentGroups/d\",\"placement_intent_id\":\"a$a\",\"placement_intent\":{\"app\":\"a$a\",\"cluster_provider\":\"cp\",\"cluster_selector\":{\"fleet\":\"edge\"}}}" CreatePlacementIntent
done
D=projects/p/compositeApps/ca/versions/v1/deploymentIntentGroups/d
A "{\"name\":\"$D\"}" ApproveDeploymentIntentGroup
start=$(date +%s.%N)
A "{\"name\":\"$D\"}" InstantiateDeploymentIntentGroup
end=$(date +%s.%N)
echo "instantiate 100000 resources: $(echo "$end - $start" | bc) s"
s1=$(date +%s.%N)
for i in 1 2 3 4 5 6 7 8 9 10; do grpcurl -plaintext -d "{\"name\":\"$D\",\"output\":\"STATUS_OUTPUT_SUMMARY\"}" localhost:50171 flotilla.v1.StatusService/GetDeploymentIntentGroupStatus > /dev/null; done
s2=$(date +%s.%N)
echo "10 summary queries incl. grpcurl start-up: $(echo "$s2 - $s1" | bc) s"
grep -h "instance rendered" server.log || true
kill $pid; wait $pid 2>/dev/null || true
rm -rf "$dir"
