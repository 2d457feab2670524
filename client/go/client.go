// Package flotilla is the Go client of Flotilla, a multi-cluster control plane: the
// generated gRPC stubs of every service (package gen/flotilla/v1) behind one
// connection, with a bearer token, a default deadline on unary calls, errors that carry
// the server's details ([Error]), watches that resume by themselves ([Watch]) and
// paging iterators ([Pages] and the client's All* methods). Names are built and checked
// by package names.
//
//	client, err := flotilla.Dial(ctx, "localhost:50051") // token from $FLOTILLA_TOKEN
//	if err != nil { ... }
//	defer client.Close()
//	for project, err := range client.AllProjects(ctx, &flotillav1.ListProjectsRequest{}) { ... }
package flotilla

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	flotillav1 "flotilla.dev/go/flotilla/gen/flotilla/v1"
)

// DefaultAddress is where a server listens by default.
const DefaultAddress = "localhost:50051"

// TokenEnv is the environment variable the bearer token is read from when no option
// gives one.
const TokenEnv = "FLOTILLA_TOKEN"

// DefaultTimeout is the deadline of a unary call whose context has none.
const DefaultTimeout = 30 * time.Second

// Client is a connection to a Flotilla server with a client per service. The service
// clients are the generated ones: every RPC is there, with the token and the default
// deadline applied and failures returned as *[Error].
type Client struct {
	Lifecycle         flotillav1.LifecycleServiceClient
	Status            flotillav1.StatusServiceClient
	Actions           flotillav1.ActionServiceClient
	ContainerClusters flotillav1.ContainerClusterServiceClient
	Access            flotillav1.AccessServiceClient
	Simulator         flotillav1.SimulatorServiceClient

	conn *grpc.ClientConn
}

// Conn is the underlying connection, for services or options this package does not
// wrap.
func (c *Client) Conn() *grpc.ClientConn { return c.conn }

// Close closes the connection; calls and watches in flight fail.
func (c *Client) Close() error { return c.conn.Close() }

type options struct {
	token           *string
	tokenFile       string
	caFile          string
	certFile        string
	keyFile         string
	timeout         time.Duration
	dialOptions     []grpc.DialOption
	tlsConfigOption *tls.Config
}

// Option configures [Dial].
type Option func(*options)

// WithToken sends token as the bearer token ("" sends none).
func WithToken(token string) Option { return func(o *options) { o.token = &token } }

// WithTokenFile reads the bearer token from a file (surrounding whitespace removed).
func WithTokenFile(path string) Option { return func(o *options) { o.tokenFile = path } }

// WithCACertificate trusts the PEM CA certificate in path (TLS): the server's
// certificate must chain to it. Without it, TLS trusts the system roots.
func WithCACertificate(path string) Option { return func(o *options) { o.caFile = path } }

// WithClientCertificate presents the PEM certificate and key as the client's identity
// (mutual TLS).
func WithClientCertificate(certFile, keyFile string) Option {
	return func(o *options) { o.certFile, o.keyFile = certFile, keyFile }
}

// WithTLSConfig uses config for TLS as it is (it overrides the certificate options).
func WithTLSConfig(config *tls.Config) Option { return func(o *options) { o.tlsConfigOption = config } }

// WithTimeout sets the deadline of unary calls whose context has none (default
// [DefaultTimeout]; 0: none). Streams never get one.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithDialOptions adds gRPC dial options (after the client's own).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dialOptions = append(o.dialOptions, opts...) }
}

// Dial connects to the Flotilla server at target: "host:port", "http://host:port"
// (plaintext) or "https://host:port" (TLS). Without a scheme, a loopback host is spoken
// to in plaintext unless a TLS option is given, and any other host over TLS. The
// connection opens lazily; ctx only bounds reading the options' files.
func Dial(ctx context.Context, target string, opts ...Option) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := options{timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	address, useTLS, err := parseTarget(target, &o)
	if err != nil {
		return nil, err
	}
	token, err := o.bearer()
	if err != nil {
		return nil, err
	}
	var creds credentials.TransportCredentials
	if useTLS {
		config, err := o.tlsConfig()
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(config)
	} else {
		creds = insecure.NewCredentials()
	}
	dialOptions := append([]grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		// Reconnect within seconds of a restarted server (gRPC's default backoff grows to
		// two minutes, longer than a watch waits).
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 5 * time.Second},
			MinConnectTimeout: 5 * time.Second,
		}),
		grpc.WithChainUnaryInterceptor(unaryInterceptor(token, o.timeout)),
		grpc.WithChainStreamInterceptor(streamInterceptor(token)),
	}, o.dialOptions...)
	conn, err := grpc.NewClient(address, dialOptions...)
	if err != nil {
		return nil, fmt.Errorf("flotilla: %s: %w", target, err)
	}
	return &Client{
		Lifecycle:         flotillav1.NewLifecycleServiceClient(conn),
		Status:            flotillav1.NewStatusServiceClient(conn),
		Actions:           flotillav1.NewActionServiceClient(conn),
		ContainerClusters: flotillav1.NewContainerClusterServiceClient(conn),
		Access:            flotillav1.NewAccessServiceClient(conn),
		Simulator:         flotillav1.NewSimulatorServiceClient(conn),
		conn:              conn,
	}, nil
}

// parseTarget returns the host:port to dial and whether to use TLS.
func parseTarget(target string, o *options) (string, bool, error) {
	if target == "" {
		target = DefaultAddress
	}
	tlsAsked := o.caFile != "" || o.certFile != "" || o.tlsConfigOption != nil
	if (o.certFile == "") != (o.keyFile == "") {
		return "", false, errors.New("flotilla: the client certificate and key go together")
	}
	scheme, address, hasScheme := strings.Cut(target, "://")
	if !hasScheme {
		address = target
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return "", false, fmt.Errorf("flotilla: target %q: want host:port, http://host:port or https://host:port", target)
		}
		return address, tlsAsked || !isLoopback(host), nil
	}
	switch scheme {
	case "http":
		if tlsAsked {
			return "", false, fmt.Errorf("flotilla: target %q is plaintext but TLS options were given", target)
		}
		return address, false, nil
	case "https":
		return address, true, nil
	default:
		return "", false, fmt.Errorf("flotilla: target %q: the scheme must be http or https", target)
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// bearer is the token to send: the option's, else the file's, else $FLOTILLA_TOKEN.
func (o *options) bearer() (string, error) {
	if o.token != nil {
		return *o.token, nil
	}
	if o.tokenFile != "" {
		data, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return "", fmt.Errorf("flotilla: token file: %w", err)
		}
		return strings.TrimSpace(string(data)), nil
	}
	return strings.TrimSpace(os.Getenv(TokenEnv)), nil
}

func (o *options) tlsConfig() (*tls.Config, error) {
	if o.tlsConfigOption != nil {
		return o.tlsConfigOption, nil
	}
	config := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.caFile != "" {
		pem, err := os.ReadFile(o.caFile)
		if err != nil {
			return nil, fmt.Errorf("flotilla: CA certificate: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("flotilla: CA certificate %s: no PEM certificate in it", o.caFile)
		}
		config.RootCAs = pool
	}
	if o.certFile != "" {
		pair, err := tls.LoadX509KeyPair(o.certFile, o.keyFile)
		if err != nil {
			return nil, fmt.Errorf("flotilla: client certificate: %w", err)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	return config, nil
}

func withToken(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// unaryInterceptor sends the token, applies the default deadline and returns failures
// as *Error.
func unaryInterceptor(token string, timeout time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx = withToken(ctx, token)
		if _, has := ctx.Deadline(); !has && timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		return wrap(invoker(ctx, method, req, reply, cc, opts...))
	}
}

// streamInterceptor sends the token and returns failures as *Error; no deadline.
func streamInterceptor(token string) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		stream, err := streamer(withToken(ctx, token), desc, cc, method, opts...)
		if err != nil {
			return nil, wrap(err)
		}
		return errorStream{stream}, nil
	}
}

type errorStream struct{ grpc.ClientStream }

func (s errorStream) RecvMsg(m any) error { return wrap(s.ClientStream.RecvMsg(m)) }
func (s errorStream) SendMsg(m any) error { return wrap(s.ClientStream.SendMsg(m)) }
