package crawltest

import (
	"bytes"
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
)

// Login puts a site behind a login, the way a site with user accounts is: a
// form post sets a session cookie, every page but robots.txt and the form
// itself checks it, and an area of the site asks for HTTP Basic credentials
// as well. A request without what a page asks for is answered 403 (no or an
// unknown session) or 401 (no or wrong Basic credentials, with a
// WWW-Authenticate challenge), so a crawl that lacks them fetches none of the
// pages' links.
type Login struct {
	// Path is where the form is posted (application/x-www-form-urlencoded
	// fields "user" and "password"); "" means "/login". A GET of it is the
	// page of that path, if the site has one, and needs no session.
	Path string
	// User and Password are the one account's, for the form and for Basic.
	User, Password string
	// Cookie is the session cookie's name; "" means "session". Each successful
	// post sets a new value, valid until the farm closes.
	Cookie string
	// BasicPrefix, when set, is the path prefix ("/members/") of the pages that
	// also need "Authorization: Basic" with User and Password.
	BasicPrefix string
}

func (l *Login) path() string {
	if l.Path == "" {
		return "/login"
	}
	return l.Path
}

func (l *Login) cookie() string {
	if l.Cookie == "" {
		return "session"
	}
	return l.Cookie
}

// Session returns the value of a session cookie the farm accepts for host, as
// a successful login post sets it; "" when host has no Login. A test writes it
// into a cookies.txt file, as a browser's export of a logged-in session would
// hold it.
func (f *Farm) Session(host string) string {
	s := f.hosts[hostKey(host)]
	if s == nil || s.Login == nil {
		return ""
	}
	return f.newSession(s)
}

// newSession mints and records a session value for s.
func (f *Farm) newSession(s *site) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sessions == nil {
		f.sessions = make(map[string]string)
	}
	f.sessionSeq++
	v := "s" + strconv.Itoa(f.sessionSeq) + "-" + strconv.FormatUint(uint64(f.sessionSeq)*0x9e3779b97f4a7c15, 36)
	f.sessions[v] = s.host
	return v
}

// gate answers a request that s's login refuses, or handles the login post,
// and reports whether it did; false lets the page be served.
func (f *Farm) gate(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, s *site, path string) (status int, done bool) {
	l := s.Login
	h := w.Header()
	reply := func(status int, msg string) (int, bool) {
		buf.WriteString(msg)
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
		w.WriteHeader(status)
		return status, true
	}
	p, _, _ := strings.Cut(path, "?")
	if p == l.path() {
		if r.Method != http.MethodPost {
			return 0, false
		}
		if r.ParseForm() != nil || !equal(r.PostForm.Get("user"), l.User) || !equal(r.PostForm.Get("password"), l.Password) {
			return reply(http.StatusForbidden, "wrong user or password\n")
		}
		http.SetCookie(w, &http.Cookie{Name: l.cookie(), Value: f.newSession(s), Path: "/", HttpOnly: true})
		h.Set("Location", "/")
		return reply(http.StatusSeeOther, "logged in\n")
	}
	c, err := r.Cookie(l.cookie())
	f.mu.Lock()
	ok := err == nil && f.sessions[c.Value] == s.host
	f.mu.Unlock()
	if !ok {
		return reply(http.StatusForbidden, "log in first\n")
	}
	if l.BasicPrefix != "" && strings.HasPrefix(p, l.BasicPrefix) {
		user, pass, ok := r.BasicAuth()
		if !ok || !equal(user, l.User) || !equal(pass, l.Password) {
			h.Set("WWW-Authenticate", `Basic realm="members"`)
			return reply(http.StatusUnauthorized, "members only\n")
		}
	}
	return 0, false
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
