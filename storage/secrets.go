package storage

import (
	"bytes"
	"strings"
)

// SecretMark replaces the value of every secret in a record unless
// WARCOptions.KeepSecrets is set: the credentials of Authorization and
// Proxy-Authorization fields (their scheme kept: "Basic politecrawl-redacted"),
// and the value of each cookie of Cookie and Set-Cookie fields (names and
// attributes kept: "session=politecrawl-redacted; Path=/"). An archive handed
// to others then holds no session, yet shows what was sent and set.
const SecretMark = "politecrawl-redacted"

// maskSecrets returns head (an HTTP message head as httpHead returns it) with
// the values of its secret fields replaced by SecretMark, or head itself when
// it has none. Continuation lines of a secret field are dropped, their content
// being part of the value.
func maskSecrets(head []byte) []byte {
	if !hasSecretField(head) {
		return head
	}
	out := make([]byte, 0, len(head))
	masking := false
	for first := true; len(head) > 0; first = false {
		line, rest, found := bytes.Cut(head, []byte("\n"))
		head = rest
		content := bytes.TrimSuffix(line, []byte("\r"))
		ending := line[len(content):]
		if found {
			ending = line[len(content) : len(line)+1]
		}
		switch {
		case first || len(content) == 0:
			masking = false
		case content[0] == ' ' || content[0] == '\t':
			if masking {
				continue
			}
		default:
			masking = false
			name, value, ok := bytes.Cut(content, []byte(":"))
			if ok {
				if masked, secret := maskField(string(bytes.TrimSpace(name)), string(value)); secret {
					content = append(append(append([]byte{}, name...), ": "...), masked...)
					masking = true
				}
			}
		}
		out = append(out, content...)
		out = append(out, ending...)
	}
	return out
}

// hasSecretField is a quick test for a field maskSecrets changes.
func hasSecretField(head []byte) bool {
	lower := bytes.ToLower(head)
	for _, name := range []string{"authorization:", "cookie:"} {
		if bytes.Contains(lower, []byte(name)) {
			return true
		}
	}
	return false
}

// maskField returns the masked value of a field and true when the field is a
// secret one.
func maskField(name, value string) (string, bool) {
	value = strings.TrimSpace(value)
	switch {
	case strings.EqualFold(name, "Authorization"), strings.EqualFold(name, "Proxy-Authorization"):
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " " + SecretMark, true
		}
		return SecretMark, true
	case strings.EqualFold(name, "Cookie"):
		pairs := strings.Split(value, ";")
		for i, p := range pairs {
			pairs[i] = maskPair(strings.TrimSpace(p))
		}
		return strings.Join(pairs, "; "), true
	case strings.EqualFold(name, "Set-Cookie"):
		pair, attrs, ok := strings.Cut(value, ";")
		if !ok {
			return maskPair(strings.TrimSpace(pair)), true
		}
		return maskPair(strings.TrimSpace(pair)) + ";" + attrs, true
	}
	return "", false
}

// maskPair masks the value of "name=value".
func maskPair(p string) string {
	if name, _, ok := strings.Cut(p, "="); ok {
		return name + "=" + SecretMark
	}
	return SecretMark
}
