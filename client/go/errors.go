package flotilla

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// FieldViolation is a bad field of a request: its path (e.g. "project_id") and why.
type FieldViolation struct {
	Field       string
	Description string
}

// PreconditionViolation is a precondition a request failed: its type (e.g. "STATE"),
// subject (e.g. the resource name) and why.
type PreconditionViolation struct {
	Type        string
	Subject     string
	Description string
}

// Error is a failed call with the server's error details decoded: ErrorInfo (reason,
// domain, metadata), BadRequest field violations, PreconditionFailure violations and
// ResourceInfo. Every call of a [Client] returns its failures as *Error; it carries
// the gRPC status, so status.Code(err) and status.FromError(err) work on it too.
//
//	var e *flotilla.Error
//	if errors.As(err, &e) && e.Reason == "INVALID_STATE_TRANSITION" { ... }
type Error struct {
	Code    codes.Code
	Message string
	// Reason is ErrorInfo.reason, e.g. "INVALID_STATE_TRANSITION"; "" without one.
	Reason string
	// Domain is ErrorInfo.domain: "flotilla.v1" for the server's own errors.
	Domain string
	// Metadata is ErrorInfo.metadata, e.g. {"current_state": "INSTANTIATED"}.
	Metadata               map[string]string
	FieldViolations        []FieldViolation
	PreconditionViolations []PreconditionViolation
	// ResourceName is ResourceInfo.resource_name, when the server named the resource.
	ResourceName string

	status *status.Status
}

// FromStatus decodes the details of a gRPC status.
func FromStatus(s *status.Status) *Error {
	e := &Error{Code: s.Code(), Message: s.Message(), Metadata: map[string]string{}, status: s}
	for _, detail := range s.Details() {
		switch d := detail.(type) {
		case *errdetails.ErrorInfo:
			e.Reason, e.Domain = d.GetReason(), d.GetDomain()
			for k, v := range d.GetMetadata() {
				e.Metadata[k] = v
			}
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				e.FieldViolations = append(e.FieldViolations, FieldViolation{v.GetField(), v.GetDescription()})
			}
		case *errdetails.PreconditionFailure:
			for _, v := range d.GetViolations() {
				e.PreconditionViolations = append(e.PreconditionViolations, PreconditionViolation{v.GetType(), v.GetSubject(), v.GetDescription()})
			}
		case *errdetails.ResourceInfo:
			e.ResourceName = d.GetResourceName()
		}
	}
	return e
}

// AsError returns err as an *Error: itself when it is one (or wraps one), else decoded
// from its gRPC status (a non-gRPC error becomes codes.Unknown). Nil for nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return FromStatus(status.Convert(err))
}

// wrap returns a call's gRPC failure as *Error and any other error (io.EOF at the end
// of a stream) as it is.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if s, ok := status.FromError(err); ok {
		return FromStatus(s)
	}
	return err
}

// Error is the code, message and reason: "FailedPrecondition: ... [REASON]".
func (e *Error) Error() string {
	text := fmt.Sprintf("%s: %s", e.Code, e.Message)
	if e.Reason != "" {
		text += " [" + e.Reason + "]"
	}
	return text
}

// GRPCStatus is the status the error came from (status.FromError reads it).
func (e *Error) GRPCStatus() *status.Status { return e.status }

// Is matches another *Error of the same code and reason, so errors.Is can test for a
// kind of failure: errors.Is(err, &flotilla.Error{Code: codes.NotFound}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Reason == "" || t.Reason == e.Reason)
}

// Fields are the paths of the field violations, in order.
func (e *Error) Fields() []string {
	fields := make([]string, len(e.FieldViolations))
	for i, v := range e.FieldViolations {
		fields[i] = v.Field
	}
	return fields
}

// Describe is the error in plain words: code, message, reason and every violation, a
// line each.
func (e *Error) Describe() string {
	var b strings.Builder
	b.WriteString(e.Error())
	for _, v := range e.FieldViolations {
		fmt.Fprintf(&b, "\n  %s: %s", v.Field, v.Description)
	}
	for _, v := range e.PreconditionViolations {
		fmt.Fprintf(&b, "\n  %s %s: %s", v.Type, v.Subject, v.Description)
	}
	return b.String()
}
