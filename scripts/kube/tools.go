//go:build tools

// Package tools pins the Kubernetes control-plane binaries the test suite runs:
// kube-apiserver, kube-controller-manager and kube-scheduler from k8s.io/kubernetes,
// kwok for fake nodes and pod lifecycle, and etcd. Nothing here is compiled into
// Flotilla; scripts/kube/build.sh builds the commands named below into a cache.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
