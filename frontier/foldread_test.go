package frontier

import (
	"context"
	"fmt"
	"testing"
)

// TestFoldReadAhead: once the commit that starts a fold is in, the fold's links are
// read ahead of its commits and looked up in the seen set then; a URL added between
// that lookup and the commit that takes its link is still a duplicate there, and the
// fold queues the others as it would have.
func TestFoldReadAhead(t *testing.T) {
	n, c := foldNodes, foldCheck
	t.Cleanup(func() { foldNodes, foldCheck = n, c })
	foldNodes, foldCheck = 1, 8 // a commit queues 8 links
	ctx := context.Background()
	f, _ := openTest(t, Options{})
	es := make([]Entry, 100)
	for i := range es {
		es[i] = Entry{URL: fmt.Sprintf("http://h%d.test/%d", i%7, i)}
	}
	// The link the fold queues last: the greatest seen key.
	ps := f.prepare(es)
	last := 0
	for i := range ps {
		if cmpSeen(ps[i].fp[:], ps[last].fp[:]) > 0 {
			last = i
		}
	}
	if _, err := f.Stage(ctx, es...); err != nil {
		t.Fatal(err)
	}
	if err := f.foldOnce(ctx); err != nil {
		t.Fatal(err)
	}
	fs := f.fold
	if fs == nil || fs.phase != phaseLinks || fs.reader == nil {
		t.Fatal("the fold's links are not read ahead after its first commit")
	}
	<-fs.reader.done // all of them: fewer groups than foldAhead
	mustAdd(t, f, 1, es[last])
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if f.fold != nil {
		t.Fatal("fold still under way after Flush")
	}
	s := f.Stats()
	if s.Added != 100 || s.Duplicates != 1 || s.Queued != 100 || s.Staged != 0 {
		t.Errorf("added %d, duplicates %d, queued %d, staged %d; want 100, 1, 100, 0", s.Added, s.Duplicates, s.Queued, s.Staged)
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	seen := make(map[string]bool)
	for {
		l, err := f.Next(ctx)
		if err != nil {
			break
		}
		if seen[l.URL] {
			t.Fatalf("%s leased twice", l.URL)
		}
		seen[l.URL] = true
		if err := f.Done(ctx, l, Outcome{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 100 {
		t.Errorf("leased %d URLs, want 100", len(seen))
	}
}
