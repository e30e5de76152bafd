package crawl

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/cluster"
	"github.com/politecrawl/crawl/frontier"
)

// TestIntakeStages: handed-off links are staged in the frontier's log when the engine
// stages links (frontier.link_batch), and added at once when it does not.
func TestIntakeStages(t *testing.T) {
	for _, lb := range []int{0, 1000} {
		f, err := frontier.Open(filepath.Join(t.TempDir(), "frontier.db"), frontier.Options{NoSync: true, LinkBatch: lb})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		c := &Crawler{front: f, member: &member{}, counters: &counters{}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		c.cfg.Frontier.LinkBatch = lb
		links := []cluster.Link{
			{URL: "http://a.test/sitemap.xml", Kind: kindSitemap},
			{URL: "http://b.test/sitemap.xml", Kind: kindSitemap},
		}
		if err := c.intake(context.Background(), links); err != nil {
			t.Fatal(err)
		}
		s := f.Stats()
		if lb > 0 && (s.Staged != 2 || s.Added != 0) || lb == 0 && (s.Staged != 0 || s.Added != 2) {
			t.Errorf("link_batch %d: %d staged, %d added after intake", lb, s.Staged, s.Added)
		}
		if st := c.clusterState(); st.Staged != s.Staged || st.Queued != s.Queued {
			t.Errorf("link_batch %d: the cluster state says %d queued and %d staged, the frontier %d and %d", lb, st.Queued, st.Staged, s.Queued, s.Staged)
		}
		if err := f.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if s := f.Stats(); s.Added != 2 || s.Queued != 2 {
			t.Errorf("link_batch %d: after Flush %d added, %d queued; want 2", lb, s.Added, s.Queued)
		}
	}
}
