package frontier

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRequeue checks that Requeue un-finishes finished URLs, durably, and leaves
// queued ones alone.
func TestRequeue(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	f, path := openTest(t, Options{Now: c.Now, MaxDone: 3})
	mustAdd(t, f, 4,
		Entry{URL: "http://a.test/done", Depth: 1, FoundOn: "http://a.test/"},
		Entry{URL: "http://a.test/later"},
		Entry{URL: "http://a.test/queued", Priority: -1},
		Entry{URL: "http://b.test/failed"})
	for range 3 {
		l := lease(t, f)
		switch l.URL {
		case "http://a.test/later":
			done(t, f, l, Outcome{Refetch: c.Now().Add(time.Hour)})
		case "http://b.test/failed":
			done(t, f, l, Outcome{Kind: Failed})
		default:
			done(t, f, l, Outcome{})
		}
	}
	if st := f.Stats(); st.Done != 2 || st.Queued != 2 {
		t.Fatalf("before Requeue: Done %d, Queued %d; want 2, 2", st.Done, st.Queued)
	}
	n, err := f.Requeue(ctx,
		Entry{URL: "http://a.test/done", Depth: 1, FoundOn: "http://a.test/"},
		Entry{URL: "http://a.test/done", Depth: 1}, // twice in one call: once
		Entry{URL: "http://a.test/later"},          // queued for later: left
		Entry{URL: "http://a.test/queued"},         // queued: left
		Entry{URL: "http://c.test/new"},            // never seen: added
		Entry{URL: "not a URL"})                    // refused, as by Add
	if err != nil || n != 2 {
		t.Fatalf("Requeue = %d, %v; want 2, nil", n, err)
	}
	st := f.Stats()
	if st.Done != 1 || st.Queued != 4 || st.Added != 5 || st.Refused[RefusedURL] != 1 {
		t.Errorf("after Requeue: Done %d, Queued %d, Added %d, Refused %v; want 1, 4, 5, url:1",
			st.Done, st.Queued, st.Added, st.Refused)
	}
	if hs, _ := f.HostStats("http://a.test"); hs.Done != 1 || hs.Queued != 3 {
		t.Errorf("host a.test: Done %d, Queued %d; want 1, 3", hs.Done, hs.Queued)
	}
	if n, err := f.Requeue(ctx, Entry{URL: "http://a.test/done"}); err != nil || n != 0 {
		t.Errorf("Requeue again = %d, %v; want 0: it is queued", n, err)
	}

	// Durable: the requeued URL is leased again after a reopen, as requeued.
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = Open(path, Options{Now: c.Now, MaxDone: 3, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]Entry{}
	for {
		l, _, err := tryNext(f)
		if err != nil || l == nil {
			break
		}
		got[l.URL] = l.Entry
		done(t, f, l, Outcome{})
	}
	if e, ok := got["http://a.test/done"]; !ok || e.Depth != 1 || e.FoundOn != "http://a.test/" {
		t.Errorf("requeued URL leased as %+v, %v; want depth 1, found on http://a.test/", e, ok)
	}
	if _, ok := got["http://a.test/later"]; ok {
		t.Errorf("the URL due in an hour was leased now")
	}
	// MaxDone 3: one done before, then two of the three due now.
	if st := f.Stats(); st.Done != 3 || len(got) != 2 {
		t.Errorf("after the run: Done %d, leased %v; want 3 done, 2 leased", st.Done, got)
	}
	if _, err := f.Requeue(ctx); err != nil {
		t.Errorf("Requeue() = %v", err)
	}
	f.Close()
	if _, err := f.Requeue(ctx, Entry{URL: "http://a.test/x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Requeue after Close = %v, want ErrClosed", err)
	}
}
