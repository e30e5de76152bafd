package extract

import (
	"math"
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The block scorer is a learned last step of the main text: inside the content the
// rules chose, each block that holds no other block (a paragraph, a list item, a
// heading, a <div> of text) is scored from what it looks like (its words, its links,
// its punctuation, its stop words, its element and its ancestors', the words of their
// classes), where it is (before or after the longest run of prose, how far) and what its
// neighbours look like; a block it judges (textBlockJudged) scored under the model's cut
// is dropped. The model is a boosted ensemble of small trees trained by
// TestTextBlockTrain (text_block_train_test.go), which writes text_block_weights.go.
// The scorer reads the features of a page's blocks once, after the walker has written
// them, in one pass over its output: no second pass over the tree.

// textBlockTap, when set (by the tests that train and measure the scorer), is called
// with each walker textFromTree has written, before its text is taken.
var textBlockTap func(*textWalker)

// textBlockN is the number of features of a block.
const textBlockN = 54

// textBlockVec is the features of one block.
type textBlockVec [textBlockN]float32

// textBlockWeights is a model: a block whose score (the log-odds that it is content:
// the dot product of its features and w, plus the leaves of trees it reaches) is under
// cut is dropped. The zero value drops nothing.
type textBlockWeights struct {
	w     textBlockVec
	trees []textBlockTree
	cut   float32
	on    bool
}

// textBlockTree is a tree of depth 3 of a boosted ensemble: node k (0 to 6) sends x to
// 2k+1 when x[f[k]] <= t[k], to 2k+2 otherwise; leaf[j] is the score of the j-th node
// of the last level.
type textBlockTree struct {
	f    [7]uint8
	t    [7]float32
	leaf [8]float32
}

// score returns the log-odds that the block of features x is content.
func (m *textBlockWeights) score(x *textBlockVec) float32 {
	var s float32
	for k := range x {
		s += m.w[k] * x[k]
	}
	for i := range m.trees {
		tr := &m.trees[i]
		k := 0
		for k < 7 {
			if x[tr.f[k]] <= tr.t[k] {
				k = 2*k + 1
			} else {
				k = 2*k + 2
			}
		}
		s += tr.leaf[k-7]
	}
	return s
}

// textBlockStats is what the first pass over the blocks reads of each.
type textBlockStats struct {
	words, caps, stops, seps int32
	letters, digits, commas  int32
	sentence, date, prose    bool
}

// blockCuts returns cuts with the blocks that m drops added; when feats is not nil the
// features of every block written are appended to it, in order (training reads them).
func (w *textWalker) blockCuts(cuts [][2]int, m *textBlockWeights, feats *[]textBlockVec) [][2]int {
	if !m.on && feats == nil || len(w.blocks) == 0 {
		return cuts
	}
	b := w.out.b
	stats := make([]textBlockStats, len(w.blocks))
	// The longest run of prose blocks, in characters: where the article is.
	runStart, runEnd, best := -1, -1, 0
	for k, e := range w.blocks {
		s := &stats[k]
		textBlockRead(b[e.start:e.end], s)
		in := &w.t.info[e.i]
		s.prose = in.text-in.link >= 80 && textProse(in.text, in.link) && s.words >= 10
	}
	for k := 0; k < len(w.blocks); {
		if !stats[k].prose {
			k++
			continue
		}
		j, chars := k, 0
		for ; j < len(w.blocks) && stats[j].prose; j++ {
			chars += w.blocks[j].end - w.blocks[j].start
		}
		if chars > best {
			runStart, runEnd, best = k, j-1, chars
		}
		k = j
	}
	var pageWords, pageStops int32
	for k := range stats {
		pageWords += stats[k].words
		pageStops += stats[k].stops
	}
	page := blockShare(pageStops, pageWords)
	// The blocks before the first paragraph of prose (the headline, the date line, the
	// lead's picture) are left to the rules (text_edge.go): the truths the scorer
	// learns from disagree on them. A page in a language whose stop words it does not
	// know is left as it is.
	first := slices.IndexFunc(stats, func(s textBlockStats) bool { return s.prose })
	if feats == nil && (first < 0 || page < textBlockStopMin) {
		return cuts
	}
	var x textBlockVec
	for k, e := range w.blocks {
		if feats == nil && k <= first {
			continue
		}
		w.blockFeatures(&x, k, stats, runStart, runEnd, first >= 0 && k > first)
		x[52] = page
		if feats != nil {
			*feats = append(*feats, x)
		}
		if m.on && first >= 0 && k > first && m.drops(&x) {
			cuts = append(cuts, [2]int{e.start, e.end})
			w.dropped = append(w.dropped, e.i)
		}
	}
	return cuts
}

// drops reports whether m drops a block of features x after the first paragraph of
// prose: one it judges (textBlockJudged), on a page in a language it reads, scored
// under the cut.
func (m *textBlockWeights) drops(x *textBlockVec) bool {
	return x[52] >= textBlockStopMin && textBlockJudged(x) && m.score(x) < m.cut
}

// textBlockJudged reports whether the scorer judges a block of features x: not a
// paragraph of prose, nor a figure, a caption, a code block or a table, on which the
// truths it learns from and the references it is measured against disagree (the news
// set's leave captions out, Readability.js's and the modern set's keep them), or of
// which its pages have few (a manual's code and tables are its content).
func textBlockJudged(x *textBlockVec) bool {
	return x[9] == 0 && x[12] == 0 && x[13] == 0 && x[14] == 0 && x[15] == 0 && x[16] == 0 && x[20] == 0
}

// textBlockStopMin is the share of stop words (textStopWords) under which a page is
// in a language the scorer cannot read: it judges none of its blocks.
const textBlockStopMin = 0.15

// blockFeatures fills x with the features of the k-th block, the longest run of prose
// being the blocks runStart to runEnd (-1 when there is none). The phrases of the
// edges' rules (textTree.edgeJunk, textIsReadAlso), the dearest features, are read
// only for a candidate: a block the scorer may drop.
func (w *textWalker) blockFeatures(x *textBlockVec, k int, stats []textBlockStats, runStart, runEnd int, candidate bool) {
	*x = textBlockVec{}
	e, s := w.blocks[k], &stats[k]
	in := &w.t.info[e.i]
	n := w.t.nodes[e.i]
	words := float32(max(s.words, 1))
	x[0] = 1
	x[1] = blockLog(s.words)
	x[2] = blockShare(in.link, in.text)
	x[3] = blockFlag(s.sentence)
	x[4] = min(float32(s.commas)/words, 1)
	x[5] = float32(s.caps) / words
	x[6] = blockShare(s.digits, s.letters+s.digits)
	x[7] = blockFlag(s.date)
	x[8] = float32(s.stops) / words
	x[9] = blockFlag(s.prose)
	switch n.DataAtom {
	case atom.P:
		x[10] = 1
	case atom.Li, atom.Dd, atom.Dt:
		x[11] = 1
	case atom.H1, atom.H2:
		x[12] = 1
	case atom.H3, atom.H4, atom.H5, atom.H6:
		x[13] = 1
	case atom.Td, atom.Th, atom.Tr, atom.Table:
		x[14] = 1
	case atom.Figcaption, atom.Figure, atom.Caption:
		x[15] = 1
	case atom.Pre:
		x[16] = 1
	case atom.Blockquote:
		x[53] = 1
	default:
		x[17] = 1
	}
	own := w.t.namesOf(htmlAttr(n, "class")) | w.t.namesOf(htmlAttr(n, "id"))
	x[23] = blockFlag(own&namesSure != 0)
	x[24] = blockFlag(own&(namesMaybe|namesWeak) != 0)
	x[25] = blockFlag(own&(namesContent|namesEntry) != 0)
	var names textNames
	depth := 0
	for p := n.Parent; p != nil && p.Type == html.ElementNode; p = p.Parent {
		depth++
		switch p.DataAtom {
		case atom.Li, atom.Ul, atom.Ol, atom.Dl:
			x[18] = 1
		case atom.Td, atom.Th, atom.Table:
			x[19] = 1
		case atom.Figure:
			x[20] = 1
		case atom.Header:
			x[21] = 1
		case atom.Footer, atom.Aside, atom.Nav:
			x[22] = 1
		}
		names |= w.t.namesOf(htmlAttr(p, "class")) | w.t.namesOf(htmlAttr(p, "id"))
		if w.roots[p] {
			break
		}
	}
	x[26] = blockFlag(names&namesSure != 0)
	x[27] = blockFlag(names&(namesMaybe|namesWeak) != 0)
	x[28] = blockFlag(names&(namesContent|namesEntry) != 0)
	last := len(w.blocks) - 1
	switch {
	case runStart < 0:
		x[31] = blockLog(int32(len(w.blocks)))
	case k < runStart:
		x[29] = 1
		x[31] = blockLog(int32(runStart - k))
	case k > runEnd:
		x[30] = 1
		x[31] = blockLog(int32(k - runEnd))
	}
	if last > 0 {
		x[32] = float32(k) / float32(last)
	}
	if k > 0 {
		p := &stats[k-1]
		x[33] = blockLog(p.words)
		x[34] = blockShare(w.t.info[w.blocks[k-1].i].link, w.t.info[w.blocks[k-1].i].text)
		x[37] = blockFlag(p.prose)
	} else {
		x[44] = 1
	}
	if k < last {
		q := &stats[k+1]
		x[35] = blockLog(q.words)
		x[36] = blockShare(w.t.info[w.blocks[k+1].i].link, w.t.info[w.blocks[k+1].i].text)
		x[38] = blockFlag(q.prose)
	} else {
		x[45] = 1
	}
	x[39] = blockLog(int32(depth))
	x[40] = float32(e.end-e.start) / float32(max(len(w.out.b), 1))
	if candidate && !s.prose && in.text <= textEdgeMax {
		x[41] = blockFlag(w.t.edgeJunk(e.i))
		x[42] = blockFlag(textIsReadAlso(w.t.firstText(e.i)))
	}
	x[43] = blockFlag(in.link > 0)
	x[46] = min(float32(s.seps)/words, 1)
	x[47] = blockFlag(s.words <= 3)
	x[48] = blockFlag(s.words > 3 && s.words <= 10)
	x[49] = blockFlag(s.words >= 30)
	x[50] = blockFlag(in.link*2 > in.text)
	x[51] = blockFlag(textHeadingLevel(n.DataAtom) > 0 && k > 0 && k < last)
}

// textBlockRead counts the words of a block's text s into st: words, those that begin
// with a capital, stop words, digits and letters, commas, separators ("|", "•", "/"),
// whether it ends a sentence and whether it holds a date or a time.
func textBlockRead(s []byte, st *textBlockStats) {
	var word [8]byte // the word being read, lower case, while it fits
	wn, inWord, first, long := 0, false, false, false
	var lastRune rune
	digitRun := 0
	end := func() {
		if !inWord {
			return
		}
		st.words++
		if first {
			st.caps++
		}
		if !long && wn > 0 && textStopFirst[word[0]]&(1<<(wn-1)) != 0 && textStopWords[textWordKey(word[:wn])] {
			st.stops++
		}
		inWord, wn, long = false, 0, false
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		var letter, digit, space bool
		if r < utf8.RuneSelf {
			c := byte(r) | 0x20
			letter, digit, space = c >= 'a' && c <= 'z', r >= '0' && r <= '9', r <= ' '
		} else {
			r, size = utf8.DecodeRune(s[i:])
			letter, digit, space = unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsSpace(r)
		}
		i += size
		switch {
		case letter || digit:
			if !inWord {
				inWord, first = true, unicode.IsUpper(r)
			}
			if digit {
				st.digits++
				digitRun++
			} else {
				st.letters++
				if digitRun == 4 {
					st.date = true // a year beside letters: "2019年"
				}
				digitRun = 0
			}
			l := r
			if r < utf8.RuneSelf {
				if r >= 'A' && r <= 'Z' {
					l = r + 'a' - 'A'
				}
				if wn < len(word) {
					word[wn] = byte(l)
					wn++
				} else {
					long = true
				}
			} else if l = unicode.ToLower(r); wn+utf8.RuneLen(l) <= len(word) {
				wn += utf8.EncodeRune(word[wn:], l)
			} else {
				long = true
			}
		default:
			if digitRun == 4 || digitRun > 0 && (r == ':' || r == '/') && i < len(s) && s[i] >= '0' && s[i] <= '9' {
				st.date = true
			}
			digitRun = 0
			end()
			switch r {
			case ',', '，', '、', '،':
				st.commas++
			case '|', '•', '·', '/', '»', '›':
				st.seps++
			}
		}
		if !space {
			lastRune = r
		}
	}
	if digitRun == 4 {
		st.date = true
	}
	end()
	switch lastRune {
	case '.', '!', '?', '。', '！', '？', '…', '"', '”', '»', '\'', ')', ':':
		st.sentence = true
	}
}

func blockLog(n int32) float32 { return float32(math.Log1p(float64(n))) }

func blockShare(a, b int32) float32 {
	if b <= 0 {
		return 0
	}
	return float32(a) / float32(b)
}

func blockFlag(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// textStopWords are the commonest words, lower case, of the languages the phrase lists
// read: English, German, French, Spanish, Portuguese, Italian, Dutch and Polish. Prose
// is made of them; a menu, a tag list or a byline hardly holds one. They are kept by
// textWordKey: none is longer than 8 bytes.
var textStopWords = map[uint64]bool{}

// textStopFirst has, for each first byte of a stop word, the bit n-1 set when one is n
// bytes long: most words are passed over without looking them up.
var textStopFirst [256]uint8

// textWordKey packs a word of at most 8 bytes in a number.
func textWordKey(w []byte) uint64 {
	var k uint64
	for _, c := range w {
		k = k<<8 | uint64(c)
	}
	return k
}

func init() {
	for _, w := range []string{
		// English
		"the", "of", "and", "to", "a", "in", "is", "that", "it", "was", "for", "on", "are", "with",
		"as", "he", "she", "they", "be", "at", "this", "have", "from", "or", "had", "by", "but",
		"not", "what", "were", "we", "when", "there", "can", "an", "which", "their", "has", "would",
		"his", "her", "been", "if", "will", "its", "who", "than", "so", "them", "these", "also",
		// German
		"der", "die", "und", "in", "den", "von", "zu", "das", "mit", "sich", "des", "auf", "für",
		"ist", "im", "dem", "nicht", "ein", "eine", "als", "auch", "es", "an", "werden", "aus",
		"er", "hat", "dass", "sie", "nach", "wird", "bei", "einer", "um", "am", "sind", "noch",
		"wie", "einem", "über", "einen", "so", "zum", "war", "haben", "nur", "oder", "aber",
		// French
		"le", "la", "les", "de", "des", "du", "et", "un", "une", "est", "que", "qui", "dans",
		"pour", "pas", "sur", "au", "il", "elle", "ce", "se", "ne", "plus", "par", "avec", "son",
		"sont", "aux", "été",
		// Spanish
		"el", "los", "las", "en", "y", "del", "por", "con", "para", "una", "es", "lo", "como",
		"más", "pero", "sus", "le", "ya", "fue", "este", "ha", "sí", "porque", "esta", "entre",
		// Portuguese
		"o", "os", "da", "do", "em", "um", "uma", "não", "com", "na", "no", "se", "mais", "foi",
		"ao", "das", "dos", "ele", "ela", "seu", "sua", "ou", "quando", "muito", "já",
		// Italian
		"il", "di", "che", "è", "per", "non", "della", "sono", "gli", "nel", "alla", "si", "anche",
		"come", "ma", "dei", "delle", "ha", "questo", "suo",
		// Dutch
		"het", "een", "van", "en", "is", "dat", "op", "te", "zijn", "niet", "met", "voor", "hij",
		"ze", "maar", "ook", "aan", "er", "om", "bij", "naar", "wordt", "door",
		// Polish
		"i", "w", "nie", "na", "się", "z", "że", "do", "to", "jest", "jak", "o", "ale", "po",
		"co", "tak", "od", "za", "jego", "już", "przez", "tylko", "był", "jej",
	} {
		textStopWords[textWordKey([]byte(w))] = true
		textStopFirst[w[0]] |= 1 << (len(w) - 1)
	}
}
