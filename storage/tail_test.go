package storage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenPagesRepair is part of issue 13 defect 7: OpenPages cuts a torn tail and
// says what it dropped, and keeps a last line that lacks only its newline.
func TestOpenPagesRepair(t *testing.T) {
	a := `{"url":"http://a.example/"}` + "\n"
	b := `{"url":"http://b.example/","title":"B"}`
	cases := []struct {
		name, content, want string
		repair              TailRepair
	}{
		{"empty", "", "", TailRepair{}},
		{"whole", a + b + "\n", a + b + "\n", TailRepair{}},
		{"last line without its newline", a + b, a + b + "\n", TailRepair{Newline: true}},
		{"only line without its newline", b, b + "\n", TailRepair{Newline: true}},
		{"torn last line", a + b[:20], a, TailRepair{Cut: 20, Lines: 1, Dropped: b[:20]}},
		{"torn only line", b[:20], "", TailRepair{Cut: 20, Lines: 1, Dropped: b[:20]}},
		{"cut at the closing quote", a + b[:len(b)-1], a, TailRepair{Cut: int64(len(b) - 1), Lines: 1, Dropped: b[:len(b)-1]}},
		{"garbage lines", a + "zz\n{\"x\n", a, TailRepair{Cut: 7, Lines: 2, Dropped: "zz\n{\"x\n"}},
		{"array, not an object", a + "[1]", a, TailRepair{Cut: 3, Lines: 1, Dropped: "[1]"}},
		{"long torn line", a + `{"text":"` + strings.Repeat("x", 1000),
			a, TailRepair{Cut: 1009, Lines: 1, Dropped: (`{"text":"` + strings.Repeat("x", 1000))[:maxDropped]}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pages.jsonl")
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := OpenPages(path, PagesOptions{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Repair(); got != c.repair {
				t.Errorf("Repair() =\n\t%+v\nwant\n\t%+v", got, c.repair)
			}
			if err := p.Write(context.Background(), &Page{URL: "http://c.example/", FetchedAt: time.Unix(0, 0)}); err != nil {
				t.Fatal(err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			body, ok := strings.CutPrefix(string(got), c.want)
			if !ok || !strings.HasPrefix(body, `{"url":"http://c.example/"`) || strings.Count(body, "\n") != 1 {
				t.Errorf("file after repair and one write:\n\t%q\nwant %q then the new line", got, c.want)
			}
		})
	}
}
