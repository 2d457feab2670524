package flotilla

import (
	"context"
	"fmt"
	"iter"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Pages yields every item of a List call, page after page, following next_page_token:
// call is the generated method, request the first page's request (not modified; its
// page_size is kept), items the response's repeated field. An error ends the iteration
// (yielded as the last pair, with a zero item). The client's All* methods are Pages
// over each List method.
//
//	for project, err := range flotilla.Pages(ctx, client.Lifecycle.ListProjects,
//		&flotillav1.ListProjectsRequest{PageSize: 100}, (*flotillav1.ListProjectsResponse).GetProjects) {
//		...
//	}
func Pages[Q proto.Message, R interface{ GetNextPageToken() string }, T any](
	ctx context.Context,
	call func(context.Context, Q, ...grpc.CallOption) (R, error),
	request Q,
	items func(R) []T,
	opts ...grpc.CallOption,
) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		q := proto.Clone(request).(Q)
		token := q.ProtoReflect().Descriptor().Fields().ByName("page_token")
		if token == nil || token.Kind() != protoreflect.StringKind {
			yield(zero, fmt.Errorf("flotilla: %s has no page_token", q.ProtoReflect().Descriptor().FullName()))
			return
		}
		for {
			response, err := call(ctx, q, opts...)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, item := range items(response) {
				if !yield(item, nil) {
					return
				}
			}
			next := response.GetNextPageToken()
			if next == "" {
				return
			}
			q.ProtoReflect().Set(token, protoreflect.ValueOfString(next))
		}
	}
}
