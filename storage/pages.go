package storage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Page is one line of pages.jsonl: a fetched document, where its bytes are
// archived and what extraction found in it. The JSON names are given beside
// each field; every field is always present except text, simhash, language and
// content_signal, which are left out when empty.
type Page struct {
	URL           string    // url: the URL fetched
	FinalURL      string    // final_url: the URL the document came from (after redirects handled by the crawler); often URL
	Status        int       // status: HTTP status code
	ContentType   string    // content_type: the Content-Type header as received
	Length        int64     // length: body bytes as received
	FetchedAt     time.Time // fetched_at: RFC 3339 in UTC, to the millisecond
	PayloadDigest string    // payload_digest: "sha1:" + base32 of the body, as in the WARC record
	WARCFile      string    // warc_file: base name of the WARC file holding the response or revisit record
	WARCOffset    int64     // warc_offset: offset of that record's gzip member in warc_file, in bytes
	WARCLength    int64     // warc_length: length of that gzip member, in bytes
	Title         string    // title: the document's title
	Lang          string    // lang: the document's language (e.g. from <html lang>)
	Canonical     string    // canonical: the canonical URL the document declares; empty: none
	Links         int       // links: number of links found
	NoIndex       bool      // noindex: meta robots or X-Robots-Tag said noindex
	NoFollow      bool      // nofollow: meta robots or X-Robots-Tag said nofollow
	Depth         int       // depth: links followed from a seed (seeds are 0)
	FoundOn       string    // found_on: the URL of the page linking here; empty for seeds
	Text          string    // text: the document's text, when the configuration asks for it
	SimHash       string    // simhash: the 64-bit SimHash of the main text as 16 hex digits, when text is extracted (left out when empty)
	// Language is the language detected in the document's main text (language: an
	// object with code, script and confidence; left out when nil).
	Language  *Language
	Truncated bool // truncated: the body was cut at a size limit, or only its first part was parsed for links
	// ContentSignal is the robots.txt Content-Signal that applies to the page, such as
	// "ai-train" → "no" (content_signal: an object, left out when nil).
	ContentSignal map[string]string
	// Changed, for a refetch (recrawl), says whether the page differs from its
	// previous fetch (changed: true or false; left out when nil, for a first fetch).
	// A 304 Not Modified or an identical payload is unchanged.
	Changed *bool
	// PreviousFetch, for a refetch, is when the page was fetched before
	// (previous_fetch, RFC 3339 in UTC; left out when zero).
	PreviousFetch time.Time
	// OptOut is the page's verdict under the opt-outs beyond robots.txt (TDMRep, noai,
	// Content-Usage), as optout.Verdict words it (opt_out; left out when empty).
	OptOut string
	// Requisite, for a page requisite (a stylesheet, an image, a font, a frame
	// fetched because a page needs it), is its kind, such as "stylesheet" or
	// "image" (requisite; left out for a page). Such a line is no page of its own:
	// FoundOn is the page or stylesheet that needs it.
	Requisite string
	// Requisites, for a document whose requisites were looked for (a page, or a
	// stylesheet or frame fetched as a requisite within requisites.max_hops), is
	// what it names that a browser needs and what the crawler did with each name
	// (requisites: an object; left out when nil).
	Requisites *RequisiteCounts

	// carried says that the line is carried in the WARC, in the page's metadata
	// record (WARCWriter.Append with Exchange.Page).
	carried bool
}

// RequisiteCounts is what a document names that a browser needs to show it, and
// what the crawler did with each name when it read the document. What became of a
// requisite queued is on its own line: in pages.jsonl once fetched, in skipped.jsonl
// if not (blocked by robots.txt, failed), each with found_on naming the document
// that first asked for it.
type RequisiteCounts struct {
	Found    int `json:"found"`              // requisites named, each URL once
	Queued   int `json:"queued"`             // handed to the frontier, which fetches each URL once per crawl (those already fetched or queued included)
	Archived int `json:"archived,omitempty"` // of Queued, those this crawl had archived already (a 2xx capture of the URL) when the document was read
	Excluded int `json:"excluded,omitempty"` // of a kind requisites.kinds leaves out
	Scope    int `json:"scope,omitempty"`    // refused by scope (on other hosts, with requisites.other_hosts off)
	Limit    int `json:"limit,omitempty"`    // past requisites.max_per_page (in skipped.jsonl), or past the 2,000 distinct URLs read of one document
}

// pageJSON fixes the JSON form of Page.
type pageJSON struct {
	URL           string `json:"url"`
	FinalURL      string `json:"final_url"`
	Status        int    `json:"status"`
	ContentType   string `json:"content_type"`
	Length        int64  `json:"length"`
	FetchedAt     string `json:"fetched_at"`
	PayloadDigest string `json:"payload_digest"`
	WARCFile      string `json:"warc_file"`
	WARCOffset    int64  `json:"warc_offset"`
	WARCLength    int64  `json:"warc_length"`
	Title         string `json:"title"`
	Lang          string `json:"lang"`
	Canonical     string `json:"canonical"`
	Links         int    `json:"links"`
	NoIndex       bool   `json:"noindex"`
	NoFollow      bool   `json:"nofollow"`
	Depth         int    `json:"depth"`
	FoundOn       string `json:"found_on"`
	Text          string `json:"text,omitempty"`
	SimHash       string `json:"simhash,omitempty"`
	Truncated     bool   `json:"truncated,omitempty"`

	Language *Language `json:"language,omitempty"`

	ContentSignal map[string]string `json:"content_signal,omitempty"`
	Changed       *bool             `json:"changed,omitempty"`
	PreviousFetch string            `json:"previous_fetch,omitempty"`
	OptOut        string            `json:"opt_out,omitempty"`
	Requisite     string            `json:"requisite,omitempty"`
	Requisites    *RequisiteCounts  `json:"requisites,omitempty"`
}

// fetchedAtLayout is RFC 3339 with milliseconds.
const fetchedAtLayout = "2006-01-02T15:04:05.000Z07:00"

// MarshalJSON encodes p as one pages.jsonl object.
func (p *Page) MarshalJSON() ([]byte, error) {
	var prev string
	if !p.PreviousFetch.IsZero() {
		prev = p.PreviousFetch.UTC().Format(fetchedAtLayout)
	}
	return json.Marshal(pageJSON{
		URL: p.URL, FinalURL: p.FinalURL, Status: p.Status, ContentType: p.ContentType,
		Length: p.Length, FetchedAt: p.FetchedAt.UTC().Format(fetchedAtLayout),
		PayloadDigest: p.PayloadDigest, WARCFile: p.WARCFile, WARCOffset: p.WARCOffset,
		WARCLength: p.WARCLength, Title: p.Title, Lang: p.Lang, Canonical: p.Canonical,
		Links: p.Links, NoIndex: p.NoIndex, NoFollow: p.NoFollow, Depth: p.Depth,
		FoundOn: p.FoundOn, Text: p.Text, SimHash: p.SimHash, ContentSignal: p.ContentSignal,
		Truncated: p.Truncated, Changed: p.Changed, PreviousFetch: prev, OptOut: p.OptOut, Requisite: p.Requisite,
		Requisites: p.Requisites, Language: p.Language,
	})
}

// UnmarshalJSON decodes one pages.jsonl object.
func (p *Page) UnmarshalJSON(b []byte) error {
	var j pageJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var at time.Time
	if j.FetchedAt != "" {
		var err error
		if at, err = time.Parse(time.RFC3339Nano, j.FetchedAt); err != nil {
			return err
		}
	}
	var prev time.Time
	if j.PreviousFetch != "" {
		var err error
		if prev, err = time.Parse(time.RFC3339Nano, j.PreviousFetch); err != nil {
			return err
		}
	}
	*p = Page{
		URL: j.URL, FinalURL: j.FinalURL, Status: j.Status, ContentType: j.ContentType,
		Length: j.Length, FetchedAt: at, PayloadDigest: j.PayloadDigest, WARCFile: j.WARCFile,
		WARCOffset: j.WARCOffset, WARCLength: j.WARCLength, Title: j.Title, Lang: j.Lang,
		Canonical: j.Canonical, Links: j.Links, NoIndex: j.NoIndex, NoFollow: j.NoFollow,
		Depth: j.Depth, FoundOn: j.FoundOn, Text: j.Text, SimHash: j.SimHash, ContentSignal: j.ContentSignal,
		Truncated: j.Truncated, Changed: j.Changed, PreviousFetch: prev, OptOut: j.OptOut, Requisite: j.Requisite,
		Requisites: j.Requisites, Language: j.Language,
	}
	return nil
}

// PagesOptions configure OpenPages. The zero value is the production setting.
type PagesOptions struct {
	// NoSync skips every fsync: for tests and benchmarks only.
	NoSync bool
}

// PagesWriter appends pages to a pages.jsonl file. It is safe for concurrent
// use by multiple goroutines.
type PagesWriter struct {
	path string
	file *jsonlFile
}

// OpenPages opens the pages file at path for appending, creating it if
// missing. A torn tail left by a crash (a last line cut short, or last lines
// that are not JSON objects) is cut off first, and a last line that is whole
// but for its newline gets one; Repair reports what was done.
func OpenPages(path string, opts PagesOptions) (*PagesWriter, error) {
	f, err := openJSONL(path, "pages.jsonl", opts.NoSync)
	if err != nil {
		return nil, err
	}
	return &PagesWriter{path: path, file: f}, nil
}

// Cut returns how many bytes of a torn tail OpenPages cut off.
func (p *PagesWriter) Cut() int64 { return p.file.repair.Cut }

// Repair returns what OpenPages repaired at the end of the file.
func (p *PagesWriter) Repair() TailRepair { return p.file.repair }

// tailWindow is how far back from the end of pages.jsonl a start looks: for whole
// lines (wholeLines), for the records the last lines point at (Rebuild) and for
// lines whose records are lost (FindLost without all).
const tailWindow = 1 << 20

// wholeLines returns the size of f and the length of its longest prefix that
// ends after a line holding a JSON object, looking only at the last
// tailWindow bytes (a crash tears at most what was written since the last
// sync, one batch of lines).
func wholeLines(f *os.File) (size, keep int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size = fi.Size()
	start := max(size-tailWindow, 0)
	tail := make([]byte, size-start)
	if _, err := f.ReadAt(tail, start); err != nil && err != io.EOF {
		return 0, 0, err
	}
	n := keepLines(tail, start == 0)
	return size, start + int64(n), nil
}

// keepLines returns the length of the longest prefix of b that ends with a
// newline closing a line that holds a JSON object. When whole is false, b is
// the end of a longer file: its first, possibly partial, line is never
// checked, and at least that line is kept.
func keepLines(b []byte, whole bool) int {
	floor := 0
	if !whole {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return 0
		}
		floor = i + 1
	}
	end := bytes.LastIndexByte(b, '\n') + 1
	for end > floor {
		prev := bytes.LastIndexByte(b[:end-1], '\n') + 1
		if prev < floor {
			prev = floor
		}
		line := b[prev : end-1]
		if len(line) > 0 && line[0] == '{' && json.Valid(line) {
			return end
		}
		end = prev
	}
	return floor
}

// Write appends pg as one line and returns once it is durable. Concurrent
// writers share fsyncs. It is safe for concurrent use.
func (p *PagesWriter) Write(ctx context.Context, pg *Page) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	line, err := pg.MarshalJSON()
	if err != nil {
		return fmt.Errorf("storage: %w: page %s: %v", ErrInvalid, pg.URL, err)
	}
	return p.file.append(ctx, append(line, '\n'))
}

// SyncStats returns the fsync rounds of the file's group commit and the writes
// that waited for one.
func (p *PagesWriter) SyncStats() SyncStats { return p.file.fl.stats() }

// Close waits for writes in flight, then syncs and closes the file. Writes
// after Close return ErrClosed; Close again returns nil.
func (p *PagesWriter) Close() error { return p.file.close() }

// ReadPages reads a pages.jsonl stream and calls fn for each page, stopping
// at the first error fn returns.
func ReadPages(r io.Reader, fn func(*Page) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var pg Page
		if err := pg.UnmarshalJSON(sc.Bytes()); err != nil {
			return fmt.Errorf("storage: pages line %d: %w", n, err)
		}
		if err := fn(&pg); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("storage: pages: %w", err)
	}
	return nil
}
