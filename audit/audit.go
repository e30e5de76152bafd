package audit

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/politecrawl/crawl/storage"
)

// DefaultBackoff is the least wait after a 429 or 503 without a Retry-After when
// neither Options.Backoff nor the crawl's warcinfo record gives one.
const DefaultBackoff = time.Second

// Options say what the audited crawler was allowed to do. A zero field takes the value
// the crawl's warcinfo record gives (politecrawl writes them), or else its default.
type Options struct {
	// Agent is the product token robots.txt is evaluated for, such as "politecrawl".
	// Zero: the warcinfo record's user-agent, or else each request's own User-Agent.
	Agent string
	// MinDelay is the least time between the end of one response from a host and the
	// next request to it. Zero: the warcinfo record's min-delay, or else none; a
	// negative value means none whatever the warcinfo says.
	MinDelay time.Duration
	// PerHost is the number of requests allowed in flight at once to one host. With 1
	// each gap counts from the previous response's end; above 1 from the previous
	// request's start. Zero: the warcinfo record's per-host, or else 1.
	PerHost int
	// Backoff is the least wait after a 429 or 503 that gives no usable Retry-After.
	// Zero: the warcinfo record's backoff-min, or else DefaultBackoff.
	Backoff time.Duration
	// PerIP makes the gaps and overlaps between requests to one IP address, whatever
	// the host name, violations too; otherwise they are only figures. Zero: true when
	// the warcinfo record says group-by-ip: true.
	PerIP bool
	// Software names the auditing program in the report, such as "politecrawl 0.9".
	Software string
}

// Auditor reads WARC records and checks them; see the package documentation. Create it
// with New; it is not safe for concurrent use.
type Auditor struct {
	opts Options

	exchanges []*exchange
	byID      map[string]*exchange // request and response record IDs, until joined
	info      map[string]string    // the first warcinfo record's fields
	hops      map[string]bool      // targets of robots.txt redirects: their bodies are kept
	strs      map[string]string    // one copy of the strings many exchanges share
	files     []FileSummary
	records   int
	seq       int
}

// New returns an Auditor with the given options.
func New(opts Options) *Auditor {
	return &Auditor{opts: opts, byID: make(map[string]*exchange), info: make(map[string]string), hops: make(map[string]bool),
		strs: make(map[string]string)}
}

// FileSummary says what was read of one file.
type FileSummary struct {
	Name    string `json:"name"`
	Records int    `json:"records"`
	// Damage, when not empty, says where reading stopped: the records after it were
	// not audited.
	Damage string `json:"damage,omitempty"`
}

// recordRef names one record of the archive.
type recordRef struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	Type   string `json:"type"`
	ID     string `json:"id,omitempty"`
	Date   string `json:"date"`
}

// exchange is one request and its response, as the records say.
type exchange struct {
	seq       int // order read, to keep sorts stable
	uri       string
	authority string // scheme://host[:port], lower case
	host      string // host[:port]
	target    string // path and query
	ip        string
	agent     string // the request's User-Agent

	start     time.Time
	startPrec time.Duration
	end       time.Time // zero: not recorded
	status    int
	retry     string // Retry-After
	location  string // Location of a 3xx, resolved
	body      []byte // robots.txt responses only

	delay       time.Duration // recorded delay in force after the response; -1: none
	delaySource string

	req, resp *recordRef
	respID    string

	robots bool   // a request for /robots.txt
	hopOf  string // the authority whose robots.txt redirected here; "" if none
}

// maxRobotsBody is the most bytes of a robots.txt response kept, as RFC 9309 asks
// parsers to read at least 500 KiB.
const maxRobotsBody = 512 << 10

// maxHTTPHead bounds the HTTP head read from a record block.
const maxHTTPHead = 64 << 10

// Read reads the WARC records of one file, named name in the report. A damaged file
// (such as the torn end a kill leaves) is read up to the damage, which the report
// names; Read returns an error only when r fails otherwise.
func (a *Auditor) Read(name string, r io.Reader) error {
	sum := FileSummary{Name: name}
	err := storage.ReadRecords(r, func(rec *storage.Record) error {
		sum.Records++
		a.records++
		return a.record(name, rec)
	})
	var re *storage.ReadError
	switch {
	case errors.As(err, &re):
		sum.Records = re.Records
		sum.Damage = re.Error()
		err = nil
	case err != nil:
		return err
	}
	a.files = append(a.files, sum)
	return nil
}

func (a *Auditor) record(file string, rec *storage.Record) error {
	typ := a.intern(strings.ToLower(rec.Get("WARC-Type")))
	ref := &recordRef{File: a.intern(file), Offset: rec.Offset, Type: typ, ID: rec.Get("WARC-Record-ID"), Date: rec.Get("WARC-Date")}
	switch typ {
	case "warcinfo":
		if len(a.info) == 0 {
			readFields(rec.Block, func(k, v string) { a.info[strings.ToLower(k)] = v })
		}
	case "request":
		ex := a.join(ref.ID, rec)
		if ex == nil {
			return nil
		}
		ex.req = ref
		ex.start, ex.startPrec = parseDate(ref.Date)
		head := readHead(rec.Block)
		ex.agent = a.intern(headerValue(head, "User-Agent"))
	case "response", "revisit":
		ex := a.join(ref.ID, rec)
		if ex == nil {
			return nil
		}
		ex.resp, ex.respID = ref, ref.ID
		if ex.req == nil {
			ex.start, ex.startPrec = parseDate(ref.Date)
		}
		if ex.ip == "" {
			ex.ip = a.intern(rec.Get("WARC-IP-Address"))
		}
		a.response(ex, rec, typ)
	case "metadata":
		ex := a.byID[rec.Get("WARC-Concurrent-To")]
		if ex == nil {
			return nil
		}
		readFields(rec.Block, func(k, v string) {
			switch strings.ToLower(k) {
			case storage.FieldResponseEnd:
				if t, _ := parseDate(v); !t.IsZero() {
					ex.end = t
				}
			case storage.FieldDelay:
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
					ex.delay = time.Duration(n) * time.Millisecond
				}
			case storage.FieldDelaySource:
				ex.delaySource = a.intern(v)
			}
		})
		// The metadata record is the last of an exchange: its IDs are no longer needed.
		if ex.req != nil {
			delete(a.byID, ex.req.ID)
		}
		delete(a.byID, ex.respID)
	}
	return nil
}

// intern returns the one copy of s the auditor keeps: hosts, addresses, agents and file
// names repeat over many exchanges (about a fifth of the memory per exchange).
func (a *Auditor) intern(s string) string {
	if t, ok := a.strs[s]; ok {
		return t
	}
	if len(a.strs) < 1<<20 {
		a.strs[s] = s
	}
	return s
}

// join returns the exchange a request, response or revisit record belongs to, found
// through WARC-Concurrent-To in either direction, or a new one. It returns nil for a
// record whose target is not an http(s) URI.
func (a *Auditor) join(id string, rec *storage.Record) *exchange {
	var ex *exchange
	for _, f := range rec.Fields {
		if strings.EqualFold(f.Name, "WARC-Concurrent-To") {
			if ex = a.byID[f.Value]; ex != nil {
				break
			}
		}
	}
	if ex == nil {
		ex = a.byID[id]
	}
	if ex == nil {
		uri := strings.Trim(rec.Get("WARC-Target-URI"), "<>")
		u, err := url.Parse(uri)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil
		}
		host := strings.ToLower(u.Host)
		if p := u.Port(); (p == "80" && u.Scheme == "http") || (p == "443" && u.Scheme == "https") {
			host = strings.ToLower(u.Hostname())
		}
		target := u.EscapedPath()
		if target == "" {
			target = "/"
		}
		if u.RawQuery != "" {
			target += "?" + u.RawQuery
		}
		a.seq++
		ex = &exchange{seq: a.seq, uri: uri, authority: a.intern(u.Scheme + "://" + host), host: a.intern(host),
			target: target, robots: target == "/robots.txt", delay: -1,
			ip: a.intern(rec.Get("WARC-IP-Address"))}
		a.exchanges = append(a.exchanges, ex)
	}
	if id != "" {
		a.byID[id] = ex
	}
	for _, f := range rec.Fields {
		if strings.EqualFold(f.Name, "WARC-Concurrent-To") && f.Value != "" {
			a.byID[f.Value] = ex
		}
	}
	return ex
}

// response reads the HTTP head of a response or revisit record, and the body of a
// robots.txt response.
func (a *Auditor) response(ex *exchange, rec *storage.Record, typ string) {
	br := bufio.NewReaderSize(rec.Block, 4096)
	head := readHeadFrom(br)
	ex.status = statusOf(head)
	ex.retry = headerValue(head, "Retry-After")
	if loc := headerValue(head, "Location"); loc != "" && ex.status >= 300 && ex.status < 400 {
		if base, err := url.Parse(ex.uri); err == nil {
			if u, err := base.Parse(loc); err == nil {
				ex.location = u.String()
			}
		}
	}
	hop := ex.robots || a.hops[ex.uri]
	if hop && ex.location != "" {
		a.hops[ex.location] = true // the next hop, archived after this one
	}
	if !hop || typ != "response" || ex.status < 200 || ex.status > 299 {
		return
	}
	raw, _ := io.ReadAll(io.LimitReader(br, 4*maxRobotsBody))
	chunked := strings.Contains(strings.ToLower(headerValue(head, "Transfer-Encoding")), "chunked")
	ex.body = decodeBody(raw, chunked, headerValue(head, "Content-Encoding"))
}

// readFields reads a block of WARC named fields ("name: value" lines), as warcinfo and
// metadata records hold, calling fn for each.
func readFields(r io.Reader, fn func(name, value string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxHTTPHead)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok {
			fn(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
}

// readHead returns the HTTP head at the start of r, up to its blank line.
func readHead(r io.Reader) []byte {
	return readHeadFrom(bufio.NewReaderSize(r, 4096))
}

func readHeadFrom(br *bufio.Reader) []byte {
	var head []byte
	for len(head) < maxHTTPHead {
		line, err := br.ReadSlice('\n')
		head = append(head, line...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil || len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
	}
	return head
}

// statusOf reads the status code of an HTTP response head; 0 when there is none.
func statusOf(head []byte) int {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	_, after, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return 0
	}
	code, _, _ := bytes.Cut(bytes.TrimLeft(after, " "), []byte(" "))
	n, err := strconv.Atoi(string(bytes.TrimSpace(code)))
	if err != nil || n < 100 || n > 999 {
		return 0
	}
	return n
}

// headerValue returns the first value of header field name in an HTTP head.
func headerValue(head []byte, name string) string {
	_, rest, _ := bytes.Cut(head, []byte("\n")) // the start line
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(bytes.TrimSpace(k)), name) {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

// parseDate reads a WARC-Date (W3C ISO 8601 in UTC, with or without a fraction of a
// second) and returns it with its precision: one second without a fraction, 10^-n
// seconds with n digits. It returns the zero time for a date it cannot read.
func parseDate(s string) (time.Time, time.Duration) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, 0
	}
	prec := time.Second
	if i := strings.IndexByte(s, '.'); i >= 0 {
		digits := 0
		for _, c := range s[i+1:] {
			if c < '0' || c > '9' {
				break
			}
			digits++
		}
		for ; digits > 0 && prec > time.Nanosecond; digits-- {
			prec /= 10
		}
	}
	return t, prec
}
