#!/usr/bin/env bash
# Builds the Kubernetes control plane the tests run (kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok, etcd) from the Go modules pinned in this directory's go.mod, into a
# cache outside the checkout, and prints that directory. A rebuild is skipped when the cache
# holds binaries built from this exact go.mod/go.sum; the Go build cache makes a forced one
# cheap. Needs Go (go.mod's version) and the Go module proxy; nothing of Kubernetes' source is
# kept in the repository.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' go.mod)
stamp=$(cat go.mod go.sum tools.go build.sh | sha256sum | cut -c1-16)
out="${FLOTILLA_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flotilla/kube}/$version-$stamp"
bins=(kube-apiserver kube-controller-manager kube-scheduler kwok etcd kwok-stages.yaml)
ok=1
for b in "${bins[@]}"; do [ -e "$out/$b" ] || ok=0; done
if [ "$ok" -eq 0 ]; then
  echo "building Kubernetes $version control plane into $out" >&2
  mkdir -p "$out.tmp"
  export CGO_ENABLED=0
  # -trimpath and no VCS stamping: the same inputs give the same binaries.
  flags=(-trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$version" | cut -d. -f2)")
  go build "${flags[@]}" -o "$out.tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
  go build "${flags[@]}" -o "$out.tmp/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager
  go build "${flags[@]}" -o "$out.tmp/kube-scheduler" k8s.io/kubernetes/cmd/kube-scheduler
  go build -trimpath -ldflags "-s -w" -o "$out.tmp/kwok" sigs.k8s.io/kwok/cmd/kwok
  go build -trimpath -ldflags "-s -w" -o "$out.tmp/etcd" go.etcd.io/etcd/server/v3
  # kwok's own "fast" stages (nodes Ready with lease heartbeats; pods Ready at once,
  # completed, deleted), as its module ships them.
  kwok_dir=$(go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  for stage in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease \
      pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
    cat "$kwok_dir/kustomize/stage/$stage.yaml"
    echo "---"
  done > "$out.tmp/kwok-stages.yaml"
  rm -rf "$out"
  mv "$out.tmp" "$out"
fi
echo "$out"
