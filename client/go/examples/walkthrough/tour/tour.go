// Package tour builds the walk-through's application: a project, a composite app with
// two apps (frontend and cache), a profile that patches frontend, two simulated
// clusters, and a deployment intent group placing both apps on both clusters.
package tour

import (
	"context"

	"google.golang.org/protobuf/types/known/structpb"

	"flotilla.dev/go/flotilla"
	flotillav1 "flotilla.dev/go/flotilla/gen/flotilla/v1"
	"flotilla.dev/go/flotilla/names"
)

const frontend = `apiVersion: apps/v1
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
`

const cache = "apiVersion: v1\nkind: Service\nmetadata:\n  name: cache\n"

// CreateApplication creates the application and its placement; it returns the
// group's name.
func CreateApplication(ctx context.Context, client *flotilla.Client) (string, error) {
	lc := client.Lifecycle
	if _, err := lc.CreateProject(ctx, &flotillav1.CreateProjectRequest{ProjectId: "tour"}); err != nil {
		return "", err
	}
	web, err := names.CompositeApp("tour", "web", "v1")
	if err != nil {
		return "", err
	}
	if _, err := lc.CreateCompositeApp(ctx, &flotillav1.CreateCompositeAppRequest{
		Parent: names.Must(names.Project("tour")), CompositeAppId: "web", VersionId: "v1",
	}); err != nil {
		return "", err
	}
	for _, app := range []struct{ id, manifests string }{{"frontend", frontend}, {"cache", cache}} {
		if _, err := lc.CreateApp(ctx, &flotillav1.CreateAppRequest{
			Parent: web, AppId: app.id, App: &flotillav1.App{Manifests: app.manifests},
		}); err != nil {
			return "", err
		}
	}
	if _, err := lc.CreateCompositeProfile(ctx, &flotillav1.CreateCompositeProfileRequest{
		Parent: web, CompositeProfileId: "default",
	}); err != nil {
		return "", err
	}
	replicas, err := structpb.NewStruct(map[string]any{"spec": map[string]any{"replicas": 3}})
	if err != nil {
		return "", err
	}
	if _, err := lc.CreateAppProfile(ctx, &flotillav1.CreateAppProfileRequest{
		Parent:       names.Must(names.CompositeProfile(web, "default")),
		AppProfileId: "frontend",
		AppProfile: &flotillav1.AppProfile{
			App:     "frontend",
			Patches: []*flotillav1.ManifestPatch{{TargetKind: "Deployment", MergePatch: replicas}},
		},
	}); err != nil {
		return "", err
	}

	// Two simulated clusters, and a group placing frontend and cache on both.
	if _, err := lc.CreateClusterProvider(ctx, &flotillav1.CreateClusterProviderRequest{ClusterProviderId: "lab"}); err != nil {
		return "", err
	}
	for _, id := range []string{"lab1", "lab2"} {
		if _, err := lc.CreateCluster(ctx, &flotillav1.CreateClusterRequest{
			Parent:    names.Must(names.ClusterProvider("lab")),
			ClusterId: id,
			Cluster: &flotillav1.Cluster{
				ConnectionMode: flotillav1.ConnectionMode_CONNECTION_MODE_EMBEDDED_SIM,
				Labels:         map[string]string{"site": "lab"},
			},
		}); err != nil {
			return "", err
		}
	}
	group, err := names.DeploymentIntentGroup(web, "prod")
	if err != nil {
		return "", err
	}
	if _, err := lc.CreateDeploymentIntentGroup(ctx, &flotillav1.CreateDeploymentIntentGroupRequest{
		Parent:                  web,
		DeploymentIntentGroupId: "prod",
		DeploymentIntentGroup:   &flotillav1.DeploymentIntentGroup{CompositeProfile: "default"},
	}); err != nil {
		return "", err
	}
	for _, app := range []string{"frontend", "cache"} {
		if _, err := lc.CreatePlacementIntent(ctx, &flotillav1.CreatePlacementIntentRequest{
			Parent:            group,
			PlacementIntentId: app,
			PlacementIntent: &flotillav1.PlacementIntent{
				App: app, ClusterProvider: "lab", ClusterNames: []string{"lab1", "lab2"},
			},
		}); err != nil {
			return "", err
		}
	}
	return group, nil
}

// Settled reports whether a COUNTS_CHANGED event says every resource is Applied,
// Present and Ready.
func Settled(event *flotillav1.WatchEvent) bool {
	r, c, d := event.GetRsyncStatus(), event.GetClusterStatus(), event.GetReadiness()
	if event.GetType() != flotillav1.WatchEventType_WATCH_EVENT_TYPE_COUNTS_CHANGED || r == nil || c == nil || d == nil {
		return false
	}
	busy := r.GetPending() + r.GetRetrying() + r.GetFailed() + c.GetNotPresent() + c.GetUnknown()
	return r.GetApplied() > 0 && busy == 0 && d.GetNotReady() == 0
}
