package extract

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"
)

// Sitemap limits from the sitemaps.org protocol, used when SitemapOptions leaves a
// field zero.
const (
	// DefaultSitemapMaxURLs is the most entries one sitemap file may list.
	DefaultSitemapMaxURLs = 50000
	// DefaultSitemapMaxBytes is the largest uncompressed sitemap file, in bytes (50 MiB).
	DefaultSitemapMaxBytes = 50 << 20
)

// MaxSitemapDepth bounds the nesting of sitemap indexes. A sitemap the crawl finds
// by itself (a robots.txt Sitemap line, a guessed /sitemap.xml, a configured URL) has
// depth 0; the children of an index at depth d have depth d+1. The engine carries the
// depth with the fetch and passes it in SitemapOptions.Depth; Sitemap then skips (and
// counts as "depth") the children of an index whose depth is MaxSitemapDepth or more.
// The protocol forbids indexes of indexes; 2 tolerates one level of that and still
// ends cycles (an index listing itself) and endless generated indexes.
const MaxSitemapDepth = 2

// ErrNotSitemap reports a document that is none of the formats Sitemap reads: an
// XML root other than urlset, sitemapindex, rss, RDF or feed (an HTML error page
// served as sitemap.xml, say), binary data, or nothing but white space.
var ErrNotSitemap = errors.New("extract: not a sitemap")

// Reasons counted in SitemapResult.Skipped.
const (
	SkipLimit     = "limit"      // past SitemapOptions.MaxURLs
	SkipCrossHost = "cross-host" // on another scheme, host or port than the sitemap (see SitemapCovers)
	SkipCrossPath = "cross-path" // same host, outside the sitemap's directory (see SitemapCovers)
	SkipMalformed = "malformed"  // missing, empty or unparsable location
	SkipScheme    = "scheme"     // a location whose scheme is not http or https
	SkipTooLong   = "too-long"   // a location of more than 2048 bytes, or a text line longer than 32 KiB
	SkipDepth     = "depth"      // an index child at a depth past MaxSitemapDepth
	// Field values that cannot be read are dropped and counted; the entry is kept.
	SkipBadLastMod    = "bad-lastmod"
	SkipBadChangeFreq = "bad-changefreq"
	SkipBadPriority   = "bad-priority"
)

// SitemapOptions bounds and scopes one Sitemap call. The zero value applies the
// protocol's limits and its cross-submission rule.
type SitemapOptions struct {
	// MaxURLs is the most entries (URLs, or child sitemaps of an index) kept; entries
	// past it are counted as "limit". Zero means DefaultSitemapMaxURLs.
	MaxURLs int
	// MaxBytes is the most uncompressed bytes read; reading stops there and the result
	// is marked Truncated. Zero means DefaultSitemapMaxBytes.
	MaxBytes int64
	// Depth is this file's index nesting depth (see MaxSitemapDepth); zero for a
	// sitemap found directly.
	Depth int
	// RobotsURL is the robots.txt whose Sitemap line led to this file, directly or
	// through an index; empty if none. Per sitemaps.org, entries on that robots.txt's
	// scheme, host and port are then covered whatever their path, even when the
	// sitemap itself lives elsewhere.
	RobotsURL string
	// AnyHost keeps every entry whatever its host and path, for a crawl whose scope
	// allows more than SitemapCovers does; the engine then checks scope itself. When
	// false, entries not covered are counted as "cross-host" or "cross-path".
	AnyHost bool
}

// SitemapResult is what one sitemap file lists.
type SitemapResult struct {
	// Format is "urlset", "sitemapindex", "text", "rss" (RSS 2.0 and RSS 1.0/RDF) or
	// "atom"; empty when the input was none of them.
	Format string
	// URLs are the pages of a urlset, text sitemap or feed, in document order.
	URLs []SitemapURL
	// Sitemaps are the child sitemap URLs of a sitemapindex, in document order.
	Sitemaps []string
	// Skipped counts entries left out, by reason (the Skip constants); keys naming a
	// field ("bad-lastmod", ...) count values dropped from entries that were kept.
	// Never nil.
	Skipped map[string]int
	// Truncated reports that reading stopped at MaxBytes, or at a token longer than
	// the parser accepts (1 MiB without a '<'); entries after that point were not seen.
	Truncated bool
}

// SitemapURL is one page listed by a sitemap or feed.
type SitemapURL struct {
	// Loc is the page's absolute http or https URL, as listed (feeds' relative links
	// are resolved against the feed's URL). It is not canonicalised.
	Loc string
	// LastMod is when the page last changed, in UTC; the zero Time when absent or
	// unreadable. Feeds give pubDate, dc:date, updated, modified or published.
	LastMod time.Time
	// ChangeFreq is one of always, hourly, daily, weekly, monthly, yearly or never
	// (lower-cased); empty when absent or not one of those.
	ChangeFreq string
	// Priority is between 0 and 1; -1 when absent or unreadable. The protocol's
	// default for an absent priority is 0.5.
	Priority float64
}

// smMaxLoc is the longest location kept, in bytes (sitemaps.org: under 2,048
// characters).
const smMaxLoc = 2048

// smMaxRun is the longest stretch of XML without a '<' the parser accepts. It bounds
// the memory one token (a text node, a tag) can take in encoding/xml, which
// buffers whole tokens.
const smMaxRun = 1 << 20

// errSmTruncated and errSmRun stop reading at MaxBytes and at an over-long token.
var (
	errSmTruncated = errors.New("extract: sitemap larger than MaxBytes")
	errSmRun       = errors.New("extract: sitemap token longer than 1 MiB")
)

// Sitemap reads one sitemap file from r: an XML urlset or sitemapindex, a plain-text
// list of URLs, an RSS 2.0 / RSS 1.0 or an Atom feed, optionally gzip-compressed
// (recognised by its magic bytes, whatever the name or headers say; two layers at
// most). sitemapURL is the URL the file was fetched from; entries are checked
// against it with SitemapCovers unless opts.AnyHost is set, and feeds' relative
// links are resolved against it.
//
// XML is read as a stream of tokens, by element local names only (namespaces in the
// wild are often wrong); only the five predefined entities are expanded, so an
// entity block (billion laughs) costs nothing. Memory stays bounded whatever the
// input: at most opts.MaxURLs entries are kept and opts.MaxBytes uncompressed bytes
// read.
//
// Sitemap never panics and always returns a non-nil result. Entries it cannot use
// are counted in Skipped. It returns an error only when the input cannot be read on:
// ErrNotSitemap (wrapped) for another kind of document, a read or gzip error, or
// malformed XML; the result then holds the entries read before that point.
// Sitemap reads r synchronously and is safe to call from several goroutines at once.
func Sitemap(r io.Reader, sitemapURL string, opts SitemapOptions) (*SitemapResult, error) {
	res := &SitemapResult{Skipped: make(map[string]int)}
	if opts.MaxURLs <= 0 {
		opts.MaxURLs = DefaultSitemapMaxURLs
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultSitemapMaxBytes
	}
	p := &smParser{res: res, opts: opts}
	p.self, _ = smParseOrigin(sitemapURL)
	if opts.RobotsURL != "" {
		if o, ok := smParseOrigin(opts.RobotsURL); ok {
			p.robots, p.hasRobots = o, true
		}
	}
	if base, err := url.Parse(sitemapURL); err == nil {
		p.base = base
	}

	br := bufio.NewReaderSize(r, 32<<10)
	for layer := 0; layer < 2; layer++ {
		magic, _ := br.Peek(2)
		if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return res, fmt.Errorf("extract: sitemap %s: gzip: %w", sitemapURL, err)
		}
		br = bufio.NewReaderSize(zr, 32<<10)
	}
	lim := &smLimitReader{r: br, left: opts.MaxBytes, runs: true}
	in := bufio.NewReaderSize(lim, 32<<10)

	first, err := smSniff(in)
	if err != nil {
		return res, p.wrap(sitemapURL, err)
	}
	if first == '<' {
		err = p.parseXML(in)
	} else {
		lim.runs = false // a text sitemap has no markup
		err = p.parseText(in)
	}
	return res, p.wrap(sitemapURL, err)
}

// wrap turns the error that stopped parsing into Sitemap's error: nil at the end of
// the input or at a limit (which set Truncated), and otherwise prefixed with the URL.
func (p *smParser) wrap(sitemapURL string, err error) error {
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return nil
	case errors.Is(err, errSmTruncated):
		p.res.Truncated = true
		return nil
	case errors.Is(err, errSmRun):
		p.res.Truncated = true
		return fmt.Errorf("extract: sitemap %s: token longer than %d bytes", sitemapURL, smMaxRun)
	case errors.Is(err, ErrNotSitemap):
		return fmt.Errorf("extract: sitemap %s: %w", sitemapURL, ErrNotSitemap)
	}
	return fmt.Errorf("extract: sitemap %s: %w", sitemapURL, err)
}

// smSniff skips a UTF-8 byte order mark and leading white space and returns the first
// byte of the document without consuming it. Binary data (a control character
// other than white space in the first 512 bytes) and an empty or blank document
// are ErrNotSitemap.
func smSniff(in *bufio.Reader) (byte, error) {
	if bom, _ := in.Peek(3); bytes.Equal(bom, []byte{0xef, 0xbb, 0xbf}) {
		in.Discard(3)
	}
	head, err := in.Peek(512)
	if len(head) == 0 {
		if err == nil || err == io.EOF {
			err = ErrNotSitemap // empty
		}
		return 0, err
	}
	for _, c := range head {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			return 0, ErrNotSitemap // binary
		}
	}
	for _, c := range head {
		switch c {
		case ' ', '\t', '\r', '\n':
			in.Discard(1)
			continue
		}
		return c, nil
	}
	if len(head) < 512 {
		return 0, ErrNotSitemap // white space only
	}
	// A long run of white space: let the text parser read on.
	return ' ', nil
}

// smLimitReader stops reading after left bytes with errSmTruncated (when more input
// follows), and, once runs is set, at a stretch of more than smMaxRun bytes without
// a '<' with errSmRun.
type smLimitReader struct {
	r    io.Reader
	left int64
	runs bool
	run  int // bytes since the last '<'
}

func (l *smLimitReader) Read(b []byte) (int, error) {
	if l.left <= 0 {
		var probe [1]byte
		for {
			n, err := l.r.Read(probe[:])
			if n > 0 {
				return 0, errSmTruncated
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(b)) > l.left {
		b = b[:l.left]
	}
	n, err := l.r.Read(b)
	l.left -= int64(n)
	if l.runs && n > 0 {
		chunk := b[:n]
		for {
			i := bytes.IndexByte(chunk, '<')
			if i < 0 {
				l.run += len(chunk)
				break
			}
			if l.run+i > smMaxRun {
				return 0, errSmRun
			}
			l.run = 0
			chunk = chunk[i+1:]
		}
		if l.run > smMaxRun {
			return 0, errSmRun
		}
	}
	return n, err
}
