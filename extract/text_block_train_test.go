package extract

import (
	"bytes"
	"fmt"
	"go/format"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/crawltest/texteval"
)

// The block scorer's training and its measure. TestTextBlockTrain reads the development
// sets named by the texteval variables (POLITECRAWL_TEXTEVAL_NEWS, _TRAF, _RDB, _MODERN),
// extracts each page once, keeping the walker's output, the rules' cuts and the
// features of each block, labels the blocks from the page's truth, and then measures
// models without extracting again: trained on Dragnet's pages and scored on the other
// sets; trained on GN1's and scored on the others; k-fold by page within the pool (the
// news set and the modern set), at each cut; trained on the whole pool and scored on
// every set (trafilatura's and Readability.js's pages are never trained on). With
// POLITECRAWL_TEXTBLOCK_WRITE=1 it writes the model trained on Dragnet's pages to
// text_block_weights.go, so that every other set measures it on pages it was not
// trained on:
//
//	POLITECRAWL_TEXTEVAL_NEWS=/tmp/textdata/news POLITECRAWL_TEXTEVAL_MODERN=/tmp/textdata/modern \
//	POLITECRAWL_TEXTEVAL_TRAF=/tmp/textdata/traf/tests POLITECRAWL_TEXTEVAL_RDB=/tmp/textdata/rdb/test/test-pages \
//	POLITECRAWL_TEXTBLOCK_WRITE=1 go test -count=1 -v -run TextBlockTrain ./extract/
//
// POLITECRAWL_TEXTBLOCK_SHOW=SET,... logs the blocks the pool's model drops on those
// sets ("gn1", "dragnet", "traf", "rdb", "modern") with their label and score.
// POLITECRAWL_TEXTBLOCK_DUMP=FILE writes every block of every page as a line of
// tab-separated values (set, page, index, label, training weight, the 54 features, the
// block's text with its tabs and line breaks as spaces, 200 bytes at most), under a
// header line: the labelled blocks, for exploring the features with other tools.

// blockPage is one page as the scorer sees it.
type blockPage struct {
	name     string
	src      string // "gn1", "dragnet", "traf", "rdb"
	out      []byte // the walker's output
	cuts     [][2]int
	trim     bool // the text's last lines are trimmed (textWalker.trimTail)
	spans    [][2]int
	feats    []textBlockVec
	labels   []float64 // 1 content, 0 boilerplate, per block
	weights  []float64 // what a block weighs in training; 0 left out
	text     string    // the text the crawl gives (the scorer off)
	fast     bool      // textCut of out and cuts gives text
	truth    map[string]int
	with     []string
	without  []string
	truthStr string
}

// blockRecord extracts the pages and labels their blocks.
func blockRecord(t *testing.T, src string, pages []texteval.Page) []*blockPage {
	saved := textBlockModel
	textBlockModel = textBlockWeights{}
	defer func() { textBlockModel, textBlockTap = saved, nil }()
	var rec *blockPage
	textBlockTap = func(w *textWalker) {
		rec.out = slices.Clone(w.out.b)
		rec.cuts = w.cuts()
		rec.trim = w.prose[1] != 0
		rec.spans = rec.spans[:0]
		for _, e := range w.blocks {
			rec.spans = append(rec.spans, [2]int{e.start, e.end})
		}
		rec.feats = nil
		w.blockCuts(nil, &textBlockWeights{}, &rec.feats)
	}
	var out []*blockPage
	for _, p := range pages {
		u, err := url.Parse(p.URL)
		if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
			u = &url.URL{Scheme: "https", Host: "example.com", Path: "/" + p.Name}
		}
		rec = &blockPage{name: p.Name, src: src, with: p.With, without: p.Without, truthStr: p.Truth}
		pg, err := HTML(u, nil, p.HTML, HTMLOptions{WithText: true})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		rec.text = pg.Text
		rec.fast = rec.out != nil && blockCut(rec, slices.Clone(rec.cuts)) == pg.Text
		if p.Truth != "" {
			rec.truth = blockShingles(p.Truth)
		}
		blockLabel(rec, p.Truth)
		out = append(out, rec)
	}
	return out
}

// blockShingles counts the 4-token shingles of s as texteval.Shingles does.
func blockShingles(s string) map[string]int {
	toks := texteval.Tokens(s)
	m := make(map[string]int)
	for i := 0; i < max(1, len(toks)-3); i++ {
		sh := toks[i:min(len(toks), i+4)]
		if len(sh) == 0 {
			continue
		}
		m[strings.Join(sh, "\x00")]++
	}
	return m
}

// blockLabel labels each block of p from truth: content when most of its 4-token
// shingles (for a block of fewer than 4 tokens, its tokens in order) are in the truth.
// A block weighs its share of the page's shingles, so that each page weighs as much as
// the benchmark's per-page mean gives it. Dragnet's truth keeps the headline and the
// date line, which the benchmark's leaves out: its blocks before the first paragraph
// of prose are left out of training.
func blockLabel(p *blockPage, truth string) {
	p.labels = make([]float64, len(p.spans))
	p.weights = make([]float64, len(p.spans))
	if truth == "" {
		return
	}
	toks := texteval.Tokens(truth)
	grams := make(map[string]bool)
	for n := 1; n <= 4; n++ {
		for i := 0; i+n <= len(toks); i++ {
			grams[strings.Join(toks[i:i+n], "\x00")] = true
		}
	}
	total := 0.0
	sizes := make([]float64, len(p.spans))
	top := true
	for k, s := range p.spans {
		bt := texteval.Tokens(string(p.out[s[0]:s[1]]))
		if len(bt) == 0 {
			continue
		}
		in, all := 0, 0
		if len(bt) < 4 {
			all = 1
			if grams[strings.Join(bt, "\x00")] {
				in = 1
			}
		} else {
			for i := 0; i+4 <= len(bt); i++ {
				all++
				if grams[strings.Join(bt[i:i+4], "\x00")] {
					in++
				}
			}
		}
		if in*2 > all {
			p.labels[k] = 1
		}
		if p.feats[k][9] == 1 {
			top = false
		}
		if top || !textBlockJudged(&p.feats[k]) || p.feats[k][52] < textBlockStopMin {
			continue
		}
		sizes[k] = float64(all)
		total += float64(all)
	}
	for k := range sizes {
		if total > 0 {
			p.weights[k] = sizes[k] / total
		}
	}
}

// blockTrain fits a logistic regression to the blocks of pages by Newton's method,
// with an L2 penalty of lambda on the weights but the bias.
func blockTrain(pages []*blockPage, lambda float64) [textBlockN]float64 {
	const d = textBlockN
	var w [d]float64
	for iter := 0; iter < 25; iter++ {
		var g [d]float64
		var h [d][d]float64
		for _, p := range pages {
			for k := range p.feats {
				c := p.weights[k]
				if c == 0 {
					continue
				}
				x := &p.feats[k]
				z := 0.0
				for j := range d {
					z += w[j] * float64(x[j])
				}
				pr := 1 / (1 + math.Exp(-z))
				r := c * (pr - p.labels[k])
				s := c * pr * (1 - pr)
				for j := range d {
					if x[j] == 0 {
						continue
					}
					g[j] += r * float64(x[j])
					for l := range d {
						h[j][l] += s * float64(x[j]) * float64(x[l])
					}
				}
			}
		}
		for j := 1; j < d; j++ {
			g[j] += lambda * w[j]
			h[j][j] += lambda
		}
		h[0][0] += 1e-9
		step := blockSolve(h, g)
		moved := 0.0
		for j := range d {
			w[j] -= step[j]
			moved = max(moved, math.Abs(step[j]))
		}
		if moved < 1e-6 {
			break
		}
	}
	return w
}

// blockSolve solves h x = g by Gaussian elimination with partial pivoting.
func blockSolve(h [textBlockN][textBlockN]float64, g [textBlockN]float64) [textBlockN]float64 {
	const d = textBlockN
	for c := range d {
		p := c
		for r := c + 1; r < d; r++ {
			if math.Abs(h[r][c]) > math.Abs(h[p][c]) {
				p = r
			}
		}
		h[c], h[p] = h[p], h[c]
		g[c], g[p] = g[p], g[c]
		if math.Abs(h[c][c]) < 1e-12 {
			h[c][c] = 1e-12
		}
		for r := c + 1; r < d; r++ {
			f := h[r][c] / h[c][c]
			if f == 0 {
				continue
			}
			for k := c; k < d; k++ {
				h[r][k] -= f * h[c][k]
			}
			g[r] -= f * g[c]
		}
	}
	var x [d]float64
	for r := d - 1; r >= 0; r-- {
		s := g[r]
		for k := r + 1; k < d; k++ {
			s -= h[r][k] * x[k]
		}
		x[r] = s / h[r][r]
	}
	return x
}

// blockModel returns the model of weights w and cut.
func blockModel(w [textBlockN]float64, cut float64) textBlockWeights {
	m := textBlockWeights{cut: float32(cut), on: true}
	for j := range w {
		m.w[j] = float32(w[j])
	}
	return m
}

// blockDump returns the blocks of pages as tab-separated values under a header line.
func blockDump(pages []*blockPage) []byte {
	var b bytes.Buffer
	b.WriteString("set\tpage\tblock\tlabel\tweight")
	for j := range textBlockN {
		fmt.Fprintf(&b, "\tx%d", j)
	}
	b.WriteString("\ttext\n")
	flat := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	for _, p := range pages {
		for k, s := range p.spans {
			fmt.Fprintf(&b, "%s\t%s\t%d\t%g\t%g", p.src, p.name, k, p.labels[k], p.weights[k])
			for _, v := range p.feats[k] {
				fmt.Fprintf(&b, "\t%g", v)
			}
			b.WriteString("\t" + flat.Replace(strings.TrimSpace(htmlCut(string(p.out[s[0]:s[1]]), 200))) + "\n")
		}
	}
	return b.Bytes()
}

// blockDrops calls drop with the index of each block of a page, of features feats,
// that m drops, as textWalker.blockCuts does.
func blockDrops(feats []textBlockVec, m *textBlockWeights, drop func(k int)) {
	first := slices.IndexFunc(feats, func(x textBlockVec) bool { return x[9] == 1 })
	if first < 0 {
		return
	}
	for k := first + 1; k < len(feats); k++ {
		if m.drops(&feats[k]) {
			drop(k)
		}
	}
}

// blockText returns the text of p with m's cuts; m nil gives the text as the crawl does.
func blockText(p *blockPage, m *textBlockWeights) string {
	if m == nil || !p.fast {
		return p.text
	}
	cuts := slices.Clone(p.cuts)
	blockDrops(p.feats, m, func(k int) { cuts = append(cuts, p.spans[k]) })
	return blockCut(p, cuts)
}

// blockCut returns p's text with cuts, as textWalker.text does.
func blockCut(p *blockPage, cuts [][2]int) string {
	s := textCut(p.out, cuts)
	if p.trim {
		s = textTrimTail(s)
	}
	return s
}

// blockScore scores pages with m (nil: the scorer off): the shingle F1, P and R for
// pages with a whole truth, the snippets' F1 for trafilatura's.
func blockScore(pages []*blockPage, m *textBlockWeights) (f1, prec, rec float64) {
	var counts []texteval.Counts
	var sn texteval.Snippets
	snippets := false
	for _, p := range pages {
		text := blockText(p, m)
		if p.truth == nil {
			snippets = true
			sn.Add(texteval.CountSnippets(p.with, p.without, text))
			continue
		}
		counts = append(counts, blockCounts(p.truth, text))
	}
	if snippets {
		return sn.F1(), sn.Precision(), sn.Recall()
	}
	s := texteval.Mean(counts)
	return s.F1, s.Precision, s.Recall
}

// blockCounts is texteval.Shingles with the truth's shingles counted once.
func blockCounts(t map[string]int, pred string) texteval.Counts {
	p := blockShingles(pred)
	var c texteval.Counts
	for k, tn := range t {
		pn := p[k]
		c.TP += float64(min(tn, pn))
		c.FN += float64(max(0, tn-pn))
	}
	for k, pn := range p {
		c.FP += float64(max(0, pn-t[k]))
	}
	if s := c.TP + c.FP + c.FN; s > 0 {
		c.TP, c.FP, c.FN = c.TP/s, c.FP/s, c.FN/s
	}
	return c
}

// blockCutsTried are the cuts the sweeps report.
var blockCutsTried = []float64{-3, -2.5, -2, -1.5, -1, -0.5, 0}

// blockRounds is the number of trees of a boosted model.
const blockRounds = 150

// blockFit trains a model on pages: a boosted ensemble, or with
// POLITECRAWL_TEXTBLOCK_MODEL=linear a logistic regression. Its cut is
// $POLITECRAWL_TEXTBLOCK_CUT, -2 unless set: chosen once from the k-fold sweep as the
// highest cut at which no set of the pool loses more than 0.0005 of F1 (the modern
// set's annotators keep captions, dates and headings the news set's truths leave out),
// rather than on each training set, which takes the cut that keeps the least
// boilerplate of its own truth.
func blockFit(t *testing.T, pages []*blockPage) textBlockWeights {
	var m textBlockWeights
	if os.Getenv("POLITECRAWL_TEXTBLOCK_MODEL") == "linear" {
		m = blockModel(blockTrain(pages, 1e-4), 0)
	} else {
		m = blockBoost(pages, blockRounds, 0.1)
	}
	m.cut = -2
	if c := os.Getenv("POLITECRAWL_TEXTBLOCK_CUT"); c != "" {
		if _, err := fmt.Sscan(c, &m.cut); err != nil {
			t.Fatalf("POLITECRAWL_TEXTBLOCK_CUT: %v", err)
		}
	}
	return m
}

func blockOf(pages []*blockPage, src ...string) []*blockPage {
	var out []*blockPage
	for _, p := range pages {
		if slices.Contains(src, p.src) {
			out = append(out, p)
		}
	}
	return out
}

func TestTextBlockTrain(t *testing.T) {
	news := os.Getenv("POLITECRAWL_TEXTEVAL_NEWS")
	if news == "" {
		t.Skip("POLITECRAWL_TEXTEVAL_NEWS not set")
	}
	np, err := texteval.LoadNews(news)
	if err != nil {
		t.Fatal(err)
	}
	var gn1, dragnet []texteval.Page
	for _, p := range np {
		if strings.HasPrefix(p.Name, "gn1-") {
			gn1 = append(gn1, p)
		} else {
			dragnet = append(dragnet, p)
		}
	}
	all := append(blockRecord(t, "gn1", gn1), blockRecord(t, "dragnet", dragnet)...)
	if dir := os.Getenv("POLITECRAWL_TEXTEVAL_TRAF"); dir != "" {
		tp, err := texteval.LoadTrafilatura(filepath.Join(dir, "evaldata.json"), filepath.Join(dir, "eval"))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, blockRecord(t, "traf", tp)...)
	}
	if dir := os.Getenv("POLITECRAWL_TEXTEVAL_RDB"); dir != "" {
		rp, err := texteval.LoadReadability(dir)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, blockRecord(t, "rdb", rp)...)
	}
	if dir := os.Getenv("POLITECRAWL_TEXTEVAL_MODERN"); dir != "" {
		mp, err := texteval.LoadModern(dir)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, blockRecord(t, "modern", mp)...)
	}
	blocks, fast := 0, 0
	for _, p := range all {
		blocks += len(p.spans)
		if p.fast {
			fast++
		}
	}
	t.Logf("%d pages, %d blocks; %d pages whose text the cuts give again (the others are scored as the crawl gives them)", len(all), blocks, fast)
	if path := os.Getenv("POLITECRAWL_TEXTBLOCK_DUMP"); path != "" {
		if err := os.WriteFile(path, blockDump(all), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sets := []string{"gn1", "dragnet", "traf", "rdb", "modern"}
	report := func(label string, m *textBlockWeights, score ...string) {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s (cut %.1f):", label, m.cut)
		for _, s := range score {
			ps := blockOf(all, s)
			if len(ps) == 0 {
				continue
			}
			f0, p0, r0 := blockScore(ps, nil)
			f1, p1, r1 := blockScore(ps, m)
			fmt.Fprintf(&sb, "\n\t%s %d pages: F1 %.5f -> %.5f (P %.4f -> %.4f, R %.4f -> %.4f)", s, len(ps), f0, f1, p0, p1, r0, r1)
		}
		t.Log(sb.String())
	}
	sweep := func(label string, m textBlockWeights, score ...string) {
		for _, c := range blockCutsTried {
			m.cut = float32(c)
			var sb strings.Builder
			fmt.Fprintf(&sb, "%s, cut %.1f:", label, c)
			for _, s := range score {
				if ps := blockOf(all, s); len(ps) > 0 {
					f, p, r := blockScore(ps, &m)
					fmt.Fprintf(&sb, " %s %.4f (P %.4f R %.4f)", s, f, p, r)
				}
			}
			t.Log(sb.String())
		}
	}
	// The model shipped is Dragnet's: every other set is scored out of its training.
	ship := blockFit(t, blockOf(all, "dragnet"))
	m := ship
	report("trained on Dragnet", &m, "gn1", "traf", "rdb", "modern", "dragnet")
	sweep("trained on Dragnet", m, "gn1", "traf", "rdb", "modern")
	m = blockFit(t, blockOf(all, "gn1"))
	report("trained on GN1", &m, "dragnet", "traf", "rdb", "modern", "gn1")
	sweep("trained on GN1", m, "dragnet", "traf", "rdb", "modern")
	// k-fold by page within the training pool (the news set, and the modern set when it
	// is named): each page scored by the model trained on the other folds, at each cut.
	const folds = 5
	pool := blockOf(all, "gn1", "dragnet")
	srcs := []string{"gn1", "dragnet"}
	if len(blockOf(all, "modern")) > 0 {
		pool = blockOf(all, "gn1", "dragnet", "modern")
		srcs = append(srcs, "modern")
	}
	cutsK := append([]float64{math.Inf(-1)}, blockCutsTried...)
	bySrc := map[string][][]texteval.Counts{} // by source, then by cut (the first: none)
	for f := range folds {
		var train, test []*blockPage
		for k, p := range pool {
			if k%folds == f {
				test = append(test, p)
			} else {
				train = append(train, p)
			}
		}
		m := blockFit(t, train)
		for _, p := range test {
			cs := bySrc[p.src]
			if cs == nil {
				cs = make([][]texteval.Counts, len(cutsK))
			}
			for j, c := range cutsK {
				m.cut = float32(c)
				cs[j] = append(cs[j], blockCounts(p.truth, blockText(p, &m)))
			}
			bySrc[p.src] = cs
		}
	}
	for j, c := range cutsK[1:] {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%d-fold, cut %.1f:", folds, c)
		for _, s := range srcs {
			b, k := texteval.Mean(bySrc[s][0]), texteval.Mean(bySrc[s][j+1])
			fmt.Fprintf(&sb, " %s %.4f -> %.4f (P %.4f -> %.4f, R %.4f -> %.4f)", s, b.F1, k.F1, b.Precision, k.Precision, b.Recall, k.Recall)
		}
		t.Log(sb.String())
	}
	m = blockFit(t, pool)
	report("trained on the pool", &m, sets...)
	sweep("trained on the pool", m, sets...)
	if show := os.Getenv("POLITECRAWL_TEXTBLOCK_SHOW"); show != "" {
		for _, p := range blockOf(all, strings.Split(show, ",")...) {
			blockDrops(p.feats, &m, func(k int) {
				s := p.spans[k]
				t.Logf("%s %.0f %.2f %q", p.name, p.labels[k], m.score(&p.feats[k]), htmlCut(string(p.out[s[0]:s[1]]), 100))
			})
		}
	}
	if os.Getenv("POLITECRAWL_TEXTBLOCK_WRITE") == "" {
		return
	}
	var src bytes.Buffer
	src.WriteString("// Code generated by TestTextBlockTrain (text_block_train_test.go); DO NOT EDIT.\n\n")
	src.WriteString("package extract\n\n")
	m = ship
	fmt.Fprintf(&src, "// textBlockModel is the block scorer's model (text_block.go), trained on Dragnet's %d\n// pages of the news set (github:seomoz/dragnet_data, AGPL-3.0).\n", len(blockOf(all, "dragnet")))
	fmt.Fprintf(&src, "var textBlockModel = textBlockWeights{on: true, cut: %g, w: textBlockVec{", m.cut)
	for j, v := range m.w {
		if v != 0 {
			fmt.Fprintf(&src, "%d: %g, ", j, v)
		}
	}
	src.WriteString("}, trees: []textBlockTree{\n")
	for _, tr := range m.trees {
		fmt.Fprintf(&src, "{f: %#v, t: %#v, leaf: %#v},\n", tr.f, tr.t, tr.leaf)
	}
	src.WriteString("}}\n")
	code, err := format.Source(src.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("text_block_weights.go", code, 0o644); err != nil {
		t.Fatal(err)
	}
}

// blockBoost fits a boosted ensemble of rounds trees of depth 3 to the blocks of
// pages (logistic loss, Newton steps, shrinkage rate), splitting each feature at up
// to 32 quantiles of its values.
func blockBoost(pages []*blockPage, rounds int, rate float64) textBlockWeights {
	type sample struct {
		x    *textBlockVec
		y, c float64
	}
	var xs []sample
	sum := 0.0
	for _, p := range pages {
		for k := range p.feats {
			if c := p.weights[k]; c > 0 {
				xs = append(xs, sample{&p.feats[k], p.labels[k], c})
				sum += c
			}
		}
	}
	var pos float64
	for i := range xs {
		xs[i].c *= float64(len(xs)) / sum
		pos += xs[i].c * xs[i].y
	}
	n := len(xs)
	base := math.Log(pos / (float64(n) - pos))
	// The split points of each feature, and each sample's bin.
	var cuts [textBlockN][]float32
	bins := make([][textBlockN]uint8, n)
	for j := range textBlockN {
		vals := make([]float32, n)
		for i := range xs {
			vals[i] = xs[i].x[j]
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
		if len(vals) <= 32 {
			cuts[j] = vals[:len(vals)-1]
		} else {
			for q := 1; q < 32; q++ {
				cuts[j] = append(cuts[j], vals[q*len(vals)/32])
			}
			cuts[j] = slices.Compact(cuts[j])
		}
		for i := range xs {
			b, _ := slices.BinarySearch(cuts[j], xs[i].x[j]) // x <= cuts[b]: bin b
			bins[i][j] = uint8(b)
		}
	}
	const lambda, minH = 1.0, 5.0
	f := make([]float64, n)
	for i := range f {
		f[i] = base
	}
	g, h := make([]float64, n), make([]float64, n)
	m := textBlockWeights{on: true}
	m.w[0] = float32(base)
	for range rounds {
		for i, s := range xs {
			p := 1 / (1 + math.Exp(-f[i]))
			g[i], h[i] = s.c*(p-s.y), s.c*p*(1-p)
		}
		var tr textBlockTree
		// Each sample's node at the current level.
		node := make([]int, n)
		for level := range 3 {
			first := 1<<level - 1
			hist := make([][textBlockN][33][2]float64, first+1)
			tot := make([][2]float64, first+1)
			for i := range xs {
				k := node[i] - first
				tot[k][0] += g[i]
				tot[k][1] += h[i]
				for j := range textBlockN {
					b := bins[i][j]
					hist[k][j][b][0] += g[i]
					hist[k][j][b][1] += h[i]
				}
			}
			for k := first; k < 2*first+1; k++ {
				gh := &hist[k-first]
				G, H := tot[k-first][0], tot[k-first][1]
				bestGain, bestF, bestB := 0.0, 0, -1
				for j := range textBlockN {
					var gl, hl float64
					for b := 0; b < len(cuts[j]); b++ {
						gl, hl = gl+gh[j][b][0], hl+gh[j][b][1]
						gr, hr := G-gl, H-hl
						if hl < minH || hr < minH {
							continue
						}
						gain := gl*gl/(hl+lambda) + gr*gr/(hr+lambda) - G*G/(H+lambda)
						if gain > bestGain {
							bestGain, bestF, bestB = gain, j, b
						}
					}
				}
				if bestB < 0 {
					tr.f[k], tr.t[k] = 0, math.MaxFloat32 // no split: all go left
				} else {
					tr.f[k], tr.t[k] = uint8(bestF), cuts[bestF][bestB]
				}
			}
			for i, s := range xs {
				k := node[i]
				if s.x[tr.f[k]] <= tr.t[k] {
					node[i] = 2*k + 1
				} else {
					node[i] = 2*k + 2
				}
			}
		}
		var lg, lh [8]float64
		for i := range xs {
			lg[node[i]-7] += g[i]
			lh[node[i]-7] += h[i]
		}
		for j := range 8 {
			tr.leaf[j] = float32(-lg[j] / (lh[j] + lambda) * rate)
		}
		for i := range xs {
			f[i] += float64(tr.leaf[node[i]-7])
		}
		m.trees = append(m.trees, tr)
	}
	return m
}
