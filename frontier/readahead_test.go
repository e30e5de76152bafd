package frontier

import (
	"fmt"
	"testing"
)

// TestReadAhead: a lease hands the hosts at the top of the ready heap to be read
// ahead, once each until it is leased, and Close stops the readers.
func TestReadAhead(t *testing.T) {
	f, _ := openTest(t, Options{})
	var es []Entry
	for i := range 50 {
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/", i)}, Entry{URL: fmt.Sprintf("http://h%d.test/2", i)})
	}
	mustAdd(t, f, 100, es...)
	l := lease(t, f)
	f.mu.Lock()
	top := map[*host]bool{}
	for _, h := range f.heap[:readAheadHosts] {
		top[h] = true
	}
	n := 0
	for _, h := range f.hosts {
		switch {
		case h.ahead && !top[h]:
			t.Errorf("%s read ahead, not at the top of the heap", h.name)
		case h.ahead:
			n++
		}
	}
	leased := f.hosts[l.Host].ahead
	f.mu.Unlock()
	if n != readAheadHosts {
		t.Errorf("%d hosts read ahead, want the %d at the top of the heap", n, readAheadHosts)
	}
	if leased {
		t.Errorf("the host just leased, %s, is marked read ahead", l.Host)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
