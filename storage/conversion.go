package storage

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// appendConversion appends a conversion record holding text, the main text
// of the page at uri, derived from the record refersTo (its response or
// revisit record), as one gzip member onto buf. This is the record of a WET
// file: Content-Type text/plain, UTF-8; corpus pipelines such as datatrove
// read it. languages, ISO 639-3 codes, go into WARC-Identified-Content-Language,
// comma-separated. Invalid UTF-8 in text becomes U+FFFD.
func appendConversion(buf *bytes.Buffer, level int, uri, date, refersTo, text string, languages []string) error {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	block := []byte(text)
	fields := []field{
		{"WARC-Type", "conversion"},
		{"WARC-Record-ID", newRecordID()},
		{"WARC-Date", date},
		{"WARC-Target-URI", uri},
		{"WARC-Refers-To", refersTo},
		{"WARC-Block-Digest", blockDigest(block)},
	}
	if len(languages) > 0 {
		fields = append(fields, field{"WARC-Identified-Content-Language", strings.Join(languages, ",")})
	}
	fields = append(fields, field{"Content-Type", "text/plain; charset=utf-8"})
	head := appendHead(make([]byte, 0, 512), fields, len(block))
	_, err := appendMember(buf, level, head, block)
	return err
}
