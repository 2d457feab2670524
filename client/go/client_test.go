package flotilla_test

// The Go client against real flotilla-server processes: the walk-through, errors,
// paging, TLS, and a watch across a kill -9 mid-rollout.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"flotilla.dev/go/flotilla"
	"flotilla.dev/go/flotilla/examples/walkthrough/tour"
	flotillav1 "flotilla.dev/go/flotilla/gen/flotilla/v1"
	"flotilla.dev/go/flotilla/names"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// goRun builds the main package in dir and runs it against server; its stdout.
func goRun(t *testing.T, server *testServer, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "main")
	if out, err := exec.Command("go", "build", "-o", bin, dir).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "FLOTILLA_SERVER="+server.address, "FLOTILLA_TOKEN="+server.token)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", dir, err, stderr.String())
	}
	return string(out)
}

func TestWalkthroughRunsGreen(t *testing.T) {
	server := startServer(t)
	got := strings.Split(strings.TrimSpace(goRun(t, server, "./examples/walkthrough")), "\n")
	group := "projects/tour/compositeApps/web/versions/v1/deploymentIntentGroups/prod"
	want := []string{
		"instantiated: every resource applied and ready",
		// 2 documents of frontend and 1 of cache on each of 2 clusters; present and
		// ready count frontend's 3 pods on each cluster too.
		"summary: state INSTANTIATED, applied 6, present 12, ready 12",
		"instantiate again: INVALID_STATE_TRANSITION (state INSTANTIATED)",
		"  precondition STATE " + group,
		"terminated: TERMINATED",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("walk-through output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The Go snippet of docs/guide/clients.md, as it stands there, against --demo.
func TestReadmeSnippetRunsVerbatim(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "guide", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(guide), "\n### Go\n")
	_, code, fenced := strings.Cut(section, "```go\n")
	code, _, closed := strings.Cut(code, "```")
	if !found || !fenced || !closed || !strings.Contains(code, "flotilla.Dial") {
		t.Fatal("docs/guide/clients.md has no Go snippet under ### Go")
	}
	server := startServer(t, "--demo")
	// Inside the module, so that its imports resolve to this checkout; "_" keeps it out
	// of ./... .
	dir, err := os.MkdirTemp(".", "_readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(strings.Replace(code, "localhost:50051", server.address, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := goRun(t, server, "./"+dir); got != "ready: 8 resources applied\n" {
		t.Fatalf("snippet printed %q", got)
	}
}

func TestRefusedTransitionCarriesReasonAndPrecondition(t *testing.T) {
	ctx := testContext(t)
	client := startServer(t).client()
	group := createApplication(ctx, t, client)
	_, err := client.Lifecycle.InstantiateDeploymentIntentGroup(ctx, &flotillav1.InstantiateDeploymentIntentGroupRequest{Name: group})
	e := refusal(t, err)
	if e.Code != codes.FailedPrecondition || e.Reason != "INVALID_STATE_TRANSITION" || e.Domain != "flotilla.v1" {
		t.Fatalf("got %s (domain %q)", e, e.Domain)
	}
	if e.Metadata["current_state"] != "CREATED" {
		t.Fatalf("metadata %v", e.Metadata)
	}
	want := []flotilla.PreconditionViolation{{Type: "STATE", Subject: group}}
	got := make([]flotilla.PreconditionViolation, len(e.PreconditionViolations))
	for i, v := range e.PreconditionViolations {
		got[i] = flotilla.PreconditionViolation{Type: v.Type, Subject: v.Subject}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("precondition violations %v", e.PreconditionViolations)
	}
	if !regexp.MustCompile(`^FailedPrecondition: .* \[INVALID_STATE_TRANSITION\]\n  STATE `).MatchString(e.Describe()) {
		t.Fatalf("describe: %q", e.Describe())
	}
	// The standard ways of reading a gRPC error work on it too.
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("status.Code: %s", status.Code(err))
	}
	if !errors.Is(err, &flotilla.Error{Code: codes.FailedPrecondition, Reason: "INVALID_STATE_TRANSITION"}) ||
		errors.Is(err, &flotilla.Error{Code: codes.NotFound}) {
		t.Fatal("errors.Is matches by code and reason")
	}
}

func TestBadNameCarriesFieldViolations(t *testing.T) {
	ctx := testContext(t)
	server := startServer(t)
	client := server.client()
	_, err := client.Lifecycle.CreateProject(ctx, &flotillav1.CreateProjectRequest{ProjectId: "Bad_Name"})
	e := refusal(t, err)
	if e.Code != codes.InvalidArgument || !slices.Equal(e.Fields(), []string{"project_id"}) {
		t.Fatalf("got %s, fields %v", e, e.Fields())
	}
	if !strings.Contains(e.FieldViolations[0].Description, "RFC 1123") {
		t.Fatalf("description %q", e.FieldViolations[0].Description)
	}
	// A bad name in a name field: the violation names that field.
	_, err = client.Lifecycle.GetCompositeApp(ctx, &flotillav1.GetCompositeAppRequest{Name: "projects/x/apps/y"})
	if e := refusal(t, err); e.Code != codes.InvalidArgument || !slices.Equal(e.Fields(), []string{"name"}) {
		t.Fatalf("got %s, fields %v", e, e.Fields())
	}
	// A missing resource is named.
	_, err = client.Lifecycle.GetProject(ctx, &flotillav1.GetProjectRequest{Name: "projects/missing"})
	if e := refusal(t, err); e.Code != codes.NotFound || e.ResourceName != "projects/missing" {
		t.Fatalf("got %s, resource %q", e, e.ResourceName)
	}
	// The name builders and checks refuse what the server refuses, before any call.
	if _, err := names.Project("Bad_Name"); err == nil || !strings.Contains(err.Error(), "not a valid id") {
		t.Fatalf("names.Project: %v", err)
	}
	if err := names.CheckCompositeApp("projects/x/apps/y"); err == nil {
		t.Fatal("CheckCompositeApp accepted projects/x/apps/y")
	}
	if _, err := names.App("projects/x", "web"); err == nil {
		t.Fatal("names.App accepted a parent that is not a composite app")
	}
	if got := names.Must(names.Cluster("lab", "lab1")); got != "clusterProviders/lab/clusters/lab1" || names.CheckCluster(got) != nil {
		t.Fatalf("names.Cluster: %q", got)
	}
	// A token the server does not know is UNAUTHENTICATED.
	_, err = server.client(flotilla.WithToken("flt_not-a-token")).Lifecycle.ListProjects(ctx, &flotillav1.ListProjectsRequest{})
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("unknown token: %v", err)
	}
}

func TestListPagedPastAThousandItems(t *testing.T) {
	ctx := testContext(t)
	client := startServer(t).client()
	const n = 1050
	want := make([]string, 0, n)
	for i := range n {
		id := fmt.Sprintf("p%04d", i)
		if _, err := client.Lifecycle.CreateProject(ctx, &flotillav1.CreateProjectRequest{ProjectId: id}); err != nil {
			t.Fatal(err)
		}
		want = append(want, names.Must(names.Project(id)))
	}
	request := &flotillav1.ListProjectsRequest{PageSize: 100}
	var pages int
	var seen []string
	for project, err := range flotilla.Pages(ctx, func(ctx context.Context, q *flotillav1.ListProjectsRequest, _ ...grpc.CallOption) (*flotillav1.ListProjectsResponse, error) {
		pages++
		return client.Lifecycle.ListProjects(ctx, q)
	}, request, (*flotillav1.ListProjectsResponse).GetProjects) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, project.GetName())
	}
	slices.Sort(seen)
	if !slices.Equal(seen, want) || pages != 11 {
		t.Fatalf("%d pages, %d projects (%d distinct); want 11 pages, %d", pages, len(seen), len(slices.Compact(slices.Clone(seen))), n)
	}
	if request.GetPageToken() != "" {
		t.Fatal("Pages changed the caller's request")
	}
	// The generated iterator, at the server's default page size, and stopping early.
	count := 0
	for _, err := range client.AllProjects(ctx, &flotillav1.ListProjectsRequest{}) {
		if err != nil {
			t.Fatal(err)
		}
		count++
	}
	if count != n {
		t.Fatalf("AllProjects: %d projects, want %d", count, n)
	}
	for range client.AllProjects(ctx, &flotillav1.ListProjectsRequest{PageSize: 10}) {
		break
	}
	// An error ends the iteration with the error.
	var last error
	for _, err := range client.AllApps(ctx, &flotillav1.ListAppsRequest{Parent: "nope"}) {
		last = err
	}
	if status.Code(last) != codes.InvalidArgument {
		t.Fatalf("AllApps with a bad parent: %v", last)
	}
}

type resources map[string]string

func (r resources) apply(event *flotillav1.WatchEvent) {
	if res := event.GetResource(); event.GetType() == flotillav1.WatchEventType_WATCH_EVENT_TYPE_RESOURCE_CHANGED && res != nil {
		key := strings.Join([]string{event.GetAppName(), event.GetCluster(), res.GetGvk().GetKind(), res.GetName()}, "/")
		r[key] = fmt.Sprint(res.GetRsyncStatus(), res.GetClusterStatus(), res.GetReadiness())
	}
}

// snapshot is the state a fresh watch's snapshot describes.
func snapshot(ctx context.Context, t *testing.T, client *flotilla.Client, group string) resources {
	state := resources{}
	for event, err := range client.WatchStatus(&flotillav1.WatchStatusRequest{Name: group}, nil).Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if event.GetType() == flotillav1.WatchEventType_WATCH_EVENT_TYPE_SYNCED {
			return state
		}
		state.apply(event)
	}
	t.Fatal("the watch ended before SYNCED")
	return nil
}

// A server killed (transport loss) or stopped (its streams end with UNAVAILABLE) under an
// open watch in the middle of a rollout, and started again.
func TestWatchSurvivesRestartMidRollout(t *testing.T) {
	for _, signal := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(signal.String(), func(t *testing.T) { watchAcrossRestart(t, signal) })
	}
}

func watchAcrossRestart(t *testing.T, signal syscall.Signal) {
	ctx := testContext(t)
	server := startServer(t)
	client := server.client()
	group := createApplication(ctx, t, client)
	if _, err := client.Lifecycle.ApproveDeploymentIntentGroup(ctx, &flotillav1.ApproveDeploymentIntentGroupRequest{Name: group}); err != nil {
		t.Fatal(err)
	}
	state := resources{}
	var tokens []string
	synced, killedAfter, settled := false, -1, false
	watch := client.WatchStatus(&flotillav1.WatchStatusRequest{Name: group}, nil)
	for event, err := range watch.Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, event.GetResumeToken())
		state.apply(event)
		switch {
		case event.GetType() == flotillav1.WatchEventType_WATCH_EVENT_TYPE_SYNCED && !synced:
			synced = true
			if _, err := client.Lifecycle.InstantiateDeploymentIntentGroup(ctx, &flotillav1.InstantiateDeploymentIntentGroupRequest{Name: group}); err != nil {
				t.Fatal(err)
			}
		case synced && killedAfter < 0 && event.GetType() == flotillav1.WatchEventType_WATCH_EVENT_TYPE_RESOURCE_CHANGED:
			// The first resource change of the rollout: stop the server under the open
			// stream, and start it again on the same port and database.
			killedAfter = len(tokens)
			server.stop(signal)
			server.spawn()
		case killedAfter > 0 && tour.Settled(event):
			settled = true
		}
		if settled {
			break
		}
	}
	if !settled {
		t.Fatal("the watch ended before the rollout settled")
	}
	if watch.Reconnects < 1 {
		t.Fatal("the stream was not cut by the restart")
	}
	if len(tokens) <= killedAfter {
		t.Fatal("no event arrived after the restart")
	}
	if distinct := len(slices.Compact(slices.Sorted(slices.Values(tokens)))); distinct != len(tokens) {
		t.Fatalf("%d events handed out, %d distinct tokens: an event was repeated", len(tokens), distinct)
	}
	fresh := snapshot(ctx, t, server.client(), group)
	if !maps.Equal(state, fresh) {
		t.Fatalf("the events add up to\n%v\na fresh snapshot says\n%v", state, fresh)
	}
	// Not two empty states: the 6 rendered resources (and the pods they made) are there.
	if len(fresh) < 6 {
		t.Fatalf("%d resources in the snapshot, want at least 6:\n%v", len(fresh), fresh)
	}
}

func TestActionAndContainerClusterWatchesStartWithASnapshot(t *testing.T) {
	ctx := testContext(t)
	client := startServer(t).client()
	createApplication(ctx, t, client)
	for event, err := range client.WatchActions(&flotillav1.WatchActionsRequest{Cluster: names.Must(names.Cluster("lab", "lab1"))}, nil).Events(ctx) {
		if err != nil || event.GetType() != flotillav1.ActionEventType_ACTION_EVENT_TYPE_SYNCED {
			t.Fatalf("first action event %v, %v", event, err)
		}
		break
	}
	for event, err := range client.WatchContainerClusters(&flotillav1.WatchContainerClustersRequest{}, nil).Events(ctx) {
		if err != nil || event.GetType() != flotillav1.ContainerClusterEventType_CONTAINER_CLUSTER_EVENT_TYPE_SYNCED {
			t.Fatalf("first container cluster event %v, %v", event, err)
		}
		break
	}
	// An error the watch cannot resume after ends it, as the last pair.
	var last error
	events := 0
	for event, err := range client.WatchActions(&flotillav1.WatchActionsRequest{Cluster: names.Must(names.Cluster("lab", "nowhere"))}, nil).Events(ctx) {
		if event != nil {
			events++
		}
		last = err
	}
	if events != 0 || status.Code(last) != codes.NotFound {
		t.Fatalf("%d events, then %v", events, last)
	}
}

func TestHeartbeatsAreHiddenUnlessAsked(t *testing.T) {
	ctx := testContext(t)
	client := startServer(t, "--sim", "--watch-heartbeat-millis", "200").client()
	group := createApplication(ctx, t, client)
	heartbeat := flotillav1.WatchEventType_WATCH_EVENT_TYPE_HEARTBEAT
	watch := client.WatchStatus(&flotillav1.WatchStatusRequest{Name: group}, &flotilla.WatchOptions{Heartbeats: true})
	for event, err := range watch.Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if event.GetType() == heartbeat {
			break
		}
	}
	// Resumed after the heartbeat, without heartbeats: an idle group yields nothing.
	quiet, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	for event, err := range client.WatchStatus(&flotillav1.WatchStatusRequest{Name: group}, &flotilla.WatchOptions{ResumeToken: watch.ResumeToken}).Events(quiet) {
		t.Fatalf("an idle group's watch handed out %v, %v", event, err)
	}
}

// The guide's way of depending on the client from a checkout, verbatim, in a scratch
// module outside this one.
func TestDependingOnTheModuleFromACheckout(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "guide", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The command may be folded over lines in the guide.
	text := strings.Join(strings.Fields(string(guide)), " ")
	_, command, found := strings.Cut(text, "`go mod edit -require=")
	command, _, closed := strings.Cut(command, "`")
	if !found || !closed {
		t.Fatal("docs/guide/clients.md has no `go mod edit -require=...` command")
	}
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(strings.ReplaceAll("-require="+command, "/path/to/flotilla/client/go", checkout))
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("mod", "init", "example.com/scratch")
	run(append([]string{"mod", "edit"}, args...)...)
	program := `package main

import (
	"fmt"

	"flotilla.dev/go/flotilla"
	flotillav1 "flotilla.dev/go/flotilla/gen/flotilla/v1"
	"flotilla.dev/go/flotilla/names"
)

func main() {
	_ = flotilla.Dial
	fmt.Println(names.Must(names.Project("x")), flotillav1.File_flotilla_v1_lifecycle_proto.Path())
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o600); err != nil {
		t.Fatal(err)
	}
	run("mod", "tidy")
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "projects/x flotilla/v1/lifecycle.proto\n" {
		t.Fatalf("go run: %v\n%s", err, out)
	}
}

// A token the server can no longer resume from (here: one from inside a snapshot) gets
// RESYNC_REQUIRED, handed out, then a fresh snapshot.
func TestResyncRequiredIsHandedOut(t *testing.T) {
	ctx := testContext(t)
	client := startServer(t).client()
	group := createApplication(ctx, t, client)
	request := &flotillav1.WatchStatusRequest{Name: group}
	var inside string
	for event, err := range client.WatchStatus(request, nil).Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		inside = event.GetResumeToken()
		break
	}
	var types []flotillav1.WatchEventType
	for event, err := range client.WatchStatus(request, &flotilla.WatchOptions{ResumeToken: inside}).Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, event.GetType())
		if event.GetType() == flotillav1.WatchEventType_WATCH_EVENT_TYPE_SYNCED {
			break
		}
	}
	if len(types) < 2 || types[0] != flotillav1.WatchEventType_WATCH_EVENT_TYPE_RESYNC_REQUIRED {
		t.Fatalf("events after resuming from inside a snapshot: %v", types)
	}
}

// createApplication creates the walk-through's application (tour.CreateApplication) and
// returns its intent group's name; a failure ends the test.
func createApplication(ctx context.Context, t *testing.T, client *flotilla.Client) string {
	t.Helper()
	group, err := tour.CreateApplication(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	return group
}
