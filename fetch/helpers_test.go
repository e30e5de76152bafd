package fetch

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

const testUA = "TestBot/1.0 (+https://example.org/bot)"

// newClient returns a Client with test defaults (loopback allowed) patched by edit.
func newClient(t testing.TB, edit func(*Options)) *Client {
	t.Helper()
	o := Options{UserAgent: testUA, AllowPrivate: true}
	if edit != nil {
		edit(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// serve starts an httptest server with handler h; done is closed before the
// server is closed so handlers that block can return.
func serve(t testing.TB, h http.HandlerFunc) (srv *httptest.Server, done chan struct{}) {
	t.Helper()
	srv = httptest.NewServer(h)
	done = make(chan struct{})
	t.Cleanup(func() {
		close(done)
		srv.Close()
	})
	return srv, done
}

// addr returns the host:port of an httptest server.
func addr(srv *httptest.Server) string { return srv.Listener.Addr().String() }

// rawServer is a TCP server that records each request's bytes and answers with
// canned bytes, for checking wire capture byte for byte.
type rawServer struct {
	ln       net.Listener
	response []byte

	mu       sync.Mutex
	requests [][]byte
	wg       sync.WaitGroup
}

func newRawServer(t *testing.T, response string) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, response: []byte(response)}
	s.wg.Add(1)
	go s.loop()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) loop() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			br := bufio.NewReader(c)
			var req bytes.Buffer
			for {
				line, err := br.ReadBytes('\n')
				req.Write(line)
				if err != nil {
					return
				}
				if bytes.Equal(line, []byte("\r\n")) {
					break
				}
			}
			s.mu.Lock()
			s.requests = append(s.requests, req.Bytes())
			s.mu.Unlock()
			c.Write(s.response)
			// Half-close and wait for the client to hang up, so it reads all.
			if tc, ok := c.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			io.Copy(io.Discard, br)
		}()
	}
}

func (s *rawServer) request(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.requests) {
		return nil
	}
	return s.requests[i]
}
