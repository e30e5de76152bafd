package crawl

import (
	"slices"

	"github.com/politecrawl/crawl/extract/lang"
	"github.com/politecrawl/crawl/storage"
)

// maxLanguages is how many languages a conversion record (and so the Parquet index)
// names, as Common Crawl's content_languages holds up to three.
const maxLanguages = 3

// storageLanguage returns r as pages.jsonl and the metadata record write it.
func storageLanguage(r lang.Result) *storage.Language {
	return &storage.Language{Code: r.Code, Script: r.Script, Confidence: r.Confidence}
}

// storageLanguages returns rs as the metadata record writes them; nil for none.
func storageLanguages(rs []lang.Result) []storage.Language {
	if len(rs) == 0 {
		return nil
	}
	out := make([]storage.Language, len(rs))
	for i, r := range rs {
		out[i] = *storageLanguage(r)
	}
	return out
}

// iso6393 returns the ISO 639-3 codes of the languages rs names, the main one first,
// at most maxLanguages, for a conversion record's WARC-Identified-Content-Language as
// Common Crawl writes it; nil for none.
func iso6393(rs []lang.Result) []string {
	var out []string
	for _, r := range rs {
		if c := r.ISO6393(); c != "" && len(out) < maxLanguages && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
