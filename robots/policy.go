package robots

// FromStatus returns the rules implied by fetching robots.txt with the given final HTTP
// status (after redirects) and body, as RFC 9309 §2.3.1 says:
//
//   - 2xx: the body is parsed (see Parse);
//   - 4xx other than 429 ("unavailable"): no restrictions;
//   - 429, 5xx and every other code, including 0 for a failed fetch and an unfollowed
//     3xx ("unreachable"): everything is disallowed, and Unreachable reports true.
//
// 429 Too Many Requests is read as a temporary server condition, like 503, rather than
// as the file being unavailable. Only /robots.txt itself stays allowed.
func FromStatus(code int, body []byte) *Robots {
	switch {
	case code >= 200 && code <= 299:
		r := Parse(body)
		r.status = code
		return r
	case code >= 400 && code <= 499 && code != 429:
		return &Robots{status: code, unavailable: true}
	default:
		return &Robots{status: code, unreachable: true}
	}
}

// Unreachable reports whether r disallows everything because robots.txt could not be
// fetched (see FromStatus), as opposed to a rule that disallows everything.
func (r *Robots) Unreachable() bool { return r.unreachable }

// Status returns the HTTP status code given to FromStatus, or 0 for rules from Parse.
func (r *Robots) Status() int { return r.status }
