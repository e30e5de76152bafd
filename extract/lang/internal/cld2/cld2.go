// Package cld2 runs Google's CLD2 through the npm package cld (the script .ci/cld2.js)
// on texts, and compares its verdicts with package lang's: the reference of the
// language benchmark and of its CI check.
package cld2

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
)

// Item is one text to judge.
type Item struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Sample is one line of a committed sample: a text and CLD2's verdict on it.
type Sample struct {
	Item
	CLD2 string `json:"cld2"` // CLD2's code, as Verdict.Code
}

// Verdict is CLD2's top language for one Item.
type Verdict struct {
	ID       string `json:"id"`
	Code     string `json:"code"` // as CLD2 names it: "zh-Hant", "iw", "un" when unknown
	Reliable bool   `json:"reliable"`
}

// Run judges items with node and the script .ci/cld2.js, in one process.
func Run(ctx context.Context, node, script string, items []Item) ([]Verdict, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("cld2: %s %s: %w: %s", node, script, err, stderr.String())
	}
	var vs []Verdict
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v Verdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("cld2: %q: %w", sc.Text(), err)
		}
		vs = append(vs, v)
	}
	if len(vs) != len(items) {
		return nil, fmt.Errorf("cld2: %d verdicts for %d texts", len(vs), len(items))
	}
	return vs, nil
}

// Code returns CLD2's name of a language as an ISO 639-1 code, the way package lang
// names it: "zh-Hant" is "zh", the old "iw" and "jw" are "he" and "jv", "un" is "".
func Code(cld string) string {
	switch cld {
	case "un", "xxx":
		return ""
	case "iw":
		return "he"
	case "jw":
		return "jv"
	case "in":
		return "id"
	}
	if i := strings.IndexByte(cld, '-'); i > 0 {
		return cld[:i]
	}
	return cld
}

// Tally counts agreements between CLD2 and another detector.
type Tally struct {
	Pages, Agree int
	// Confusion counts the disagreements by "cld2 → ours".
	Confusion map[string]int
}

// Add counts one page: CLD2's code (as it names it) and ours (ISO 639-1).
func (t *Tally) Add(cld, ours string) {
	t.Pages++
	if Code(cld) == ours {
		t.Agree++
		return
	}
	if t.Confusion == nil {
		t.Confusion = map[string]int{}
	}
	if ours == "" {
		ours = "(none)"
	}
	c := Code(cld)
	if c == "" {
		c = "(unknown)"
	}
	t.Confusion[c+" → "+ours]++
}

// Rate is the share of pages on which both agree, 0 when there are none.
func (t *Tally) Rate() float64 {
	if t.Pages == 0 {
		return 0
	}
	return float64(t.Agree) / float64(t.Pages)
}

// Table returns the disagreements as Markdown table rows, the most frequent first.
func (t *Tally) Table() string {
	type row struct {
		k string
		n int
	}
	var rows []row
	for k, n := range t.Confusion {
		rows = append(rows, row{k, n})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].n != rows[j].n {
			return rows[i].n > rows[j].n
		}
		return rows[i].k < rows[j].k
	})
	var b strings.Builder
	b.WriteString("| CLD2 → ours | pages |\n|---|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d |\n", r.k, r.n)
	}
	return b.String()
}
