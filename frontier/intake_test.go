package frontier

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestStage stages entries over many commits and folds and checks that they come
// out as the same entries added in small Adds would: the same counts, and each
// host's URLs leased in priority, depth and given order; duplicates of queued URLs
// and between Stage calls are counted as duplicates at the fold.
func TestStage(t *testing.T) {
	defer func(n int64, c, s int) { foldNodes, foldCheck, stageChunk = n, c, s }(foldNodes, foldCheck, stageChunk)
	es := mixedEntries(200)
	es = append(es, Entry{URL: "/relative"}, Entry{URL: "http://h1.test/deep", Depth: 9})
	ctx := context.Background()
	opts := Options{MaxDepth: 5}
	foldNodes, foldCheck, stageChunk = 1, 4, 7
	for _, lb := range []int{0, 30} {
		t.Run(fmt.Sprintf("LinkBatch=%d", lb), func(t *testing.T) {
			opts := opts
			opts.LinkBatch = lb
			added, _ := openTest(t, opts)
			mustAdd(t, added, 18, es[:20]...)
			for i := 0; i < len(es); i += 10 {
				if _, err := added.Add(ctx, es[i:min(i+10, len(es))]...); err != nil {
					t.Fatal(err)
				}
			}
			f, _ := openTest(t, opts)
			mustAdd(t, f, 18, es[:20]...)
			staged := 0
			for i := 0; i < len(es); i += 50 {
				n, err := f.Stage(ctx, es[i:min(i+50, len(es))]...)
				if err != nil {
					t.Fatal(err)
				}
				staged += n
			}
			if staged != len(es)-2 {
				t.Fatalf("Stage staged %d, want %d", staged, len(es)-2)
			}
			s := f.Stats()
			if s.Refused[RefusedURL] != 1 || s.Refused[RefusedDepth] != 1 {
				t.Fatalf("before Flush: refused %v, want the URL and the depth refused at once", s.Refused)
			}
			if lb == 0 && (s.Staged != int64(staged) || s.Added != 18) {
				t.Fatalf("before Flush, LinkBatch 0: %+v, want all %d staged and none folded", s, staged)
			}
			if err := f.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			ws, gs := added.Stats(), f.Stats()
			if gs.Staged != 0 || gs.Added != ws.Added || gs.Duplicates != ws.Duplicates || fmt.Sprint(gs.Refused) != fmt.Sprint(ws.Refused) {
				t.Fatalf("after Flush: Stats %+v; want as the Adds: %+v", gs, ws)
			}
			if err := f.Check(); err != nil {
				t.Fatal(err)
			}
			want, got := drainHosts(t, added), drainHosts(t, f)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("lease order per host:\n\tgot  %v\n\twant %v", got, want)
			}
		})
	}
}

// TestStageFolds checks when staged entries are folded: by the commit that brings
// them to LinkBatch or, with LinkBatch 0, to FoldLinks; by Next rather than wait or
// end; and that they survive a restart unfolded.
func TestStageFolds(t *testing.T) {
	defer func(s int) { stageChunk = s }(stageChunk)
	stageChunk = 2
	ctx := context.Background()
	urls := func(host string, n int) []Entry {
		var es []Entry
		for i := range n {
			es = append(es, Entry{URL: fmt.Sprintf("http://%s.test/%d", host, i)})
		}
		return es
	}
	stage := func(f *Frontier, want int, es ...Entry) {
		t.Helper()
		if n, err := f.Stage(ctx, es...); err != nil || n != want {
			t.Fatalf("Stage: %d, %v; want %d staged", n, err, want)
		}
	}

	// LinkBatch 0: the commit reaching FoldLinks folds; commits of 2, 2 and 1.
	f, path := openTest(t, Options{FoldLinks: 4})
	stage(f, 5, urls("a", 5)...)
	if s := f.Stats(); s.Staged != 1 || s.Added != 4 {
		t.Fatalf("LinkBatch 0, FoldLinks 4, 5 staged: %+v; want 4 folded, 1 staged", s)
	}
	f.Close()
	f, err := Open(path, Options{FoldLinks: 4, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if s := f.Stats(); s.Staged != 1 || s.Added != 4 {
		t.Fatalf("after reopening: %+v; want 4 folded, 1 staged", s)
	}

	// LinkBatch set: the commit reaching it folds.
	g, _ := openTest(t, Options{LinkBatch: 3})
	stage(g, 2, urls("b", 2)...)
	if s := g.Stats(); s.Staged != 2 || s.Added != 0 {
		t.Fatalf("LinkBatch 3, 2 staged: %+v", s)
	}
	stage(g, 2, urls("c", 2)...)
	if s := g.Stats(); s.Staged != 0 || s.Added != 4 {
		t.Fatalf("LinkBatch 3, 4 staged: %+v; want all folded", s)
	}

	// Next folds rather than end the crawl.
	h, _ := openTest(t, Options{})
	stage(h, 1, urls("d", 1)...)
	if _, _, err := tryNext(h); err != nil {
		t.Fatalf("tryNext with entries staged: %v, want no ErrDone", err)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	l, err := h.Next(tctx)
	if err != nil || l.URL != "http://d.test/0" {
		t.Fatalf("Next: %v, %v; want http://d.test/0 folded in", l, err)
	}
}

// TestStageClosed checks Stage's errors on a closed and a read-only Frontier.
func TestStageClosed(t *testing.T) {
	ctx := context.Background()
	f, path := openTest(t, Options{})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, es := range [][]Entry{nil, {{URL: "http://a.test/"}}} {
		if n, err := f.Stage(ctx, es...); n != 0 || !errors.Is(err, ErrClosed) {
			t.Fatalf("Stage of %d after Close: %d, %v; want ErrClosed", len(es), n, err)
		}
	}
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n, err := ro.Stage(ctx, Entry{URL: "http://a.test/"}); n != 0 || !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only Stage: %d, %v; want ErrReadOnly", n, err)
	}
}
