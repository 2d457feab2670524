package flotilla_test

// A real flotilla-server process per test (SQLite, embedded sim clusters), restartable
// on the same port: the binary the Rust tests built ($FLOTILLA_SERVER_BIN, else
// target/debug/flotilla-server of this checkout).

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"flotilla.dev/go/flotilla"
	flotillav1 "flotilla.dev/go/flotilla/gen/flotilla/v1"
)

type testServer struct {
	t       *testing.T
	dir     string
	address string
	token   string
	args    []string
	// opts are the dial options of healthy() and client() (TLS for a TLS server).
	opts   []flotilla.Option
	cmd    *exec.Cmd
	exited chan struct{}
}

func serverBinary(t *testing.T) string {
	path := os.Getenv("FLOTILLA_SERVER_BIN")
	if path == "" {
		path = filepath.Join("..", "..", "target", "debug", "flotilla-server")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: build it first (cargo build -p flotilla-server) or set FLOTILLA_SERVER_BIN", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func freeAddress(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startServer starts a server with args (default --sim); it is killed when the test
// ends, and its log printed if the test failed.
func startServer(t *testing.T, args ...string) *testServer {
	t.Helper()
	return startServerWith(t, nil, args...)
}

// startServerWith starts a server that healthy() and client() dial with opts.
func startServerWith(t *testing.T, opts []flotilla.Option, args ...string) *testServer {
	t.Helper()
	if len(args) == 0 {
		args = []string{"--sim"}
	}
	s := &testServer{t: t, dir: t.TempDir(), address: freeAddress(t), args: args, opts: opts}
	t.Cleanup(func() {
		s.stop(syscall.SIGKILL)
		if t.Failed() {
			t.Logf("server log (last 40 lines):\n%s", s.logTail(40))
		}
	})
	s.spawn()
	return s
}

func (s *testServer) spawn() {
	s.t.Helper()
	log, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(serverBinary(s.t), append([]string{"--listen", s.address, "--data-dir", s.dir}, s.args...)...)
	cmd.Stderr = log
	cmd.Env = append(os.Environ(), "FLOTILLA_DATABASE_URL=sqlite://"+s.dir+"/flotilla.db?mode=rwc")
	if os.Getenv("RUST_LOG") == "" {
		cmd.Env = append(cmd.Env, "RUST_LOG=info")
	}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func(exited chan struct{}) { _ = cmd.Wait(); close(exited) }(s.exited)
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-s.exited:
			s.t.Fatalf("flotilla-server exited: %s\n%s", cmd.ProcessState, s.logTail(40))
		default:
		}
		if data, err := os.ReadFile(filepath.Join(s.dir, "admin.token")); err == nil {
			s.token = strings.TrimSpace(string(data))
			if s.healthy() {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("flotilla-server not healthy after 30 s:\n%s", s.logTail(40))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *testServer) healthy() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	client, err := flotilla.Dial(ctx, s.address, append([]flotilla.Option{flotilla.WithToken(s.token)}, s.opts...)...)
	if err != nil {
		return false
	}
	defer client.Close()
	_, err = client.Lifecycle.ListProjects(ctx, &flotillav1.ListProjectsRequest{})
	return err == nil
}

// stop signals the server and waits for it to exit.
func (s *testServer) stop(signal syscall.Signal) {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(signal)
	<-s.exited
	s.cmd = nil
}

// client is a client of the server with the admin token, closed when the test ends.
func (s *testServer) client(opts ...flotilla.Option) *flotilla.Client {
	s.t.Helper()
	all := append(append([]flotilla.Option{flotilla.WithToken(s.token)}, s.opts...), opts...)
	client, err := flotilla.Dial(context.Background(), s.address, all...)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = client.Close() })
	return client
}

func (s *testServer) logTail(n int) string {
	data, err := os.ReadFile(filepath.Join(s.dir, "server.log"))
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// refusal asserts that err is a *flotilla.Error and returns it.
func refusal(t *testing.T, err error) *flotilla.Error {
	t.Helper()
	var e *flotilla.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a *flotilla.Error, got %T: %v", err, err)
	}
	return e
}
