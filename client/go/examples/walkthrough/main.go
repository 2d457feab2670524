// The walk-through in Go: build an application, deploy it to two clusters, watch it
// become Applied and Ready, read its summary, terminate it and watch it go.
//
//	FLOTILLA_SERVER=localhost:50051 FLOTILLA_TOKEN=$(cat flotilla-data/admin.token) \
//	  go run ./examples/walkthrough
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"flotilla.dev/go/flotilla"
	"flotilla.dev/go/flotilla/examples/walkthrough/tour"
	flotillav1 "flotilla.dev/go/flotilla/gen/flotilla/v1"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "flotilla: %s\n", flotilla.AsError(err).Describe())
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	address := os.Getenv("FLOTILLA_SERVER")
	if address == "" {
		address = flotilla.DefaultAddress
	}
	client, err := flotilla.Dial(ctx, address)
	if err != nil {
		return err
	}
	defer client.Close()
	group, err := tour.CreateApplication(ctx, client)
	if err != nil {
		return err
	}

	// Approve and instantiate, then watch until every resource is Applied and Ready.
	lc := client.Lifecycle
	if _, err := lc.ApproveDeploymentIntentGroup(ctx, &flotillav1.ApproveDeploymentIntentGroupRequest{Name: group}); err != nil {
		return err
	}
	instantiate := &flotillav1.InstantiateDeploymentIntentGroupRequest{Name: group}
	if _, err := lc.InstantiateDeploymentIntentGroup(ctx, instantiate); err != nil {
		return err
	}
	for event, err := range client.WatchStatus(&flotillav1.WatchStatusRequest{Name: group}, nil).Events(ctx) {
		if err != nil {
			return err
		}
		if tour.Settled(event) {
			break
		}
	}
	fmt.Println("instantiated: every resource applied and ready")

	summary, err := client.Status.GetDeploymentIntentGroupStatus(ctx, &flotillav1.GetDeploymentIntentGroupStatusRequest{
		Name: group, Output: flotillav1.StatusOutput_STATUS_OUTPUT_SUMMARY,
	})
	if err != nil {
		return err
	}
	fmt.Printf("summary: state %s, applied %d, present %d, ready %d\n", summary.GetState(),
		summary.GetRsyncStatus().GetApplied(), summary.GetClusterStatus().GetPresent(), summary.GetReadiness().GetReady())

	// A refused transition says why, in a form a program can act on.
	_, err = lc.InstantiateDeploymentIntentGroup(ctx, instantiate)
	var refused *flotilla.Error
	if !errors.As(err, &refused) {
		return fmt.Errorf("instantiating twice: want a refusal, got %v", err)
	}
	fmt.Printf("instantiate again: %s (state %s)\n", refused.Reason, refused.Metadata["current_state"])
	for _, v := range refused.PreconditionViolations {
		fmt.Printf("  precondition %s %s\n", v.Type, v.Subject)
	}

	// Terminate, and watch until the group is TERMINATED with nothing left applied.
	if _, err := lc.TerminateDeploymentIntentGroup(ctx, &flotillav1.TerminateDeploymentIntentGroupRequest{Name: group}); err != nil {
		return err
	}
	state := ""
	for event, err := range client.WatchStatus(&flotillav1.WatchStatusRequest{Name: group}, nil).Events(ctx) {
		if err != nil {
			return err
		}
		switch event.GetType() {
		case flotillav1.WatchEventType_WATCH_EVENT_TYPE_LIFECYCLE_CHANGED:
			state = event.GetState()
		case flotillav1.WatchEventType_WATCH_EVENT_TYPE_COUNTS_CHANGED:
			r := event.GetRsyncStatus()
			if state == "TERMINATED" && r != nil && r.GetApplied()+r.GetPending()+r.GetRetrying() == 0 {
				fmt.Printf("terminated: %s\n", state)
				return nil
			}
		}
	}
	return errors.New("the watch ended before the group was terminated")
}
