package lang

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/extract/lang/internal/cld2"
)

// minSampleAgreement is the share of testdata/cld2_sample.jsonl on which Detect agrees
// with CLD2, as reached when the sample was made (BENCHMARKS.md, "Language
// detection"); the tests fail below it.
const minSampleAgreement = 0.98

// readSample reads testdata/cld2_sample.jsonl: 190 main texts (cut to 1,500
// characters) of trafilatura's evaluation pages (github.com/adbar/trafilatura,
// tests/eval and tests/cache; Apache-2.0 repository, the pages' text belongs to their
// publishers and is kept here as test excerpts) and of Debian's translated
// documentation (debian-reference, debian-faq, maint-guide, developers-reference;
// GPL-2+), one page in eight of the benchmark, with CLD2's verdict on each.
func readSample(t *testing.T) []cld2.Sample {
	t.Helper()
	f, err := os.Open("testdata/cld2_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []cld2.Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s cld2.Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCLD2Sample compares Detect with CLD2's verdicts recorded in the sample.
func TestCLD2Sample(t *testing.T) {
	var tally cld2.Tally
	for _, s := range readSample(t) {
		tally.Add(s.CLD2, Detect(s.Text).Code)
	}
	t.Logf("%d/%d texts agree with CLD2's recorded verdicts (%.1f%%)\n%s", tally.Agree, tally.Pages, 100*tally.Rate(), tally.Table())
	if tally.Rate() < minSampleAgreement {
		t.Errorf("agreement %.3f, want at least %.3f", tally.Rate(), minSampleAgreement)
	}
}

// TestCLD2Live runs CLD2 itself (the npm package cld in .ci/node, through
// .ci/cld2.js) on the sample: its verdicts must be the recorded ones, and Detect must
// agree with them as often as minSampleAgreement. .ci/extra installs cld and sets
// POLITECRAWL_CLD2=1, which makes a missing cld a failure.
func TestCLD2Live(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	crawltest.NeedTool(t, "cld (npm)", filepath.Join(root, ".ci/node/node_modules/cld/build/Release/cld.node"),
		"(cd .ci/node && npm ci --ignore-scripts && npm rebuild cld --nodedir=/usr)", "POLITECRAWL_CLD2")
	node, err := exec.LookPath("node")
	if err != nil {
		crawltest.MissingTool(t, "node", "not in PATH", "apt-get install nodejs", "POLITECRAWL_CLD2")
	}
	samples := readSample(t)
	items := make([]cld2.Item, len(samples))
	for i, s := range samples {
		items[i] = s.Item
	}
	verdicts, err := cld2.Run(context.Background(), node, filepath.Join(root, ".ci/cld2.js"), items)
	if err != nil {
		t.Fatal(err)
	}
	var tally cld2.Tally
	for i, v := range verdicts {
		if v.Code != samples[i].CLD2 {
			t.Errorf("%s: CLD2 says %q, the sample recorded %q", v.ID, v.Code, samples[i].CLD2)
		}
		tally.Add(v.Code, Detect(samples[i].Text).Code)
	}
	t.Logf("%d/%d texts agree with CLD2 (%.1f%%)\n%s", tally.Agree, tally.Pages, 100*tally.Rate(), tally.Table())
	if tally.Rate() < minSampleAgreement {
		t.Errorf("agreement %.3f, want at least %.3f", tally.Rate(), minSampleAgreement)
	}
}
