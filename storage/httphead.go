package storage

import (
	"bytes"
	"strings"
)

// httpHead cuts raw, an HTTP message head as received (start line and header
// fields, with or without the blank line that ends it), at its end and returns
// it ending in exactly one blank line. Line endings are kept as received; the
// blank line added, when raw had none, uses the ending of the start line.
//
// When dechunk is true, the "chunked" coding is removed from every
// Transfer-Encoding field (a field left with no coding is dropped with its
// continuation lines) and removed reports whether anything was removed.
// ok is false when raw holds no start line.
func httpHead(raw []byte, dechunk bool) (head []byte, removed, ok bool) {
	out := make([]byte, 0, len(raw)+2)
	eol := "\r\n"
	dropping := false // inside a dropped field's continuation lines
	for i := 0; len(raw) > 0; i++ {
		line, rest, found := bytes.Cut(raw, []byte("\n"))
		raw = rest
		content := bytes.TrimSuffix(line, []byte("\r"))
		if len(content) == 0 {
			break // the blank line: the head ends here
		}
		ending := eol
		if found {
			ending = string(line[len(content):]) + "\n"
		}
		if i == 0 {
			eol = ending
		} else if dechunk {
			if content[0] == ' ' || content[0] == '\t' {
				if dropping {
					continue
				}
			} else {
				dropping = false
				if kept, changed := dropChunked(content); changed {
					removed = true
					if kept == nil {
						dropping = true
						continue
					}
					content = kept
				}
			}
		}
		out = append(out, content...)
		out = append(out, ending...)
	}
	if len(out) == 0 {
		return nil, false, false
	}
	out = append(out, eol...)
	return out, removed, true
}

// dropChunked looks at one header field line. If it is a Transfer-Encoding
// field naming the chunked coding, it returns the line without that coding
// (nil when no coding remains) and true.
func dropChunked(line []byte) ([]byte, bool) {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok || !strings.EqualFold(string(bytes.TrimSpace(name)), "Transfer-Encoding") {
		return nil, false
	}
	var kept []string
	changed := false
	for _, coding := range strings.Split(string(value), ",") {
		c := strings.TrimSpace(coding)
		switch {
		case strings.EqualFold(c, "chunked"):
			changed = true
		case c != "":
			kept = append(kept, c)
		}
	}
	if !changed {
		return nil, false
	}
	if len(kept) == 0 {
		return nil, true
	}
	out := append([]byte{}, name...)
	out = append(out, ": "...)
	out = append(out, strings.Join(kept, ", ")...)
	return out, true
}
