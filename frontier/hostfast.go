package frontier

// hostFast is hostOf for the URLs a crawl mostly meets, without url.Parse and its
// allocations (a URL and a lower-cased copy of the host): "http://" or "https://",
// then a host of ASCII letters, digits, '.', '-' and '_', starting with a letter or a
// digit, with at most one ':' followed by digits only (the port, maybe empty), then
// the end of the URL or '/', '?' or '#', and after it no control byte (below 0x20,
// or 0x7f) and no '%' that does not start an escape of two hex digits. ok is false
// for anything else, which hostParse decides: url.Parse accepts such a URL and its
// Host is the bytes between "//" and the next '/', '?' or '#' (no percent-escape to
// undo, no userinfo, no brackets), so hostOf's answer is the URL's prefix up to
// there, lower-cased. FuzzHostFast checks it against hostParse.
func hostFast(s string) (host string, ok bool) {
	var i int
	switch {
	case len(s) > 7 && s[:7] == "http://":
		i = 7
	case len(s) > 8 && s[:8] == "https://":
		i = 8
	default:
		return "", false
	}
	start, upper, colon := i, false, -1
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			upper = true
		case c == '.' || c == '-' || c == '_':
			if i == start {
				return "", false
			}
		case c == ':':
			if i == start || colon >= 0 {
				return "", false
			}
			colon = i
		case c == '/' || c == '?' || c == '#':
			goto rest
		default:
			return "", false
		}
		if colon >= 0 && i > colon && (c < '0' || c > '9') {
			return "", false // a port of digits only
		}
	}
rest:
	if i == start {
		return "", false
	}
	end := i
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == 0x7f:
			return "", false
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", false
			}
			i += 2
		}
	}
	if !upper {
		return s[:end], true
	}
	b := []byte(s[:end])
	for j := start; j < len(b); j++ {
		if 'A' <= b[j] && b[j] <= 'Z' {
			b[j] += 'a' - 'A'
		}
	}
	return string(b), true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
