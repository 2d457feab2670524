package flotilla

import (
	"context"
	"errors"
	"io"
	"iter"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	flotillav1 "flotilla.dev/go/flotilla/gen/flotilla/v1"
)

// WatchOptions says how a watch starts and reconnects. The zero value is the default.
type WatchOptions struct {
	// ResumeToken resumes after this token (from an earlier watch's [Watch.ResumeToken])
	// instead of starting with a snapshot.
	ResumeToken string
	// Heartbeats hands out heartbeat events too (they always move the resume token).
	Heartbeats bool
	// InitialBackoff is the first delay before opening the stream again (default 100 ms);
	// it doubles up to MaxBackoff (default 2 s).
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// GiveUpAfter ends the watch with the last error after this long without a working
	// stream (default 2 minutes; negative: never).
	GiveUpAfter time.Duration
}

// Event is what a watch hands out: WatchEvent, ActionEvent or ContainerClusterEvent.
type Event interface {
	proto.Message
	GetResumeToken() string
}

// Watch is one of Flotilla's watches (WatchStatus, WatchActions,
// WatchContainerClusters) that survives lost connections and server restarts: a
// snapshot, SYNCED, then live events. When the stream breaks with UNAVAILABLE (a
// server restart, a cut connection) or ends, it is opened again after the last event
// handed out, so the caller sees every event once. RESYNC_REQUIRED is handed out (a
// fresh snapshot follows: drop what was built from the events); heartbeats are not,
// unless asked for. Any other error ends the watch. A Watch is used by one goroutine.
type Watch[E Event] struct {
	// ResumeToken is the token of the last event handed out: save it to resume later.
	ResumeToken string
	// Reconnects counts the times the stream was opened again.
	Reconnects int

	// open opens the stream after resumeToken and returns its receive function.
	open    func(ctx context.Context, resumeToken string) (func() ([]E, error), error)
	options WatchOptions
}

// Retryable reports whether a watch opens its stream again after err: UNAVAILABLE (the
// server went away, or the connection broke under the stream).
func Retryable(err error) bool {
	return AsError(err).Code == codes.Unavailable
}

// Events yields the watch's events, one at a time, until ctx ends (the iteration then
// stops without an error), the loop breaks, or an error the watch cannot resume after
// ends it (yielded as the last pair, with a nil event):
//
//	for event, err := range watch.Events(ctx) {
//		if err != nil { return err }
//		...
//	}
func (w *Watch[E]) Events(ctx context.Context) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		var zero E
		backoff := w.options.InitialBackoff
		var downSince time.Time
		for {
			failure, progressed := w.run(ctx, yield)
			if progressed {
				backoff, downSince = w.options.InitialBackoff, time.Time{}
			}
			if failure == errStop || ctx.Err() != nil {
				return
			}
			if failure != nil && !Retryable(failure) {
				yield(zero, failure)
				return
			}
			if failure == nil {
				failure = &Error{Code: codes.Unavailable, Message: "the watch stream keeps ending"}
			}
			now := time.Now()
			if downSince.IsZero() {
				downSince = now
			}
			if w.options.GiveUpAfter > 0 && now.Sub(downSince) > w.options.GiveUpAfter {
				yield(zero, failure)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, w.options.MaxBackoff)
			w.Reconnects++
		}
	}
}

// errStop: the caller broke out of the loop.
var errStop = errors.New("stop")

// run opens the stream once and hands out its events; it returns why the stream ended
// (nil: it ended cleanly) and whether any event arrived on it.
func (w *Watch[E]) run(ctx context.Context, yield func(E, error) bool) (failure error, progressed bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recv, err := w.open(ctx, w.ResumeToken)
	if err != nil {
		return err, false
	}
	for {
		events, err := recv()
		if errors.Is(err, io.EOF) {
			return nil, progressed
		}
		if err != nil {
			return err, progressed
		}
		for _, event := range events {
			progressed = true
			if token := event.GetResumeToken(); token != "" {
				w.ResumeToken = token
			}
			if (w.options.Heartbeats || !isHeartbeat(event)) && !yield(event, nil) {
				return errStop, true
			}
		}
	}
}

// resuming makes a Watch of a generated Watch* method: each (re)open sends a copy of
// request with its resume_token set, and hands out each response's events.
func resuming[Q proto.Message, R any, E Event](
	call func(context.Context, Q, ...grpc.CallOption) (grpc.ServerStreamingClient[R], error),
	request Q,
	events func(*R) []E,
	options *WatchOptions,
) *Watch[E] {
	token := request.ProtoReflect().Descriptor().Fields().ByName("resume_token")
	open := func(ctx context.Context, resumeToken string) (func() ([]E, error), error) {
		q := proto.Clone(request).(Q)
		q.ProtoReflect().Set(token, protoreflect.ValueOfString(resumeToken))
		s, err := call(ctx, q)
		if err != nil {
			return nil, err
		}
		return func() ([]E, error) {
			r, err := s.Recv()
			if err != nil {
				return nil, err
			}
			return events(r), nil
		}, nil
	}
	w := &Watch[E]{open: open}
	if options != nil {
		w.options = *options
	}
	w.ResumeToken = w.options.ResumeToken
	if w.options.InitialBackoff <= 0 {
		w.options.InitialBackoff = 100 * time.Millisecond
	}
	if w.options.MaxBackoff <= 0 {
		w.options.MaxBackoff = 2 * time.Second
	}
	if w.options.GiveUpAfter == 0 {
		w.options.GiveUpAfter = 2 * time.Minute
	}
	return w
}

// isHeartbeat: the event's `type` is its enum's *_HEARTBEAT value.
func isHeartbeat[E Event](event E) bool {
	m := event.ProtoReflect()
	field := m.Descriptor().Fields().ByName("type")
	if field == nil || field.Enum() == nil {
		return false
	}
	value := field.Enum().Values().ByNumber(m.Get(field).Enum())
	return value != nil && strings.HasSuffix(string(value.Name()), "_HEARTBEAT")
}

// WatchStatus watches a deployment intent group or a cluster's network intents
// (request.Name), resuming by itself. options may be nil.
func (c *Client) WatchStatus(request *flotillav1.WatchStatusRequest, options *WatchOptions) *Watch[*flotillav1.WatchEvent] {
	return resuming(c.Status.WatchStatus, request, (*flotillav1.WatchStatusResponse).GetEvents, options)
}

// WatchActions watches the actions of a cluster (or of one node of it), resuming by
// itself. options may be nil.
func (c *Client) WatchActions(request *flotillav1.WatchActionsRequest, options *WatchOptions) *Watch[*flotillav1.ActionEvent] {
	return resuming(c.Actions.WatchActions, request, (*flotillav1.WatchActionsResponse).GetEvents, options)
}

// WatchContainerClusters watches the container clusters, resuming by itself. options
// may be nil.
func (c *Client) WatchContainerClusters(request *flotillav1.WatchContainerClustersRequest, options *WatchOptions) *Watch[*flotillav1.ContainerClusterEvent] {
	return resuming(c.ContainerClusters.WatchContainerClusters, request, (*flotillav1.WatchContainerClustersResponse).GetEvents, options)
}
