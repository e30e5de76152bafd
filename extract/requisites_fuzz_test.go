package extract

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzHTMLRequisites checks that HTMLRequisites never panics, stays within its
// limits, and finds only canonical http(s) URLs, each once.
func FuzzHTMLRequisites(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "html", "*.html"))
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<base href="/b/"><img src=a.png srcset="x 1x, y,z 2x"><svg><use xlink:href="s.svg#i"/><style>a{background:url(s.png)}</style></svg><div style="background:url(d.png)">`))
	f.Add([]byte(`<picture><source srcset="a.webp"><video poster=p.jpg><source src=v.mp4><track src=t.vtt></video></picture><link rel="preload icon" as=font href=f>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		opts := RequisiteOptions{MaxRequisites: 20, MaxHTMLBytes: 1 << 14}
		r, err := HTMLRequisites(mustURL(t, "https://example.com/dir/page.html"), nil, body, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Found) > opts.MaxRequisites {
			t.Fatalf("%d requisites, limit %d", len(r.Found), opts.MaxRequisites)
		}
		seen := map[string]bool{}
		for _, q := range r.Found {
			// Requisites are resolved without the crawl's URL rules (tracking parameters
			// stay until the engine applies them), as links are.
			if c, err := (*URLRules)(nil).Canonical(q.URL); err != nil || c != q.URL {
				t.Errorf("%q is not canonical: %q, %v", q.URL, c, err)
			}
			if seen[q.URL] || q.Kind >= numKinds || q.From == "" {
				t.Errorf("%+v: found twice, or of no kind or origin", q)
			}
			seen[q.URL] = true
		}
	})
}
