package crawltest

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
)

// SOCKS5 is a SOCKS5 proxy (RFC 1928, with RFC 1929 username/password
// authentication when it has a user) for tests of crawling through a proxy. It
// connects wherever it is asked, as an unguarded proxy does, and records what
// it was asked for: a crawler that keeps its address guard asks it for checked
// IP addresses only, never for names. It listens on 127.0.0.3 where the host
// has it, so that an address the crawler reports is not mistaken for the
// proxy's when the farm is on 127.0.0.1.
type SOCKS5 struct {
	ln         net.Listener
	user, pass string

	mu       sync.Mutex
	accepted int
	targets  []string
	conns    map[net.Conn]bool
	wg       sync.WaitGroup
}

// StartSOCKS5 starts a SOCKS5 proxy on loopback; user "" means no
// authentication. Call Close when done.
func StartSOCKS5(user, pass string) (*SOCKS5, error) {
	ln, err := net.Listen("tcp", "127.0.0.3:0")
	if err != nil {
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("crawltest: %w", err)
		}
	}
	s := &SOCKS5{ln: ln, user: user, pass: pass, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the proxy's "ip:port".
func (s *SOCKS5) Addr() string { return s.ln.Addr().String() }

// Accepted returns how many connections the proxy accepted.
func (s *SOCKS5) Accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// Targets returns what each CONNECT asked for, in order: "ip:port", or
// "name:port" when a client sent a name.
func (s *SOCKS5) Targets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.targets...)
}

// Close stops the proxy and its tunnels and waits for them.
func (s *SOCKS5) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *SOCKS5) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.accepted++
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

func (s *SOCKS5) handle(c net.Conn) {
	defer c.Close()
	var b [262]byte
	if _, err := io.ReadFull(c, b[:2]); err != nil || b[0] != 5 {
		return
	}
	methods := b[2 : 2+int(b[1])]
	if _, err := io.ReadFull(c, methods); err != nil {
		return
	}
	want := byte(0)
	if s.user != "" {
		want = 2
	}
	if !strings.Contains(string(methods), string([]byte{want})) {
		c.Write([]byte{5, 0xff})
		return
	}
	c.Write([]byte{5, want})
	if want == 2 {
		if _, err := io.ReadFull(c, b[:2]); err != nil {
			return
		}
		user := make([]byte, b[1])
		io.ReadFull(c, user)
		io.ReadFull(c, b[:1])
		pass := make([]byte, b[0])
		io.ReadFull(c, pass)
		if string(user) != s.user || string(pass) != s.pass {
			c.Write([]byte{1, 1})
			return
		}
		c.Write([]byte{1, 0})
	}
	if _, err := io.ReadFull(c, b[:4]); err != nil || b[1] != 1 {
		return
	}
	var host string
	switch b[3] {
	case 1:
		io.ReadFull(c, b[:4])
		host = netip.AddrFrom4([4]byte(b[:4])).String()
	case 4:
		io.ReadFull(c, b[:16])
		host = netip.AddrFrom16([16]byte(b[:16])).String()
	case 3:
		io.ReadFull(c, b[:1])
		name := make([]byte, b[0])
		io.ReadFull(c, name)
		host = string(name)
	default:
		return
	}
	if _, err := io.ReadFull(c, b[:2]); err != nil {
		return
	}
	target := net.JoinHostPort(host, fmt.Sprint(binary.BigEndian.Uint16(b[:2])))
	s.mu.Lock()
	s.targets = append(s.targets, target)
	s.mu.Unlock()
	up, err := net.Dial("tcp", target)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer up.Close()
	s.mu.Lock()
	s.conns[up] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, up)
		s.mu.Unlock()
	}()
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	done := make(chan struct{})
	go func() {
		io.Copy(up, c)
		up.Close()
		close(done)
	}()
	io.Copy(c, up)
	c.Close()
	<-done
}
