package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// serverEnv names a nats-server binary to test against instead of the embedded server
// (CI sets it to Debian's /usr/sbin/nats-server, version 2.9).
const serverEnv = "POLITECRAWL_NATS_SERVER"

// testServer is a NATS server with JetStream on a loopback port, storing in a
// directory of the test: embedded, or the external binary serverEnv names.
type testServer struct {
	t    testing.TB
	dir  string
	port int
	opts func(*server.Options) // embedded only

	srv *server.Server
	cmd *exec.Cmd
}

// startServer starts a server for t and stops it at t's end. opts adjusts an embedded
// server's options (authentication, TLS); a test that sets it always runs embedded.
func startServer(t testing.TB, opts func(*server.Options)) *testServer {
	t.Helper()
	s := &testServer{t: t, dir: t.TempDir(), port: -1, opts: opts}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// URL returns the server's client URL.
func (s *testServer) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

func (s *testServer) start() {
	s.t.Helper()
	if bin := os.Getenv(serverEnv); bin != "" && s.opts == nil {
		s.startExternal(bin)
		return
	}
	o := &server.Options{
		ServerName: "test",
		Host:       "127.0.0.1",
		Port:       s.port,
		JetStream:  true,
		StoreDir:   s.dir,
		NoLog:      true,
		NoSigs:     true,
	}
	if s.opts != nil {
		s.opts(o)
	}
	srv, err := server.NewServer(o)
	if err != nil {
		s.t.Fatalf("nats server: %v", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(20 * time.Second) {
		s.t.Fatal("nats server not ready")
	}
	s.srv = srv
	s.port = srv.Addr().(*net.TCPAddr).Port
}

func (s *testServer) startExternal(bin string) {
	s.t.Helper()
	portsDir := filepath.Join(s.dir, "ports")
	os.RemoveAll(portsDir)
	if err := os.MkdirAll(portsDir, 0o755); err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js",
		"-sd", s.dir, "--ports_file_dir", portsDir)
	if testing.Verbose() {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", bin, err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(20 * time.Second)
	for {
		matches, _ := filepath.Glob(filepath.Join(portsDir, "*.ports"))
		if len(matches) == 1 {
			var ports struct{ Nats []string }
			data, err := os.ReadFile(matches[0])
			if err == nil && json.Unmarshal(data, &ports) == nil && len(ports.Nats) > 0 {
				_, p, _ := net.SplitHostPort(ports.Nats[0][len("nats://"):])
				s.port, _ = strconv.Atoi(p)
				if c, err := net.Dial("tcp", s.URL()[len("nats://"):]); err == nil {
					c.Close()
					return
				}
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s did not start", bin)
		}
		time.Sleep(20 * time.Millisecond) // polling for the ports file, not a timing assumption
	}
}

// stop shuts the server down and waits until it is gone. Stopping twice is harmless.
func (s *testServer) stop() {
	if s.srv != nil {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
		s.srv = nil
	}
	if s.cmd != nil {
		s.cmd.Process.Signal(os.Interrupt)
		s.cmd.Wait()
		s.cmd = nil
	}
}

// restart stops the server and starts it again on the same port and storage.
func (s *testServer) restart() {
	s.t.Helper()
	s.stop()
	s.start()
}

// testConfig returns a Config for a node named name owning own, with a short AckWait
// so that crash tests see redelivery quickly.
func testConfig(s *testServer, name string, shards int, own ...int) Config {
	return Config{URL: s.URL(), Name: name, Stream: "TEST", Shards: shards, Own: own, AckWait: time.Second,
		Log: slog.New(slog.DiscardHandler)}
}

// join joins a node and closes it at the test's end.
func join(t testing.TB, cfg Config) *Node {
	t.Helper()
	n, err := Join(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Join(%s): %v", cfg.Name, err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// waitFor polls cond until it holds or 30 seconds have passed.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not a timing assumption
	}
}

// collector is an Intake that records what it took in.
type collector struct {
	mu    sync.Mutex
	links map[string][]Link // URL → every delivery of it
	calls int
	fail  func(links []Link) error // if set and it returns an error, intake fails
}

func newCollector() *collector { return &collector{links: make(map[string][]Link)} }

func (c *collector) intake(ctx context.Context, links []Link) error {
	c.mu.Lock()
	fail := c.fail
	c.mu.Unlock()
	if fail != nil {
		if err := fail(links); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	for _, l := range links {
		c.links[l.URL] = append(c.links[l.URL], l)
	}
	return nil
}

// count returns how many distinct URLs were taken in.
func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.links)
}

// get returns the deliveries of url.
func (c *collector) get(url string) []Link {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Link(nil), c.links[url]...)
}

// consume runs n.Consume with c until the test ends, and checks that it returned
// because its context ended.
func consume(t testing.TB, n *Node, c *collector) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Consume(ctx, c.intake) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != context.Canceled {
				t.Errorf("Consume: %v, want context.Canceled", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// linksFor returns count links whose URLs fall in shard of total, numbered from first.
func linksFor(t testing.TB, shard, total, first, count int) []Link {
	t.Helper()
	var out []Link
	for i := 0; len(out) < count; i++ {
		u := fmt.Sprintf("https://site%d.example/page/%d", i, first+len(out))
		s, err := ShardOf(u, total)
		if err != nil {
			t.Fatal(err)
		}
		if s == shard {
			out = append(out, Link{URL: u, FoundOn: "https://seed.example/", Depth: 1, Kind: 2})
		}
		if i > 1_000_000 {
			t.Fatalf("no URL for shard %d of %d", shard, total)
		}
	}
	return out
}

// cpuTime returns the CPU time an external server has used (zero for an embedded one,
// whose time is this process's), read from /proc.
func (s *testServer) cpuTime() time.Duration {
	if s.cmd == nil {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: utime is the 12th,
	// stime the 13th, in clock ticks of 1/100 s.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
