package netcut

import (
	"bufio"
	"net"
	"testing"
)

// echo starts a line echo server and returns its address.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					c.Write([]byte(line))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line through addr and reports whether it came back.
func roundTrip(c net.Conn) bool {
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "ping\n"
}

// TestCutRestore: a cut closes the connections and refuses new ones; a restore lets
// new ones through.
func TestCutRestore(t *testing.T) {
	p, err := Start(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !roundTrip(c) {
		t.Fatal("no echo through the proxy")
	}
	p.Cut()
	if roundTrip(c) {
		t.Fatal("echo through a cut connection")
	}
	c2, err := net.Dial("tcp", p.Addr())
	if err == nil {
		if roundTrip(c2) {
			t.Fatal("echo through a connection made while cut")
		}
		c2.Close()
	}
	p.Restore()
	c3, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if !roundTrip(c3) {
		t.Fatal("no echo after Restore")
	}
}
