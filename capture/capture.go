package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/storage"
)

// DefaultMaxHops is the hop limit when neither the warcinfo record nor
// Options.MaxHops gives one: the crawler's default, as Heritrix's.
const DefaultMaxHops = 2

// The fields of a warcinfo record the report reads, when the crawler wrote them.
const (
	infoMaxHops = "requisites-max-hops"
	infoKinds   = "requisites-kinds"
)

// maxBlock is the most bytes of a record's body read: larger bodies are read this
// far, as a crawl with a larger limit would have cut them.
const maxBlock = 64 << 20

// Status is what became of a requisite.
type Status string

// The statuses of a requisite, in the order a requisite is tested for them.
const (
	Archived Status = "archived" // a response (2xx or 3xx) or revisit record holds it
	Blocked  Status = "blocked"  // skipped.jsonl: robots.txt disallows it
	Failed   Status = "failed"   // an error status archived, or skipped.jsonl: failed, robots-unreachable
	Limit    Status = "limit"    // skipped.jsonl: another reason (a limit, scope, policy, deferred, ...)
	Excluded Status = "excluded" // its kind is not among those the crawl fetches
	Missing  Status = "missing"  // none of these: nothing says why it is not archived
)

// Options tunes a Reader. The zero value reads the warcinfo record for the hop limit
// and the kinds, and otherwise takes DefaultMaxHops and every kind.
type Options struct {
	// MaxHops is the hop limit when the warcinfo record gives none: 1 takes what a
	// page names, 2 also what its stylesheets and frames name. Zero: DefaultMaxHops.
	MaxHops int
	// Kinds are the kinds the crawl fetches when the warcinfo record does not say:
	// requisites of other kinds are Excluded, not Missing. nil: every kind.
	Kinds []extract.Kind
	// MaxHTMLBytes bounds the bytes of an HTML body read, as the crawl's
	// extract.max_html_bytes. Zero: extract.DefaultMaxHTMLBytes.
	MaxHTMLBytes int
}

// ParseKinds returns the kinds named, as the configuration's requisites.kinds
// names them (see extract.ParseKind); never nil.
func ParseKinds(names []string) ([]extract.Kind, error) {
	ks := []extract.Kind{}
	for _, name := range names {
		k, err := extract.ParseKind(name)
		if err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// Counts counts requisites by status.
type Counts struct {
	Found    int `json:"found"`
	Archived int `json:"archived"`
	Blocked  int `json:"blocked"`
	Failed   int `json:"failed"`
	Limit    int `json:"limit"`
	Excluded int `json:"excluded"`
	Missing  int `json:"missing"`
}

func (c *Counts) add(s Status) {
	c.Found++
	switch s {
	case Archived:
		c.Archived++
	case Blocked:
		c.Blocked++
	case Failed:
		c.Failed++
	case Limit:
		c.Limit++
	case Excluded:
		c.Excluded++
	default:
		c.Missing++
	}
}

// Requisite is one requisite of a page that the crawl did not archive.
type Requisite struct {
	URL    string       `json:"url"`
	Kind   extract.Kind `json:"kind"`
	Hop    int          `json:"hop"` // 1: the page names it; 2: a stylesheet or frame of the page does
	Status Status       `json:"status"`
	// Reason is the skipped.jsonl reason, or the HTTP status ("404") of a failed
	// response; empty for Excluded and Missing.
	Reason string `json:"reason,omitempty"`
}

// Page is the capture report of one archived HTML page.
type Page struct {
	URL string `json:"url"`
	Counts
	// NotArchived lists the requisites not archived, in the order found (the page's
	// own first, then those of its stylesheets and frames).
	NotArchived []Requisite `json:"not_archived,omitempty"`
}

// Report is the capture report of a crawl.
type Report struct {
	// MaxHops is the hop limit followed, and MaxHopsFrom where it came from:
	// "warcinfo", "options" or "default".
	MaxHops     int    `json:"max_hops"`
	MaxHopsFrom string `json:"max_hops_from"`
	// Kinds are the kinds counted as fetched (others are Excluded), KindsFrom where
	// they came from: "warcinfo", "options" or "default" (every kind).
	Kinds     []extract.Kind `json:"kinds"`
	KindsFrom string         `json:"kinds_from"`
	// Pages counts the HTML pages reported; Unread those archived only as a revisit
	// of a record not in these files, whose requisites cannot be derived.
	Pages  int `json:"pages"`
	Unread int `json:"unread,omitempty"`
	// Damaged counts the WARC files read only up to a damaged record (not a torn
	// end, which a killed crawl leaves): what follows the damage is not reported.
	Damaged int `json:"damaged,omitempty"`
	// Totals counts each page's requisites (a stylesheet of ten pages counts ten
	// times); Distinct counts each requisite URL once.
	Totals   Counts `json:"totals"`
	Distinct Counts `json:"distinct"`
	// PageReports has a line for every page, in the order archived.
	PageReports []Page `json:"page_reports"`
}

// OK reports whether no requisite is missing: each was archived or has a recorded
// reason not to be.
func (r *Report) OK() bool { return r.Totals.Missing == 0 }

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ref is a requisite a document names.
type ref struct {
	url  string
	kind extract.Kind
}

// Reader reads a crawl's WARC files and skipped.jsonl lines and builds the report.
// It keeps, per archived URL, its status and the requisites the document names (for
// HTML and CSS documents), never a body. It is not safe for concurrent use.
type Reader struct {
	opts     Options
	info     map[string]string   // the first warcinfo record's fields
	captured map[string]int      // archived URL: best HTTP status (revisits count as 200)
	docs     map[string][]ref    // 2xx response URL: the requisites it names
	asCSS    map[string][]ref    // 2xx response URL of no declared type of its own: its requisites read as a stylesheet
	css      map[string]bool     // 2xx response URL served as text/css
	order    []string            // HTML documents, in the order archived
	html     map[string]bool     // HTML documents
	reqDoc   map[string]bool     // URLs whose pages-line marks them a requisite
	ordered  map[string]bool     // the URLs in order
	origin   map[string]location // WARC-Record-ID of an HTML or CSS response: where it is
	pending  []pending           // revisits of those, to derive at the end
	file     string              // the WARC file being read by ReadDir; "" for ReadWARC
	damaged  int                 // files read up to damage
	skipped  map[string]string   // URL: the last skipped.jsonl reason
}

// location is where a record starts.
type location struct {
	file   string
	offset int64
}

// pending is a revisit record of a 2xx HTML or CSS response, its body in the record
// at.
type pending struct {
	key, uri string
	at       location
}

// New returns a Reader with opts.
func New(opts Options) *Reader {
	return &Reader{opts: opts, captured: map[string]int{}, docs: map[string][]ref{}, asCSS: map[string][]ref{}, css: map[string]bool{},
		html: map[string]bool{}, ordered: map[string]bool{}, origin: map[string]location{}, reqDoc: map[string]bool{}, skipped: map[string]string{}}
}

// key is the form of a URL the report compares: as the crawler stores a requisite
// (canonical, no parameter stripped).
func key(raw string) string {
	u, err := (*extract.URLRules)(nil).Canonical(raw)
	if err != nil {
		return raw
	}
	return u
}

// ReadDir reads a crawl's data directory: every WARC file under DIR/warc in name
// order, then DIR/skipped.jsonl if there is one. The record a revisit of an HTML or
// CSS document refers to is read again, at its offset, for the revisit's
// requisites.
func (r *Reader) ReadDir(dir string) error {
	var files []string
	for _, pat := range []string{"*.warc.gz", "*.warc"} {
		m, err := filepath.Glob(filepath.Join(dir, "warc", pat))
		if err != nil {
			return err
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	for _, name := range files {
		r.file = name
		err := r.readFile(name, r.ReadWARC)
		r.file = ""
		if err != nil {
			return err
		}
	}
	if err := r.resolve(); err != nil {
		return err
	}
	err := r.readFile(filepath.Join(dir, "skipped.jsonl"), r.ReadSkipped)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

func (r *Reader) readFile(name string, read func(io.Reader) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := read(f); err != nil {
		return fmt.Errorf("capture: %s: %w", name, err)
	}
	return nil
}

// ReadSkipped reads skipped.jsonl lines: the last line of a URL says why it was not
// fetched.
func (r *Reader) ReadSkipped(rd io.Reader) error {
	return storage.ReadSkipped(rd, func(s *storage.Skip) error {
		r.skipped[key(s.URL)] = s.Reason
		return nil
	})
}

// ReadWARC reads the records of one WARC file (see storage.ReadRecords). A torn
// record at the end of a killed crawl's last file ends the file without error; other
// damage ends it too, counted in Report.Damaged. A page or stylesheet archived as a revisit has its body in
// the record it refers to, which only ReadDir, knowing the files, reads again: read
// by ReadWARC alone such a page is counted in Report.Unread.
func (r *Reader) ReadWARC(rd io.Reader) error {
	err := storage.ReadRecords(rd, r.record)
	var re *storage.ReadError
	if errors.As(err, &re) {
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			r.damaged++
		}
		return nil
	}
	return err
}

func (r *Reader) record(rec *storage.Record) error {
	switch rec.Get("WARC-Type") {
	case "warcinfo":
		if r.info == nil {
			b, err := io.ReadAll(io.LimitReader(rec.Block, 1<<20))
			if err != nil {
				return err
			}
			r.info = fields(b)
		}
	case "metadata":
		b, err := io.ReadAll(io.LimitReader(rec.Block, maxBlock))
		if err != nil {
			return err
		}
		if line := fields(b)["pages-line"]; line != "" {
			var pl struct {
				Requisite string `json:"requisite"`
			}
			if json.Unmarshal([]byte(line), &pl) == nil && pl.Requisite != "" {
				r.reqDoc[key(rec.Get("WARC-Target-URI"))] = true
			}
		}
	case "response":
		return r.response(rec, false)
	case "revisit":
		return r.response(rec, true)
	}
	return nil
}

// response reads a response or revisit record.
func (r *Reader) response(rec *storage.Record, revisit bool) error {
	uri := rec.Get("WARC-Target-URI")
	if !strings.HasPrefix(rec.Get("Content-Type"), "application/http") {
		return nil
	}
	block, err := io.ReadAll(io.LimitReader(rec.Block, maxBlock))
	if err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(block)), nil)
	if err != nil {
		return nil // not an HTTP response: nothing archived for replay
	}
	u := key(uri)
	status := resp.StatusCode
	if revisit && status == http.StatusNotModified {
		status = http.StatusOK
	}
	if old, ok := r.captured[u]; !ok || archivedStatus(status) && !archivedStatus(old) {
		r.captured[u] = status
	}
	if status/100 != 2 {
		return nil
	}
	if _, seen := r.docs[u]; seen {
		return nil // a later capture of the same URL (a recrawl): the first one is reported
	}
	if revisit {
		// The body is in the record this one refers to: read again at the end of
		// ReadDir, resolved against this URL, as the crawler read the body it got.
		if isHTML(resp.Header.Get("Content-Type"), nil) {
			r.page(u)
		}
		if at, ok := r.origin[rec.Get("WARC-Refers-To")]; ok {
			r.pending = append(r.pending, pending{key: u, uri: uri, at: at})
		}
		return nil
	}
	body, err := readBody(resp)
	if err != nil {
		return nil // an undecodable body: the crawler found nothing in it either
	}
	if r.derive(u, uri, resp.Header, body) && r.file != "" {
		r.origin[rec.Get("WARC-Record-ID")] = location{file: r.file, offset: rec.Offset}
	}
	return nil
}

// page notes an HTML page in the order archived.
func (r *Reader) page(u string) {
	if !r.ordered[u] {
		r.ordered[u] = true
		r.order = append(r.order, u)
	}
}

// derive records the requisites the 2xx response body of uri names, and reports
// whether it is a document that names any by its body (HTML or CSS).
func (r *Reader) derive(u, uri string, header http.Header, body []byte) (document bool) {
	if _, seen := r.docs[u]; seen {
		return false
	}
	base, err := url.Parse(uri)
	if err != nil {
		return false
	}
	opts := extract.RequisiteOptions{MaxHTMLBytes: r.opts.MaxHTMLBytes}
	ct := header.Get("Content-Type")
	var found *extract.Requisites
	switch {
	case isHTML(ct, body):
		found, err = extract.HTMLRequisites(base, header, body, opts)
		if err == nil {
			r.html[u] = true
			r.page(u)
		}
		document = true
	case isCSS(ct):
		found, err = extract.CSSRequisites(base, header, body, opts)
		r.css[u] = true
		document = true
	default:
		found, err = extract.LinkHeaderRequisites(base, header)
		if maybeCSS(ct) {
			// The crawler reads a requisite fetched as a stylesheet as one unless
			// it says it is HTML; kept apart, for when a page names it so.
			if css, err := extract.CSSRequisites(base, header, body, opts); err == nil {
				r.asCSS[u] = refs(css)
				document = true
			}
		}
	}
	if err != nil {
		return false
	}
	r.docs[u] = refs(found)
	return document
}

// errFirst stops ReadRecords after the record it wanted.
var errFirst = errors.New("capture: first record read")

// resolve derives the requisites of the revisits whose bodies are in records read
// before, each read again at its offset.
func (r *Reader) resolve() error {
	open := map[string]*os.File{}
	defer func() {
		for _, f := range open {
			f.Close()
		}
	}()
	for _, p := range r.pending {
		if _, seen := r.docs[p.key]; seen {
			continue
		}
		f := open[p.at.file]
		if f == nil {
			var err error
			if f, err = os.Open(p.at.file); err != nil {
				return err
			}
			open[p.at.file] = f
		}
		err := storage.ReadRecords(io.NewSectionReader(f, p.at.offset, 1<<62), func(rec *storage.Record) error {
			block, err := io.ReadAll(io.LimitReader(rec.Block, maxBlock))
			if err != nil {
				return err
			}
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(block)), nil)
			if err != nil {
				return errFirst
			}
			if body, err := readBody(resp); err == nil {
				r.derive(p.key, p.uri, resp.Header, body)
			}
			return errFirst
		})
		var re *storage.ReadError
		if errors.As(err, &re) {
			continue // damaged since: the revisit stays unread
		}
		if err != nil && !errors.Is(err, errFirst) {
			return fmt.Errorf("capture: %s at byte %d: %w", p.at.file, p.at.offset, err)
		}
	}
	r.pending = nil
	return nil
}

// withHostIcon returns the requisites page names, and the icon at
// extract.HostIconPath of its host after them when icons are fetched and page does
// not name it: the crawler counts it a requisite of every page (a browser asks for
// it when a page names no icon, a replay tool for the page's tab always).
func withHostIcon(named []ref, page string, icons bool) []ref {
	if !icons {
		return named
	}
	icon, ok := extract.HostIcon(page)
	if !ok || slices.ContainsFunc(named, func(q ref) bool { return q.url == icon.URL }) {
		return named
	}
	return append(slices.Clip(named), ref{url: icon.URL, kind: icon.Kind})
}

func refs(found *extract.Requisites) []ref {
	rs := make([]ref, len(found.Found))
	for i, q := range found.Found {
		rs[i] = ref{url: q.URL, kind: q.Kind}
	}
	return rs
}

// maybeCSS reports whether a response of Content-Type contentType could be a
// stylesheet served under another type: none, or a generic text or binary one. (The
// crawler reads any non-HTML requisite it fetched as a stylesheet as CSS; bodies of
// specific other types, images or scripts, hold no CSS worth reading.)
func maybeCSS(contentType string) bool {
	mt, _, _ := strings.Cut(strings.ToLower(contentType), ";")
	switch strings.TrimSpace(mt) {
	case "", "text/plain", "application/octet-stream", "binary/octet-stream":
		return true
	}
	return false
}

// readBody returns a response's body as the crawler read it: the chunked coding
// removed when the record kept it, then the content codings (fetch.DecodeBody).
func readBody(resp *http.Response) ([]byte, error) {
	raw, err := io.ReadAll(resp.Body)
	if err != nil && len(raw) == 0 {
		return nil, err
	}
	if slices.Contains(resp.TransferEncoding, "chunked") {
		// http.ReadResponse removed the chunked coding already.
		resp.Header.Del("Transfer-Encoding")
	} else if te := resp.Header.Get("Transfer-Encoding"); strings.Contains(strings.ToLower(te), "chunked") {
		if b, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(raw))); err == nil || len(b) > 0 {
			raw = b
		}
	}
	return fetch.DecodeBody(raw, resp.Header.Values("Content-Encoding"), 0)
}

// archivedStatus reports whether a response of status replays as the page: a 2xx, or
// a 3xx a browser follows.
func archivedStatus(status int) bool { return status >= 200 && status < 400 }

// isHTML is the crawler's test of an HTML document: its declared type, or a sniff of
// body when it declares none.
func isHTML(contentType string, body []byte) bool {
	if contentType == "" {
		if body == nil {
			return false
		}
		contentType = http.DetectContentType(body)
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]))
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// isCSS reports whether a Content-Type is a stylesheet's.
func isCSS(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/css")
}

// fields reads a block of WARC named fields ("name: value" lines); the first of
// each name is kept.
func fields(b []byte) map[string]string {
	m := map[string]string{}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, value, ok := strings.Cut(strings.TrimRight(line, "\r"), ":")
		if !ok {
			continue
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if _, dup := m[name]; !dup {
			m[name] = strings.TrimSpace(value)
		}
	}
	return m
}

// settings resolves the hop limit and the kinds against the warcinfo record.
func (r *Reader) settings() (hops int, hopsFrom string, kinds []extract.Kind, kindsFrom string) {
	hops, hopsFrom = DefaultMaxHops, "default"
	if n, err := strconv.Atoi(r.info[infoMaxHops]); err == nil && n > 0 {
		hops, hopsFrom = n, "warcinfo"
	} else if r.opts.MaxHops > 0 {
		hops, hopsFrom = r.opts.MaxHops, "options"
	}
	kinds, kindsFrom = extract.Kinds(), "default"
	if v, ok := r.info[infoKinds]; ok {
		var ks []extract.Kind
		for name := range strings.SplitSeq(v, ",") {
			if k, err := extract.ParseKind(name); err == nil {
				ks = append(ks, k)
			}
		}
		kinds, kindsFrom = ks, "warcinfo"
	} else if r.opts.Kinds != nil {
		kinds, kindsFrom = slices.Clone(r.opts.Kinds), "options"
	}
	slices.Sort(kinds)
	return hops, hopsFrom, slices.Compact(kinds), kindsFrom
}

// status is what became of the requisite at URL u of kind k.
func (r *Reader) status(u string, k extract.Kind, fetched map[extract.Kind]bool) (Status, string) {
	code, captured := r.captured[u]
	if captured && archivedStatus(code) {
		return Archived, ""
	}
	if reason, ok := r.skipped[u]; ok {
		switch reason {
		case "robots":
			return Blocked, reason
		case "failed", "robots-unreachable":
			return Failed, reason
		}
		return Limit, reason
	}
	if captured {
		return Failed, strconv.Itoa(code)
	}
	if !fetched[k] {
		return Excluded, ""
	}
	return Missing, ""
}

// Report builds the report of what was read.
func (r *Reader) Report() *Report {
	rep := &Report{Damaged: r.damaged}
	rep.MaxHops, rep.MaxHopsFrom, rep.Kinds, rep.KindsFrom = r.settings()
	fetched := map[extract.Kind]bool{}
	for _, k := range rep.Kinds {
		fetched[k] = true
	}
	distinct := map[string]Status{}
	for _, u := range r.order {
		if r.reqDoc[u] {
			continue // a frame's document: reported with its page
		}
		if !r.html[u] {
			rep.Unread++ // a revisit of a record not read
			continue
		}
		p := Page{URL: u}
		seen := map[string]bool{u: true}
		level := withHostIcon(r.docs[u], u, fetched[extract.KindIcon])
		nesting := map[string]int{} // of stylesheets imported by stylesheets
		for hop := 1; hop <= rep.MaxHops && len(level) > 0; hop++ {
			var next []ref
			for i := 0; i < len(level); i++ { // level grows by the @imports read in it
				q := level[i]
				if seen[q.url] {
					continue
				}
				seen[q.url] = true
				st, reason := r.status(q.url, q.kind, fetched)
				p.add(st)
				distinct[q.url] = st
				if st != Archived {
					p.NotArchived = append(p.NotArchived, Requisite{URL: q.url, Kind: q.kind, Hop: hop, Status: st, Reason: reason})
					continue
				}
				// The crawler reads every requisite it archived for further ones:
				// HTML, CSS (a stylesheet whatever type it was served as), or else
				// its Link header. A stylesheet's @import is read at its own hop, as
				// the crawler fetches it (extract.MaxImportNesting).
				found, isCSS := r.docs[q.url], r.css[q.url]
				if css, ok := r.asCSS[q.url]; ok && q.kind == extract.KindStylesheet {
					found, isCSS = css, true
				}
				if isCSS {
					for _, c := range found {
						switch {
						case c.kind != extract.KindStylesheet:
							next = append(next, c)
						case nesting[q.url] < extract.MaxImportNesting:
							if _, ok := nesting[c.url]; !ok {
								nesting[c.url] = nesting[q.url] + 1
							}
							level = append(level, c)
						}
					}
				} else {
					next = append(next, found...)
				}
			}
			level = next
		}
		rep.Totals.Found += p.Found
		rep.Totals.Archived += p.Archived
		rep.Totals.Blocked += p.Blocked
		rep.Totals.Failed += p.Failed
		rep.Totals.Limit += p.Limit
		rep.Totals.Excluded += p.Excluded
		rep.Totals.Missing += p.Missing
		rep.PageReports = append(rep.PageReports, p)
	}
	for _, st := range distinct {
		rep.Distinct.add(st)
	}
	rep.Pages = len(rep.PageReports)
	return rep
}

// ReadDir reads the crawl in data directory dir (see Reader.ReadDir) and returns its
// report.
func ReadDir(dir string, opts Options) (*Report, error) {
	r := New(opts)
	if err := r.ReadDir(dir); err != nil {
		return nil, err
	}
	return r.Report(), nil
}
