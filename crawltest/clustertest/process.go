package clustertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// BuildCrawl builds the crawl command (github.com/politecrawl/crawl/cmd/crawl) into dir
// with the go command on $PATH and returns the executable's path.
func BuildCrawl(dir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("clustertest: the go command is needed to build crawl: %w", err)
	}
	bin := filepath.Join(dir, "crawl")
	out, err := exec.Command(goBin, "build", "-o", bin, "github.com/politecrawl/crawl/cmd/crawl").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("clustertest: go build crawl: %v\n%s", err, out)
	}
	return bin, nil
}

// Config is one crawl process's configuration file.
type Config struct {
	DataDir  string
	Seeds    []string
	Resolve  map[string]string // network.resolve: the farm's hosts
	Workers  int
	MinDelay time.Duration // politeness.min_delay; 0 means none
	// MaxDelay is politeness.max_delay; 0 means 1s.
	MaxDelay   time.Duration
	NATS       string // cluster.url
	Name       string // cluster.name
	Stream     string // cluster.stream
	ShardCount int    // cluster.shard_count
	Shards     string // cluster.shards; "" with NATS "" is a single process
	// ReportEvery is cluster.report_every; 0 means 200ms (tests want a quick end).
	ReportEvery time.Duration
	// AckWait is cluster.ack_wait; 0 means 2s (a killed process's links come back
	// soon after its restart).
	AckWait time.Duration
	// Lease is cluster.lease; 0 leaves the default.
	Lease time.Duration
	// BackoffBase is politeness.backoff_base; 0 means 1s, which is also the wait of a
	// host whose robots.txt fetch a kill cut (the backoff after a connection error).
	BackoffBase time.Duration
	// UserAgent is user_agent; "" leaves the default. Give each process its own to tell
	// their requests apart on the farm.
	UserAgent string
}

// Write writes the configuration as YAML to path.
func (c Config) Write(path string) error {
	var b strings.Builder
	q := func(v any) string { j, _ := json.Marshal(v); return string(j) }
	fmt.Fprintf(&b, "data_dir: %s\nworkers: %d\nseeds: %s\n", q(c.DataDir), c.Workers, q(c.Seeds))
	if c.UserAgent != "" {
		fmt.Fprintf(&b, "user_agent: %s\n", q(c.UserAgent))
	}
	minDelay := "0s"
	if c.MinDelay > 0 {
		minDelay = c.MinDelay.String()
	}
	maxDelay := c.MaxDelay
	if maxDelay == 0 {
		maxDelay = time.Second
	}
	backoff := c.BackoffBase
	if backoff == 0 {
		backoff = time.Second
	}
	fmt.Fprintf(&b, "politeness:\n  min_delay: %s\n  max_delay: %s\n  backoff_base: %s\n", minDelay, maxDelay, backoff)
	b.WriteString("network:\n  allow_private: true\n  resolve:\n")
	for k, v := range c.Resolve {
		fmt.Fprintf(&b, "    %s: %s\n", q(k), q(v))
	}
	if c.NATS != "" {
		every := c.ReportEvery
		if every == 0 {
			every = 200 * time.Millisecond
		}
		ackWait := c.AckWait
		if ackWait == 0 {
			ackWait = 2 * time.Second
		}
		fmt.Fprintf(&b, "cluster:\n  url: %s\n  shards: %s\n  report_every: %s\n  ack_wait: %s\n", q(c.NATS), q(c.Shards), every, ackWait)
		if c.Name != "" {
			fmt.Fprintf(&b, "  name: %s\n", q(c.Name))
		}
		if c.Stream != "" {
			fmt.Fprintf(&b, "  stream: %s\n", q(c.Stream))
		}
		if c.ShardCount != 0 {
			fmt.Fprintf(&b, "  shard_count: %d\n", c.ShardCount)
		}
		if c.Lease != 0 {
			fmt.Fprintf(&b, "  lease: %s\n", c.Lease)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Process is a crawl command running as a child process.
type Process struct {
	Name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error // Wait's, once done is closed
}

// StartProcess runs bin with args; name labels its output.
func StartProcess(name, bin string, args ...string) (*Process, error) {
	p := &Process{Name: name, out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("clustertest: starting %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is the process's exit error (nil for status 0), once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// CPU is the user and system CPU time the process used, once Done is closed.
func (p *Process) CPU() time.Duration {
	<-p.done
	return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
}

// Output is what the process has written to stdout and stderr so far.
func (p *Process) Output() string { return p.out.String() }

// Kill sends SIGKILL and waits for the process to exit.
func (p *Process) Kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Interrupt sends SIGINT (Ctrl-C).
func (p *Process) Interrupt() error { return p.cmd.Process.Signal(os.Interrupt) }

// WaitAll waits for every process to exit, at most timeout; processes still running
// then are killed and reported.
func WaitAll(timeout time.Duration, procs ...*Process) error {
	deadline := time.After(timeout)
	var errs []error
	for _, p := range procs {
		select {
		case <-p.done:
		case <-deadline:
			for _, q := range procs {
				select {
				case <-q.done:
				default:
					q.Kill()
					errs = append(errs, fmt.Errorf("%s still running after %s: killed", q.Name, timeout))
				}
			}
			return errors.Join(errs...)
		}
	}
	return nil
}

// syncBuffer is a bytes.Buffer safe for simultaneous use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
