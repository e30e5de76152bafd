package capture

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/storage"
)

// TestReadLogged sums hand-written lines: each requisite URL counted once by its
// best outcome (a retried 503 that then answered is archived), pages' lines and
// skipped pages left out of the outcomes, and a torn last line counted, not read.
func TestReadLogged(t *testing.T) {
	dir := t.TempDir()
	pages := `{"url":"http://a.test/","status":200,"requisites":{"found":7,"queued":5,"excluded":1,"limit":1}}
{"url":"http://a.test/a.css","status":200,"requisite":"stylesheet","requisites":{"found":1,"queued":1}}
{"url":"http://a.test/b.png","status":503,"requisite":"image"}
{"url":"http://a.test/b.png","status":200,"requisite":"image"}
{"url":"http://a.test/c.png","status":404,"requisite":"image"}
{"url":"http://a.test/r.png","status":301,"requisite":"image"}
{"url":"http://a.test/big.png","status":200,"requisite":"image","truncated":true}
{"url":"http://a.test/page2","status":200,"requisites":{"found":1,"queued":1,"archived":1}}
{"url":"http://a.test/x.png","sta`
	skipped := `{"url":"http://a.test/d.png","reason":"robots","requisite":"image"}
{"url":"http://a.test/e.png","reason":"requisite-limit","requisite":"image"}
{"url":"http://a.test/f.js","reason":"failed","requisite":"script"}
{"url":"http://a.test/private","reason":"robots"}
`
	for name, body := range map[string]string{"pages.jsonl": pages, "skipped.jsonl": skipped} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadLogged(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Logged{
		Documents:  3,
		Named:      storage.RequisiteCounts{Found: 9, Queued: 7, Archived: 1, Excluded: 1, Limit: 1},
		Distinct:   Counts{Found: 8, Archived: 4, Blocked: 1, Failed: 2, Limit: 1},
		Truncated:  1,
		Pages:      2,
		Requisites: 6,
		Unreadable: 1,
	}
	if *got != want {
		t.Errorf("ReadLogged:\n\tgot  %+v\n\twant %+v", *got, want)
	}

	empty, err := ReadLogged(t.TempDir())
	if err != nil || *empty != (Logged{}) {
		t.Errorf("ReadLogged of an empty directory: %+v, %v", empty, err)
	}
}
