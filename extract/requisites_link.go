package extract

import (
	"net/http"
	"net/url"
	"strings"
)

// LinkHeaderRequisites returns what the Link header fields of a response (RFC
// 8288) ask a browser to load: targets of rel=stylesheet (KindStylesheet),
// rel=preload (the kind its "as" parameter names) and rel=modulepreload
// (KindScript), resolved against pageURL, the URL the response came from. It
// never fails on a malformed field: what it cannot read is skipped. The only error
// is a pageURL that is nil or not an absolute http or https URL with a valid host
// (a *URLError with Op "link").
func LinkHeaderRequisites(pageURL *url.URL, header http.Header) (*Requisites, error) {
	base, err := reqBase("link", pageURL)
	if err != nil {
		return nil, err
	}
	r := &Requisites{max: DefaultMaxRequisites}
	linkHeader(r, &base, header)
	r.at = nil
	return r, nil
}

// linkHeader adds to r the requisites of the Link header fields of header.
func linkHeader(r *Requisites, base *canonParts, header http.Header) {
	for _, v := range header.Values("Link") {
		for len(v) > 0 {
			var target string
			var params map[string]string
			target, params, v = linkValue(v)
			if target == "" && params == nil {
				continue
			}
			if kind, ok := linkRelKind(params["rel"], params["as"]); ok {
				r.add(base, target, kind, "link-header")
			}
		}
	}
}

// linkValue reads the first link-value of a Link field value: its target (the URI
// reference between < and >), its parameters by lower-case name (the first of each
// name, values unquoted), and what follows its comma. A link-value that does not
// start with '<' is skipped: target "" and params nil.
func linkValue(v string) (target string, params map[string]string, rest string) {
	v = strings.TrimLeft(v, " \t,")
	if v == "" {
		return "", nil, ""
	}
	if v[0] != '<' {
		return "", nil, linkSkip(v)
	}
	end := strings.IndexByte(v, '>')
	if end < 0 {
		return "", nil, ""
	}
	target, v = v[1:end], v[end+1:]
	params = map[string]string{}
	for {
		v = strings.TrimLeft(v, " \t")
		if v == "" || v[0] == ',' {
			return target, params, v
		}
		if v[0] != ';' {
			return target, params, linkSkip(v)
		}
		v = strings.TrimLeft(v[1:], " \t")
		n := strings.IndexAny(v, "=;, \t")
		if n < 0 {
			n = len(v)
		}
		name := strings.ToLower(v[:n])
		v = strings.TrimLeft(v[n:], " \t")
		value := ""
		if v != "" && v[0] == '=' {
			v = strings.TrimLeft(v[1:], " \t")
			value, v = linkParamValue(v)
		}
		if _, dup := params[name]; !dup && name != "" {
			params[name] = value
		}
	}
}

// linkParamValue reads a token or a quoted string, and returns it (unquoted) and
// what follows it.
func linkParamValue(v string) (string, string) {
	if v == "" || v[0] != '"' {
		n := strings.IndexAny(v, ";, \t")
		if n < 0 {
			n = len(v)
		}
		return v[:n], v[n:]
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; c {
		case '"':
			return b.String(), v[i+1:]
		case '\\':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// linkSkip returns what follows the next comma of v outside a quoted string or a
// <…> reference, or "".
func linkSkip(v string) string {
	quoted, angle := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case quoted && c == '\\':
			i++
		case c == '"' && !angle:
			quoted = !quoted
		case c == '<' && !quoted:
			angle = true
		case c == '>' && !quoted:
			angle = false
		case c == ',' && !quoted && !angle:
			return v[i+1:]
		}
	}
	return ""
}

// linkRelKind returns the kind of requisite a <link> element or Link header of the
// rel values rel (space-separated) asks a browser to load, with as the value of its
// "as" attribute or parameter; ok is false when it asks for none (a link to another
// page, a prefetch for a later navigation).
func linkRelKind(rel, as string) (kind Kind, ok bool) {
	for r := range strings.FieldsSeq(strings.ToLower(rel)) {
		switch r {
		case "stylesheet":
			return KindStylesheet, true
		case "modulepreload":
			return KindScript, true
		case "preload":
			return preloadKind(as), true
		}
	}
	return 0, false
}

// preloadKind returns the kind of a preload's destination (the "as" value).
func preloadKind(as string) Kind {
	switch strings.ToLower(strings.TrimSpace(as)) {
	case "style":
		return KindStylesheet
	case "script", "worker", "sharedworker", "serviceworker", "audioworklet", "paintworklet":
		return KindScript
	case "font":
		return KindFont
	case "image":
		return KindImage
	case "audio":
		return KindAudio
	case "video", "track":
		return KindVideo
	case "document", "iframe", "frame":
		return KindFrame
	case "embed", "object":
		return KindObject
	}
	return KindOther
}
