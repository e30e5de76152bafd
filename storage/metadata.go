package storage

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"
)

// Metadata describes one archived page: where it points and why the crawler
// was allowed to fetch it. WriteMetadata stores it as a metadata record
// (application/warc-fields).
type Metadata struct {
	TargetURI    string    // the page's URI; required
	ConcurrentTo string    // RecordID of the page's response or revisit record; required
	Date         time.Time // zero: now
	Outlinks     []string  // links found on the page, one "outlink" field each
	// Robots is the robots.txt decision that let the page be fetched; nil:
	// not recorded.
	Robots *RobotsDecision
	// OptOut is the page's verdict under the opt-out signals beyond robots.txt
	// (TDMRep, noai, Content-Usage), as the crawl words it; empty: none recorded.
	// It is written as the field opt-out and goes into the Parquet index.
	OptOut string
	// Timing is the evidence of the fetch's politeness: when the response
	// ended and the delay the host was given after it; nil: not recorded.
	Timing *Timing
	// Languages are the languages detected in the page's main text, the main one
	// first, one "language" field each ("de Latn 0.981": code, script,
	// confidence); none: no field.
	Languages []Language
}

// Timing is what an audit needs of one fetch beyond the WARC-Date of its
// request record (when it started): when its response ended, and the delay in
// force after it, with what set that delay.
type Timing struct {
	// End is when the last byte of the response was received. It is written
	// rounded up to the millisecond, so that the gap between it and the next
	// request's WARC-Date (rounded down) is never longer than the real one.
	End time.Time
	// Delay is the least time the crawler waited after End before its next
	// request to the host; zero with DelaySource "" means not recorded.
	Delay time.Duration
	// DelaySource says what set Delay, such as "min-delay", "crawl-delay",
	// "request-rate", "retry-after", "backoff" or "adaptive".
	DelaySource string
}

// The fields of a metadata record that carry a [Timing].
const (
	// FieldResponseEnd is the response's end, a WARC date with milliseconds.
	FieldResponseEnd = "response-end"
	// FieldDelay is the delay in force after the response, in whole
	// milliseconds rounded up.
	FieldDelay = "delay-ms"
	// FieldDelaySource names what set the delay.
	FieldDelaySource = "delay-source"
)

// RobotsDecision is the provenance of a robots.txt decision.
type RobotsDecision struct {
	URL       string    // the robots.txt URL consulted
	FetchedAt time.Time // when that robots.txt was fetched; zero: not recorded
	Status    int       // HTTP status of that fetch; 0: none (network error)
	Digest    string    // payload digest of the robots.txt body; empty: none
	Rule      string    // the deciding rule as written, e.g. "allow: /docs/"; empty: no rule matched
	Allowed   bool      // the decision
	// ContentSignal is the Content-Signal of the robots.txt group that applies, as
	// written there with keys sorted ("ai-train=no, search=yes"); empty: none.
	ContentSignal string
}

// WriteMetadata archives m as a metadata record, durable when it returns. It
// is safe for concurrent use. A page's metadata costs less when given with
// its fetch, as Exchange.Metadata: the records then share one write and one
// fsync.
//
// The record block holds one field per line: "outlink: <URI>" per outlink,
// then robots-txt, robots-fetched (WARC date), robots-status, robots-digest,
// robots-rule ("none" when no rule matched), robots-decision ("allow" or
// "disallow") and, when the robots.txt gives one, robots-content-signal; then opt-out
// when one is recorded, a language field per detected language ("language: de Latn
// 0.981"), and the Timing's response-end, delay-ms and delay-source. A
// metadata record written by Append with Exchange.Page ends with one more field,
// pages-line: the page's pages.jsonl line (see Exchange.Page).
func (w *WARCWriter) WriteMetadata(ctx context.Context, m *Metadata) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := m.validate(); err != nil {
		return err
	}
	if m.ConcurrentTo == "" {
		return fmt.Errorf("storage: %w: metadata for %s: no ConcurrentTo record", ErrInvalid, m.TargetURI)
	}
	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()
	if _, err := m.appendRecord(buf, w.opts.GzipLevel, m.ConcurrentTo, nil, w.opts.Now); err != nil {
		return fmt.Errorf("storage: compress: %w", err)
	}
	_, _, err := w.commit(ctx, buf.Bytes(), nil, true, "", nil, nil, nil, func(s *Stats) { s.Metadata++ })
	return err
}

func (m *Metadata) validate() error {
	return validURI("metadata target URI", m.TargetURI)
}

// appendRecord appends m as a metadata record concurrent to record ID
// concurrentTo, one gzip member of the given level, onto buf and returns the
// member's length. pagesLine, when not nil, is carried as the last field
// (pages-line). now dates the record when m.Date is zero.
func (m *Metadata) appendRecord(buf *bytes.Buffer, level int, concurrentTo string, pagesLine []byte, now func() time.Time) (int64, error) {
	date := m.Date
	if date.IsZero() {
		date = now()
	}
	block := appendPagesLine(m.fields(), pagesLine)
	head := appendHead(make([]byte, 0, 512), []field{
		{"WARC-Type", "metadata"},
		{"WARC-Record-ID", newRecordID()},
		{"WARC-Date", warcDate(date)},
		{"WARC-Target-URI", m.TargetURI},
		{"WARC-Concurrent-To", concurrentTo},
		{"WARC-Block-Digest", blockDigest(block)},
		{"Content-Type", "application/warc-fields"},
	}, len(block))
	return appendMember(buf, level, head, block)
}

// fields returns the record block of m.
func (m *Metadata) fields() []byte {
	n := 512 // the robots fields
	for _, l := range m.Outlinks {
		n += len("outlink: \r\n") + len(l)
	}
	b := make([]byte, 0, n)
	add := func(k, v string) {
		b = append(b, k...)
		b = append(b, ": "...)
		b = append(b, cleanValue(v)...)
		b = append(b, "\r\n"...)
	}
	for _, l := range m.Outlinks {
		add("outlink", l)
	}
	if r := m.Robots; r != nil {
		add("robots-txt", r.URL)
		if !r.FetchedAt.IsZero() {
			b = append(b, "robots-fetched: "...)
			b = append(r.FetchedAt.UTC().AppendFormat(b, warcDateLayout), "\r\n"...)
		}
		b = append(b, "robots-status: "...)
		b = append(strconv.AppendInt(b, int64(r.Status), 10), "\r\n"...)
		if r.Digest != "" {
			add("robots-digest", r.Digest)
		}
		rule := r.Rule
		if rule == "" {
			rule = "none"
		}
		add("robots-rule", rule)
		decision := "disallow"
		if r.Allowed {
			decision = "allow"
		}
		add("robots-decision", decision)
		if r.ContentSignal != "" {
			add("robots-content-signal", r.ContentSignal)
		}
	}
	if m.OptOut != "" {
		add("opt-out", m.OptOut)
	}
	for _, l := range m.Languages {
		b = append(b, "language: "...)
		b = append(b, cleanValue(l.Code)...)
		b = append(b, ' ')
		b = append(b, cleanValue(l.Script)...)
		b = append(b, ' ')
		b = append(strconv.AppendFloat(b, l.Confidence, 'f', 3, 64), "\r\n"...)
	}
	if t := m.Timing; t != nil {
		if !t.End.IsZero() {
			b = append(b, FieldResponseEnd+": "...)
			b = append(ceilMillisecond(t.End).UTC().AppendFormat(b, warcDateLayout), "\r\n"...)
		}
		if t.Delay > 0 || t.DelaySource != "" {
			b = append(b, FieldDelay+": "...)
			ms := (max(t.Delay, 0) + time.Millisecond - 1) / time.Millisecond
			b = append(strconv.AppendInt(b, int64(ms), 10), "\r\n"...)
			if t.DelaySource != "" {
				add(FieldDelaySource, t.DelaySource)
			}
		}
	}
	return b
}

// ceilMillisecond rounds t up to the next whole millisecond.
func ceilMillisecond(t time.Time) time.Time {
	if r := t.Truncate(time.Millisecond); r.Before(t) {
		return r.Add(time.Millisecond)
	}
	return t
}

// pagesLineField names the metadata field that carries a page's pages.jsonl line.
const pagesLineField = "pages-line"

// appendPagesLine appends line, a JSON object from json.Marshal, to the record
// block b as the pages-line field. JSON escapes every control character but DEL,
// which a field value cannot hold: it is written \u007f, the same JSON value.
func appendPagesLine(b, line []byte) []byte {
	if line == nil {
		return b
	}
	b = append(b, pagesLineField+": "...)
	for {
		i := bytes.IndexByte(line, 0x7f)
		if i < 0 {
			break
		}
		b = append(append(b, line[:i]...), `\u007f`...)
		line = line[i+1:]
	}
	b = append(b, line...)
	return append(b, "\r\n"...)
}
