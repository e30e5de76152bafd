// Package netcut is a TCP proxy on loopback that a test can cut and restore, to cut one
// process off from a server (NATS) while the others still reach it.
package netcut

import (
	"io"
	"net"
	"sync"
)

// Proxy forwards the connections it accepts to a backend address. Its methods are safe
// for simultaneous use by multiple goroutines.
type Proxy struct {
	ln      net.Listener
	backend string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{} // both ends of every forwarded connection
	wg    sync.WaitGroup
}

// Start listens on a free loopback port and forwards to backend (host:port).
func Start(backend string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, backend: backend, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.accept)
	return p, nil
}

// Addr is the proxy's address, 127.0.0.1:PORT.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every forwarded connection and, until Restore, closes each new one as soon
// as it is accepted: the client sees its connection drop and cannot connect again.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
}

// Restore forwards new connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// Close stops listening, closes every connection and waits for the forwarding to end.
func (p *Proxy) Close() error {
	err := p.ln.Close()
	p.Cut()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			c.Close()
			continue
		}
		b, err := net.Dial("tcp", p.backend)
		if err != nil {
			c.Close()
			continue
		}
		if !p.track(c, b) {
			continue
		}
		p.wg.Go(func() { p.pipe(c, b) })
		p.wg.Go(func() { p.pipe(b, c) })
	}
}

// track records c and b, or closes both if the proxy was cut meanwhile.
func (p *Proxy) track(c, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		c.Close()
		b.Close()
		return false
	}
	p.conns[c], p.conns[b] = struct{}{}, struct{}{}
	return true
}

// pipe copies from src to dst until either fails, then closes both.
func (p *Proxy) pipe(dst, src net.Conn) {
	io.Copy(dst, src) // every pipe ends with an error: a closed end
	p.mu.Lock()
	delete(p.conns, src)
	delete(p.conns, dst)
	p.mu.Unlock()
	src.Close()
	dst.Close()
}
