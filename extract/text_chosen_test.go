package extract

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTextChosenTwice writes the main text of every testdata/text and testdata/html
// page from one textChosen in both formats, as htmlText does for Markdown: each text
// is the one written from a textChosen of its own, in whichever order and however
// often they are written (what the first write keeps for the second, textChosen.memo,
// changes nothing).
func TestTextChosenTwice(t *testing.T) {
	for _, dir := range []string{"text", "html"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.html"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no pages in testdata/%s: %v", dir, err)
		}
		for _, file := range files {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, max := range []int{DefaultMaxTextBytes, 300} {
				textWritesAgree(t, file, body, max)
			}
		}
	}
}

// textWritesAgree checks what TestTextChosenTwice says of one page, its text cut at
// max bytes.
func textWritesAgree(t *testing.T, name string, body []byte, max int) {
	t.Helper()
	root, refs, err := htmlTree(body, nil, 0)
	if err != nil {
		return // too large for a tree: no text is written from one
	}
	base, err := (*URLRules)(nil).canonParse(htmlTestURL.String())
	if err != nil {
		t.Fatal(err)
	}
	const title = "Example Domain"
	one, _ := textChoose(root, refs.nodes, title, false, false)
	plain := one.write(&base, title, max, false)
	one, _ = textChoose(root, refs.nodes, title, false, false)
	md := one.write(&base, title, max, true)
	for _, order := range [][]bool{{false, true, false, true}, {true, false, true, false}} {
		both, _ := textChoose(root, refs.nodes, title, true, false)
		for k, format := range order {
			got, want := both.write(&base, title, max, format), plain
			if format {
				want = md
			}
			if got != want {
				t.Fatalf("%s: write %d of %v (Markdown %v), max %d:\n\tgot  %q\n\twant %q", name, k+1, order, format, max, got, want)
			}
		}
	}
}
