package crawltest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrNoTinyproxy is returned by [StartTinyproxy] when the tinyproxy binary is not
// installed (Debian's tinyproxy-bin package).
var ErrNoTinyproxy = errors.New("crawltest: tinyproxy not installed (apt-get install tinyproxy-bin)")

// Tinyproxy is Debian's tinyproxy, an HTTP proxy with CONNECT, run in the foreground
// on loopback for a test: a real proxy to crawl through. Its log tells what it was
// asked for.
type Tinyproxy struct {
	addr string
	cmd  *exec.Cmd
	done chan struct{}

	mu    sync.Mutex
	cond  *sync.Cond
	lines []string
	ended bool
}

// StartTinyproxy starts tinyproxy on a free port of 127.0.0.1, with Basic
// authentication when user is not empty, any CONNECT port allowed, and waits until it
// accepts connections. dir holds its configuration file. Call Close when done.
func StartTinyproxy(dir, user, pass string) (*Tinyproxy, error) {
	bin, err := exec.LookPath("tinyproxy")
	if err != nil {
		return nil, ErrNoTinyproxy
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := fmt.Sprintf("Port %d\nListen 127.0.0.1\nTimeout 30\nLogLevel Info\nMaxClients 100\n", port)
	if user != "" {
		conf += fmt.Sprintf("BasicAuth %s %s\n", user, pass)
	}
	path := filepath.Join(dir, "tinyproxy.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	cmd := exec.Command(bin, "-d", "-c", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("crawltest: tinyproxy: %w", err)
	}
	tp := &Tinyproxy{addr: fmt.Sprintf("127.0.0.1:%d", port), cmd: cmd, done: make(chan struct{})}
	tp.cond = sync.NewCond(&tp.mu)
	go func() {
		defer close(tp.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			tp.mu.Lock()
			tp.lines = append(tp.lines, sc.Text())
			tp.cond.Broadcast()
			tp.mu.Unlock()
		}
		tp.mu.Lock()
		tp.ended = true
		tp.cond.Broadcast()
		tp.mu.Unlock()
	}()
	if !tp.WaitLog("Accepting connections") {
		tp.Close()
		return nil, fmt.Errorf("crawltest: tinyproxy did not start:\n%s", tp.Log())
	}
	return tp, nil
}

// Addr returns the proxy's "127.0.0.1:PORT".
func (tp *Tinyproxy) Addr() string { return tp.addr }

// WaitLog waits for a log line containing s and reports whether one came before
// tinyproxy exited or 10 s passed (a bound for a broken run, not a timing).
func (tp *Tinyproxy) WaitLog(s string) bool {
	timer := time.AfterFunc(10*time.Second, func() {
		tp.mu.Lock()
		tp.ended = true
		tp.cond.Broadcast()
		tp.mu.Unlock()
	})
	defer timer.Stop()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for i := 0; ; {
		for ; i < len(tp.lines); i++ {
			if strings.Contains(tp.lines[i], s) {
				return true
			}
		}
		if tp.ended {
			return false
		}
		tp.cond.Wait()
	}
}

// Connects returns the targets of the CONNECT requests logged so far, "host:port".
func (tp *Tinyproxy) Connects() []string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	var out []string
	for _, l := range tp.lines {
		if _, req, ok := strings.Cut(l, "): CONNECT "); ok {
			out = append(out, strings.TrimSuffix(req, " HTTP/1.1"))
		}
	}
	return out
}

// Log returns tinyproxy's log so far.
func (tp *Tinyproxy) Log() string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return strings.Join(tp.lines, "\n")
}

// Close stops tinyproxy and waits for it.
func (tp *Tinyproxy) Close() error {
	tp.cmd.Process.Kill()
	<-tp.done
	tp.cmd.Wait()
	return nil
}
