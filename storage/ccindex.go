package storage

import (
	"cmp"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"
)

// ccRow is one row of the Parquet index: the columns of Common Crawl's flat
// cc-index table (cc-index-table's src/sql/athena/cc-index-create-table-flat.sql,
// in its order, with its types: STRING, INT, SMALLINT, TIMESTAMP), then ours. The
// partition columns crawl and subset are the hive directories the file lies in.
type ccRow struct {
	URLSurtkey              string    `parquet:"url_surtkey"`
	URL                     string    `parquet:"url"`
	URLHostName             string    `parquet:"url_host_name"`
	URLHostTLD              *string   `parquet:"url_host_tld,optional"`
	URLHost2ndLastPart      *string   `parquet:"url_host_2nd_last_part,optional"`
	URLHost3rdLastPart      *string   `parquet:"url_host_3rd_last_part,optional"`
	URLHost4thLastPart      *string   `parquet:"url_host_4th_last_part,optional"`
	URLHost5thLastPart      *string   `parquet:"url_host_5th_last_part,optional"`
	URLHostRegistrySuffix   *string   `parquet:"url_host_registry_suffix,optional"`
	URLHostRegisteredDomain *string   `parquet:"url_host_registered_domain,optional"`
	URLHostPrivateSuffix    *string   `parquet:"url_host_private_suffix,optional"`
	URLHostPrivateDomain    *string   `parquet:"url_host_private_domain,optional"`
	URLHostNameReversed     *string   `parquet:"url_host_name_reversed,optional"`
	URLProtocol             string    `parquet:"url_protocol"`
	URLPort                 *int32    `parquet:"url_port,optional"`
	URLPath                 string    `parquet:"url_path"`
	URLQuery                *string   `parquet:"url_query,optional"`
	FetchTime               time.Time `parquet:"fetch_time,timestamp(millisecond:local)"`
	FetchStatus             int16     `parquet:"fetch_status,int(16)"`
	FetchRedirect           *string   `parquet:"fetch_redirect,optional"`
	ContentDigest           *string   `parquet:"content_digest,optional"`
	ContentMimeType         *string   `parquet:"content_mime_type,optional"`
	ContentMimeDetected     *string   `parquet:"content_mime_detected,optional"`
	ContentCharset          *string   `parquet:"content_charset,optional"`
	ContentLanguages        *string   `parquet:"content_languages,optional"`
	ContentTruncated        *string   `parquet:"content_truncated,optional"`
	WARCFilename            string    `parquet:"warc_filename"`
	WARCRecordOffset        int32     `parquet:"warc_record_offset"`
	WARCRecordLength        int32     `parquet:"warc_record_length"`
	WARCSegment             string    `parquet:"warc_segment"`

	// Ours, after Common Crawl's columns.

	// WARCRecordType is "response" or "revisit".
	WARCRecordType string `parquet:"warc_record_type"`
	// RobotsRule is the robots.txt rule that allowed the fetch ("none": no rule
	// matched); null: not recorded.
	RobotsRule *string `parquet:"robots_rule,optional"`
	// ContentSignal is the robots.txt Content-Signal that applies, as
	// RobotsDecision.ContentSignal gives it.
	ContentSignal *string `parquet:"content_signal,optional"`
	// OptOut is the page's opt-out verdict as its metadata record gives it
	// (Metadata.OptOut); null: none recorded.
	OptOut *string `parquet:"opt_out,optional"`
	// SimHash is the 64-bit SimHash of the page's main text, 16 hex digits, as
	// pages.jsonl's simhash; null when no text was extracted.
	SimHash *string `parquet:"simhash,optional"`
}

// ccCapture is what the Parquet index says of a response or revisit record, but
// for where the record lies: the live writer and the rebuild from a WARC file
// both fill one, so that both write the same rows.
type ccCapture struct {
	url       string
	date      time.Time
	status    int
	mime      string // Content-Type without parameters
	charset   string // Content-Type's charset parameter
	detected  string // WARC-Identified-Payload-Type
	digest    string // WARC-Payload-Digest, "sha1:…"
	redirect  string // Location, resolved against url
	truncated string // WARC-Truncated
	revisit   bool
	robots    bool   // a robots.txt fetch
	languages string // WARC-Identified-Content-Language of its conversion record
	meta      metaColumns
}

// metaColumns are what a page's metadata record adds to its row.
type metaColumns struct {
	robotsRule, contentSignal, optOut, simhash string
}

// subset returns the partition of c in Common Crawl's layout: robotstxt for a
// robots.txt fetch, warc for a successful capture (2xx, or 304 revisit), and
// crawldiagnostics for the rest (redirects, 404s, server errors).
func (c *ccCapture) subset() string {
	switch {
	case c.robots:
		return "robotstxt"
	case c.status >= 200 && c.status < 300 || c.status == 304:
		return "warc"
	}
	return "crawldiagnostics"
}

// newCCCapture fills the fields of a capture that a response head gives.
func newCCCapture(uri string, date time.Time, respHead []byte, robots bool) ccCapture {
	c := ccCapture{url: uri, date: date, robots: robots}
	c.status, c.mime = httpStatusAndType(respHead)
	if ct := headerValue(respHead, "Content-Type"); ct != "" {
		for _, p := range strings.Split(ct, ";")[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "charset") {
				c.charset = strings.ToUpper(strings.Trim(strings.TrimSpace(v), `"'`))
			}
		}
	}
	if c.status >= 300 && c.status < 400 {
		if loc := headerValue(respHead, "Location"); loc != "" {
			c.redirect = loc
			if base, err := url.Parse(uri); err == nil {
				if ref, err := base.Parse(loc); err == nil {
					c.redirect = ref.String()
				}
			}
		}
	}
	return c
}

// isRobotsURL reports whether uri is a robots.txt URL.
func isRobotsURL(uri string) bool {
	u, err := url.Parse(uri)
	return err == nil && u.Path == "/robots.txt"
}

// row returns c's row for the record at offset off, length bytes long, of WARC
// file warcPath (relative to the data directory, "warc/NAME"), of segment seg.
func (c *ccCapture) row(warcPath string, off, length int64, seg string) ccRow {
	r := ccRow{
		URLSurtkey:       SURT(c.url),
		URL:              c.url,
		FetchTime:        c.date.UTC().Truncate(time.Millisecond),
		FetchStatus:      int16(min(max(c.status, 0), 999)),
		FetchRedirect:    opt(c.redirect),
		ContentMimeType:  opt(c.mime),
		ContentCharset:   opt(c.charset),
		ContentLanguages: opt(c.languages),
		ContentTruncated: opt(c.truncated),
		WARCFilename:     warcPath,
		WARCRecordOffset: int32(off),
		WARCRecordLength: int32(length),
		WARCSegment:      seg,
		WARCRecordType:   "response",
		RobotsRule:       opt(c.meta.robotsRule),
		ContentSignal:    opt(c.meta.contentSignal),
		OptOut:           opt(c.meta.optOut),
		SimHash:          opt(c.meta.simhash),
	}
	if c.revisit {
		r.WARCRecordType = "revisit"
	} else {
		// The writer names a type only where it refines the declared one.
		r.ContentMimeDetected = opt(cmp.Or(c.detected, c.mime))
	}
	if _, d, ok := strings.Cut(c.digest, ":"); ok && d != "" {
		r.ContentDigest = &d
	}
	u, err := url.Parse(c.url)
	if err != nil {
		return r
	}
	r.URLProtocol = u.Scheme
	r.URLPath = u.EscapedPath()
	if u.RawQuery != "" {
		r.URLQuery = &u.RawQuery
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.ParseInt(p, 10, 32); err == nil {
			n32 := int32(n)
			r.URLPort = &n32
		}
	}
	r.setHost(strings.ToLower(u.Hostname()))
	return r
}

// setHost fills the url_host_* columns as cc-index-table's HostName does: the
// labels from the end, and for a name (not an IP address) its suffixes and
// domains from the Public Suffix List, private rules included or not.
func (r *ccRow) setHost(host string) {
	host = strings.TrimSuffix(host, ".")
	r.URLHostName = host
	if net.ParseIP(host) != nil {
		return
	}
	labels := strings.Split(host, ".")
	parts := []**string{&r.URLHostTLD, &r.URLHost2ndLastPart, &r.URLHost3rdLastPart, &r.URLHost4thLastPart, &r.URLHost5thLastPart}
	for i, p := range parts {
		if i < len(labels) {
			*p = opt(labels[len(labels)-1-i])
		}
	}
	rev := make([]string, len(labels))
	for i, l := range labels {
		rev[len(labels)-1-i] = l
	}
	r.URLHostNameReversed = opt(strings.Join(rev, "."))

	private, icann := publicsuffix.PublicSuffix(host)
	if private == host {
		return // the host is a public suffix: no domain below it
	}
	r.URLHostPrivateSuffix = opt(private)
	r.URLHostPrivateDomain = opt(domainBelow(host, private))
	registry := private
	for !icann && strings.Contains(registry, ".") {
		// A private rule (blogspot.com) sits on an ICANN one (com).
		_, registry, _ = strings.Cut(registry, ".")
		_, icann = publicsuffix.PublicSuffix(registry)
	}
	r.URLHostRegistrySuffix = opt(registry)
	r.URLHostRegisteredDomain = opt(domainBelow(host, registry))
}

// domainBelow returns the label of host just before suffix, with suffix.
func domainBelow(host, suffix string) string {
	rest := strings.TrimSuffix(strings.TrimSuffix(host, suffix), ".")
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		rest = rest[i+1:]
	}
	if rest == "" {
		return ""
	}
	return rest + "." + suffix
}

// opt returns a pointer to s, or nil for an empty s: a null column.
func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ccCapture returns the Parquet index's capture of the response (or revisit)
// record of ex, of WARC-Date d, whose payload type is detected.
func (w *WARCWriter) ccCapture(ex *Exchange, d string, respHead []byte, detected string, loc *Location) *ccCapture {
	date, _ := time.Parse(time.RFC3339Nano, d) // as a rebuild reads it
	c := newCCCapture(ex.TargetURI, date, respHead, isRobotsURL(ex.TargetURI))
	c.detected, c.digest, c.revisit = detected, loc.PayloadDigest, loc.Revisit
	if ex.Truncated {
		c.truncated = "length"
	}
	if w.opts.WET && ex.Conversion != nil {
		c.languages = strings.Join(ex.Conversion.Languages, ",")
	}
	if m := ex.Metadata; m != nil {
		if r := m.Robots; r != nil {
			c.meta.robotsRule = cmp.Or(cleanValue(r.Rule), "none")
			c.meta.contentSignal = cleanValue(r.ContentSignal)
		}
		c.meta.optOut = cleanValue(m.OptOut)
		if ex.Page != nil {
			c.meta.simhash = ex.Page.SimHash // carried in the record's pages-line
		}
	}
	return &c
}
