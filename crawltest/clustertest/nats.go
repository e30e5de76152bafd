package clustertest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FindNATSServer returns the path of the nats-server executable: $POLITECRAWL_NATS_SERVER,
// then nats-server on $PATH, then where Debian's package puts it (/usr/sbin).
func FindNATSServer() (string, error) {
	if p := os.Getenv("POLITECRAWL_NATS_SERVER"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", errors.New("clustertest: no nats-server found (apt-get install nats-server, or set POLITECRAWL_NATS_SERVER)")
}

// NATSServer is a nats-server child process with JetStream on, storing its streams in
// files under a directory, listening on 127.0.0.1.
type NATSServer struct {
	bin, dir string
	port     int

	mu  sync.Mutex
	cmd *exec.Cmd
	log strings.Builder
	cpu time.Duration // CPU time of the runs that have exited
}

// StartNATSServer starts bin with JetStream file storage in dir, on a free loopback
// port, and returns once it accepts clients.
func StartNATSServer(bin, dir string) (*NATSServer, error) {
	s := &NATSServer{bin: bin, dir: dir, port: -1}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// URL is the server's client URL, nats://127.0.0.1:PORT; it stays the same across
// Restart.
func (s *NATSServer) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

var listening = regexp.MustCompile(`Listening for client connections on [^\s]*:(\d+)`)

// readyWait bounds how long a starting server may take to say it is ready.
const readyWait = 30 * time.Second

func (s *NATSServer) start() error {
	cmd := exec.Command(s.bin, "-a", "127.0.0.1", "-p", fmt.Sprint(s.port), "-js", "-sd", s.dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("clustertest: starting nats-server: %w", err)
	}
	ready := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		port := 0
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log.WriteString(line + "\n")
			s.mu.Unlock()
			if m := listening.FindStringSubmatch(line); m != nil {
				fmt.Sscan(m[1], &port)
			}
			if strings.Contains(line, "Server is ready") {
				ready <- port
			}
		}
		io.Copy(io.Discard, stderr)
		close(ready)
	}()
	select {
	case port, ok := <-ready:
		if !ok || port == 0 {
			cmd.Process.Kill()
			cmd.Wait()
			return fmt.Errorf("clustertest: nats-server did not start:\n%s", s.Log())
		}
		s.port = port
	case <-time.After(readyWait):
		cmd.Process.Kill()
		cmd.Wait()
		return fmt.Errorf("clustertest: nats-server not ready after %s:\n%s", readyWait, s.Log())
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	return nil
}

// Log returns what the server has written so far, over all its runs.
func (s *NATSServer) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Kill stops the server with SIGKILL and waits for it to exit: JetStream's files stay
// as the kill left them.
func (s *NATSServer) Kill() error { return s.stop(syscall.SIGKILL) }

func (s *NATSServer) addCPU(cmd *exec.Cmd) {
	if st := cmd.ProcessState; st != nil {
		s.mu.Lock()
		s.cpu += st.UserTime() + st.SystemTime()
		s.mu.Unlock()
	}
}

// CPU is the user and system CPU time the server used in the runs that have exited
// (after Close, all of them).
func (s *NATSServer) CPU() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cpu
}

// Restart starts the server again after Kill, on the same port and files.
func (s *NATSServer) Restart() error {
	s.mu.Lock()
	s.log.WriteString("--- restart\n")
	s.mu.Unlock()
	return s.start()
}

// Close stops the server (SIGTERM, then SIGKILL if it lingers) and waits for it.
func (s *NATSServer) Close() error { return s.stop(syscall.SIGTERM) }

// stop sends sig to the running server, if any, and waits for it to exit, killing it
// if it lingers past 10s.
func (s *NATSServer) stop(sig syscall.Signal) error {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	s.addCPU(cmd)
	return nil
}
