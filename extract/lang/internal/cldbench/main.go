// Command cldbench measures package lang against CLD2 (the npm package cld, through
// .ci/cld2.js) on HTML pages: the main text of each page is taken by extract.HTML, as
// the crawl takes it, and pages with at least -min characters of it are judged by both.
//
//	go run ./extract/lang/internal/cldbench -min 200 trafilatura=/path/tests/eval/*.html \
//		debian-reference=/usr/share/debian-reference/*.html
//
// Each argument is LABEL=GLOB. It prints the agreement per set and in all, and the
// confusion table of the pages where the two disagree. -sample FILE writes the texts
// judged, with CLD2's verdicts, as JSON lines for a committed test sample.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/extract/lang"
	"github.com/politecrawl/crawl/extract/lang/internal/cld2"
)

type page struct {
	set, id, text string
	ours          lang.Result
}

func main() {
	node := flag.String("node", "node", "the node binary")
	script := flag.String("script", ".ci/cld2.js", "the CLD2 script")
	minChars := flag.Int("min", 200, "characters of main text a page needs to be judged")
	sample := flag.String("sample", "", "write the judged texts and CLD2's verdicts to this JSON lines file")
	every := flag.Int("every", 1, "with -sample, keep one page in this many")
	maxText := flag.Int("sample-chars", 1500, "with -sample, characters kept of each text")
	flag.Parse()

	var pages []page
	u, _ := url.Parse("https://example.org/")
	for _, arg := range flag.Args() {
		set, glob, ok := strings.Cut(arg, "=")
		if !ok {
			log.Fatalf("cldbench: %q: want LABEL=GLOB", arg)
		}
		names, err := filepath.Glob(glob)
		if err != nil {
			log.Fatalf("cldbench: %v", err)
		}
		sort.Strings(names)
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				log.Fatalf("cldbench: %v", err)
			}
			p, err := extract.HTML(u, nil, b, extract.HTMLOptions{WithText: true})
			if err != nil {
				log.Printf("cldbench: %s: %v", name, err)
				continue
			}
			if utf8.RuneCountInString(p.Text) < *minChars {
				continue
			}
			id := filepath.Join(filepath.Base(filepath.Dir(name)), filepath.Base(name))
			pages = append(pages, page{set: set, id: set + "/" + id, text: p.Text})
		}
	}

	start := time.Now()
	var bytes int
	for i := range pages {
		pages[i].ours = lang.Detect(pages[i].text)
		bytes += len(pages[i].text)
	}
	took := time.Since(start)

	items := make([]cld2.Item, len(pages))
	for i, p := range pages {
		items[i] = cld2.Item{ID: p.id, Text: p.text}
	}
	verdicts, err := cld2.Run(context.Background(), *node, *script, items)
	if err != nil {
		log.Fatal(err)
	}

	sets := map[string]*cld2.Tally{}
	var all cld2.Tally
	var order []string
	for i, p := range pages {
		t := sets[p.set]
		if t == nil {
			t = &cld2.Tally{}
			sets[p.set] = t
			order = append(order, p.set)
		}
		t.Add(verdicts[i].Code, p.ours.Code)
		all.Add(verdicts[i].Code, p.ours.Code)
		if cld2.Code(verdicts[i].Code) != p.ours.Code {
			fmt.Fprintf(os.Stderr, "%s: cld2 %s (reliable %v), ours %s %.3f: %.120q\n", p.id, verdicts[i].Code, verdicts[i].Reliable, p.ours.Code, p.ours.Confidence, p.text)
		}
	}
	for _, s := range order {
		t := sets[s]
		fmt.Printf("%s: %d/%d pages agree (%.2f%%)\n", s, t.Agree, t.Pages, 100*t.Rate())
	}
	fmt.Printf("all: %d/%d pages agree (%.2f%%)\n", all.Agree, all.Pages, 100*all.Rate())
	fmt.Printf("ours: %d pages, %.1f µs a page (first call decodes the model), %.0f MB/s\n", len(pages), float64(took.Microseconds())/float64(max(1, len(pages))), float64(bytes)/took.Seconds()/1e6)
	byCode := map[string]int{}
	for _, v := range verdicts {
		byCode[v.Code]++
	}
	codes := make([]string, 0, len(byCode))
	for c := range byCode {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		return byCode[codes[i]] > byCode[codes[j]] || byCode[codes[i]] == byCode[codes[j]] && codes[i] < codes[j]
	})
	fmt.Print("pages by CLD2's language:")
	for _, c := range codes {
		fmt.Printf(" %s %d", c, byCode[c])
	}
	fmt.Println()
	fmt.Print(all.Table())

	if *sample != "" {
		if err := writeSample(*sample, *node, *script, pages, *every, *maxText); err != nil {
			log.Fatal(err)
		}
	}
}

// writeSample writes one page in every, its text cut to maxText characters, with
// CLD2's verdict on that cut text, as JSON lines.
func writeSample(name, node, script string, pages []page, every, maxText int) error {
	var items []cld2.Item
	for i, p := range pages {
		if i%every != 0 {
			continue
		}
		text := p.text
		if utf8.RuneCountInString(text) > maxText {
			text = string([]rune(text)[:maxText])
		}
		items = append(items, cld2.Item{ID: p.id, Text: text})
	}
	verdicts, err := cld2.Run(context.Background(), node, script, items)
	if err != nil {
		return err
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for i, it := range items {
		if err := enc.Encode(cld2.Sample{Item: it, CLD2: verdicts[i].Code}); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
