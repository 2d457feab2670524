package flotilla_test

// How Dial connects: targets, tokens, TLS and mutual TLS, against real servers.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"flotilla.dev/go/flotilla"
	flotillav1 "flotilla.dev/go/flotilla/gen/flotilla/v1"
)

func TestDialRefusesWhatItCannotHonour(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		target string
		opts   []flotilla.Option
		want   string
	}{
		{"ftp://localhost:1", nil, "the scheme must be http or https"},
		{"localhost", nil, "want host:port"},
		{"http://localhost:1", []flotilla.Option{flotilla.WithCACertificate("ca.pem")}, "plaintext but TLS options"},
		{"localhost:1", []flotilla.Option{flotilla.WithClientCertificate("c.pem", "")}, "certificate and key go together"},
		{"localhost:1", []flotilla.Option{flotilla.WithTokenFile("/nonexistent/token")}, "token file"},
		{"https://localhost:1", []flotilla.Option{flotilla.WithCACertificate("/nonexistent/ca.pem")}, "CA certificate"},
	} {
		if _, err := flotilla.Dial(ctx, c.target, c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Dial(%q): %v, want an error saying %q", c.target, err, c.want)
		}
	}
}

func TestTokenFromOptionFileOrEnvironment(t *testing.T) {
	ctx := testContext(t)
	server := startServer(t)
	list := func(opts ...flotilla.Option) error {
		client, err := flotilla.Dial(ctx, server.address, opts...)
		if err != nil {
			return err
		}
		defer client.Close()
		_, err = client.Lifecycle.ListProjects(ctx, &flotillav1.ListProjectsRequest{})
		return err
	}
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(server.token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := list(flotilla.WithTokenFile(file)); err != nil {
		t.Fatalf("token file: %v", err)
	}
	t.Setenv(flotilla.TokenEnv, server.token)
	if err := list(); err != nil {
		t.Fatalf("$%s: %v", flotilla.TokenEnv, err)
	}
	// An explicit empty token wins over the environment: no token, UNAUTHENTICATED.
	if err := list(flotilla.WithToken("")); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no token: %v", err)
	}
}

// pki writes a CA and a certificate it signed for each of server (127.0.0.1,
// localhost) and client; it returns the files' paths by name.
func pki(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	write := func(name, kind string, der []byte) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		files[name] = path
	}
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey := key()
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "flotilla test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	write("ca.pem", "CERTIFICATE", caDER)
	for i, leaf := range []struct {
		name  string
		usage x509.ExtKeyUsage
	}{{"server", x509.ExtKeyUsageServerAuth}, {"client", x509.ExtKeyUsageClientAuth}} {
		k := key()
		cert := &x509.Certificate{
			SerialNumber: big.NewInt(int64(i + 2)), Subject: pkix.Name{CommonName: leaf.name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{leaf.usage},
			DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		}
		der, err := x509.CreateCertificate(rand.Reader, cert, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		write(leaf.name+".pem", "CERTIFICATE", der)
		keyDER, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		write(leaf.name+".key", "PRIVATE KEY", keyDER)
	}
	return files
}

func TestMutualTLS(t *testing.T) {
	ctx := testContext(t)
	files := pki(t)
	mtls := []flotilla.Option{
		flotilla.WithCACertificate(files["ca.pem"]),
		flotilla.WithClientCertificate(files["client.pem"], files["client.key"]),
	}
	server := startServerWith(t, mtls, "--sim",
		"--tls-cert", files["server.pem"], "--tls-key", files["server.key"], "--tls-client-ca", files["ca.pem"])
	list := func(target string, opts ...flotilla.Option) error {
		client, err := flotilla.Dial(ctx, target, append(opts, flotilla.WithToken(server.token), flotilla.WithTimeout(5*time.Second))...)
		if err != nil {
			return err
		}
		defer client.Close()
		_, err = client.Lifecycle.ListProjects(ctx, &flotillav1.ListProjectsRequest{})
		return err
	}
	// host:port with TLS options, and https://, both speak TLS with the client's
	// certificate.
	if err := list(server.address, mtls...); err != nil {
		t.Fatalf("mTLS: %v", err)
	}
	if err := list("https://"+server.address, mtls...); err != nil {
		t.Fatalf("mTLS over https://: %v", err)
	}
	// Without the client certificate the server says what is missing; without TLS it is
	// not reached.
	err := list("https://"+server.address, flotilla.WithCACertificate(files["ca.pem"]))
	if e := flotilla.AsError(err); e.Code != codes.Unauthenticated || e.Reason != "CLIENT_CERTIFICATE_REQUIRED" {
		t.Fatalf("TLS without a client certificate: %v", err)
	}
	if err := list(server.address); status.Code(err) != codes.Unavailable {
		t.Fatalf("plaintext to a TLS server: %v", err)
	}
	// Nor when the client does not trust the server's CA (the system roots do not).
	if err := list("https://"+server.address, flotilla.WithClientCertificate(files["client.pem"], files["client.key"])); status.Code(err) != codes.Unavailable {
		t.Fatalf("an untrusted server certificate: %v", err)
	}
}

func TestUnaryCallsGetTheDefaultDeadlineAndStreamsNone(t *testing.T) {
	ctx := testContext(t)
	server := startServer(t)
	hurried := server.client(flotilla.WithTimeout(time.Nanosecond))
	// (a context without a deadline: the test's own has one)
	_, err := hurried.Lifecycle.ListProjects(context.Background(), &flotillav1.ListProjectsRequest{})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("a unary call under a 1 ns default deadline: %v", err)
	}
	// A deadline of the caller's own wins over the default.
	own, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := hurried.Lifecycle.ListProjects(own, &flotillav1.ListProjectsRequest{}); err != nil {
		t.Fatalf("a unary call with its own deadline: %v", err)
	}
	// A watch gets none: it runs past 1 ns and hands out its snapshot.
	watch := hurried.WatchContainerClusters(&flotillav1.WatchContainerClustersRequest{}, nil)
	for event, err := range watch.Events(context.Background()) {
		if err != nil || event.GetType() != flotillav1.ContainerClusterEventType_CONTAINER_CLUSTER_EVENT_TYPE_SYNCED {
			t.Fatalf("the watch: %v, %v", event, err)
		}
		break
	}
}
