package extract

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// charsetDecode returns body as valid UTF-8 together with the WHATWG name of the
// encoding it was read in. The encoding comes, in this order, from a byte order mark,
// the charset parameter of contentType, a <meta charset> or <meta http-equiv> in the
// first 1024 bytes, UTF-8 if those bytes are valid UTF-8 with non-ASCII in them, and
// windows-1252 otherwise (the HTML standard's algorithm, as implemented by
// golang.org/x/net/html/charset); where that default would be taken and the whole body
// is valid UTF-8 with non-ASCII in it, UTF-8 (the standard lets the reader detect the
// encoding from the content before the default; one page in twelve of trafilatura's
// evaluation set declares UTF-8 only after its first 1024 bytes). A body that is UTF-8
// beyond doubt (charsetUTF8Evident) is read as UTF-8 whatever its <meta> declares; only
// a byte order mark or the header's charset outweighs it. Bytes that are invalid in the encoding become U+FFFD;
// decoding never fails. When body is already valid UTF-8, or ASCII in an encoding
// that ASCII is a subset of, it is returned as it is, not copied.
func charsetDecode(body []byte, contentType string) ([]byte, string) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if name == "windows-1252" && !certain && !charsetNamed(body[:min(len(body), 1024)]) &&
		!charsetIsASCII(body) && utf8.Valid(body) {
		return decodeAs(body, encoding.Nop, "utf-8")
	}
	if !certain && name != "utf-8" && !charsetNotASCII[name] && charsetUTF8Evident(body) {
		return decodeAs(body, encoding.Nop, "utf-8")
	}
	return decodeAs(body, enc, name)
}

// charsetUTF8Min is the number of multi-byte UTF-8 characters that outweighs a
// <meta> declaring another encoding.
const charsetUTF8Min = 16

// charsetUTF8Evident reports whether body is UTF-8 beyond doubt: valid UTF-8 throughout
// with at least charsetUTF8Min characters of more than one byte. Text in a legacy
// encoding is almost never that: in GBK, Big5 or Shift_JIS a character's second byte
// seldom follows its first as UTF-8's continuation bytes must, and in windows-1252 it
// takes mojibake ("Ã©") to write a letter and a continuation byte side by side. A
// page saved or served again as UTF-8 with its old <meta charset=gb2312> is read as
// what it is, not as GBK, which would make every character of it another.
func charsetUTF8Evident(body []byte) bool {
	n := 0
	for _, c := range body {
		if c >= 0xC0 {
			n++
		}
	}
	return n >= charsetUTF8Min && utf8.Valid(body)
}

// charsetNamed reports whether b holds a <meta> tag naming a charset, in any case:
// the prefix declares its encoding, and the default of DetermineEncoding was not a
// guess. A charset attribute of <script> declares nothing about the page.
func charsetNamed(b []byte) bool {
	const word = "charset"
	for i := 0; i+len(word) <= len(b); i++ {
		if b[i]|0x20 != 'c' || !bytes.EqualFold(b[i:i+len(word)], []byte(word)) {
			continue
		}
		if lt := bytes.LastIndexByte(b[:i], '<'); lt >= 0 && lt+5 <= len(b) && bytes.EqualFold(b[lt+1:lt+5], []byte("meta")) {
			return true
		}
	}
	return false
}

// decodeAs decodes body from enc, whose WHATWG name is name, into UTF-8, as
// charsetDecode and cssDecode describe: a body that is ASCII in an encoding ASCII is a
// subset of, or valid UTF-8, is returned as it is; invalid bytes become U+FFFD.
func decodeAs(body []byte, enc encoding.Encoding, name string) ([]byte, string) {
	if !charsetNotASCII[name] && charsetIsASCII(body) {
		return body, name
	}
	if name == "utf-8" || enc == encoding.Nop {
		body = bytes.TrimPrefix(body, charsetUTF8BOM)
		if utf8.Valid(body) {
			return body, "utf-8"
		}
		return bytes.ToValidUTF8(body, charsetReplacement), "utf-8"
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		// x/text decoders replace bad input rather than fail; should one fail anyway,
		// keep the page readable as UTF-8 with replacements.
		return bytes.ToValidUTF8(body, charsetReplacement), name
	}
	out = bytes.TrimPrefix(out, charsetUTF8BOM) // a UTF-16 BOM decodes to U+FEFF
	if !utf8.Valid(out) {
		out = bytes.ToValidUTF8(out, charsetReplacement)
	}
	return out, name
}

// charsetNotASCII names the WHATWG encodings in which ASCII bytes do not stand
// for themselves.
var charsetNotASCII = map[string]bool{"utf-16be": true, "utf-16le": true, "iso-2022-jp": true, "replacement": true}

// charsetIsASCII reports whether b holds only bytes below 0x80.
func charsetIsASCII(b []byte) bool {
	for len(b) >= 8 {
		v := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if v&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

var (
	charsetUTF8BOM     = []byte{0xEF, 0xBB, 0xBF}
	charsetReplacement = []byte("\uFFFD")
)
