package crawltest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestLogin(t *testing.T) {
	f, err := Start(Site{
		Host: "club.test",
		Pages: map[string]*Page{
			"/":             {Links: []string{"/members/list"}},
			"/login":        {Body: "<form method=post action=/login></form>"},
			"/members/list": {Links: []string{"/"}},
		},
		Login: &Login{User: "ann", Password: "pw", BasicPrefix: "/members/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := f.Client()
	do := func(method, path, cookie, user string, form url.Values) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, "http://club.test"+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: "session", Value: cookie})
		}
		if user != "" {
			req.SetBasicAuth(user, "pw")
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if s := do("GET", "/", "", "", nil).StatusCode; s != 403 {
		t.Errorf("no session: status %d, want 403", s)
	}
	if s := do("GET", "/login", "", "", nil).StatusCode; s != 200 {
		t.Errorf("the form: status %d, want 200", s)
	}
	if s := do("POST", "/login", "", "", url.Values{"user": {"ann"}, "password": {"no"}}).StatusCode; s != 403 {
		t.Errorf("wrong password: status %d, want 403", s)
	}
	resp := do("POST", "/login", "", "", url.Values{"user": {"ann"}, "password": {"pw"}})
	var session string
	for _, ck := range resp.Cookies() {
		if ck.Name == "session" {
			session = ck.Value
		}
	}
	if resp.StatusCode != http.StatusSeeOther || session == "" {
		t.Fatalf("login: status %d, cookies %v; want 303 and a session", resp.StatusCode, resp.Cookies())
	}
	if s := do("GET", "/", "forged", "", nil).StatusCode; s != 403 {
		t.Errorf("unknown session: status %d, want 403", s)
	}
	if s := do("GET", "/", session, "", nil).StatusCode; s != 200 {
		t.Errorf("session: status %d, want 200", s)
	}
	if s := do("GET", "/", f.Session("club.test"), "", nil).StatusCode; s != 200 {
		t.Errorf("Session(): status %d, want 200", s)
	}
	r := do("GET", "/members/list", session, "", nil)
	if r.StatusCode != 401 || r.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("members without Basic: status %d, want 401 with a challenge", r.StatusCode)
	}
	if s := do("GET", "/members/list", session, "bob", nil).StatusCode; s != 401 {
		t.Errorf("members with the wrong user: status %d, want 401", s)
	}
	if s := do("GET", "/members/list", session, "ann", nil).StatusCode; s != 200 {
		t.Errorf("members: status %d, want 200", s)
	}
	reqs := f.Requests()
	last := reqs[len(reqs)-1]
	if last.Cookie != "session="+session || last.Authorization != "Basic YW5uOnB3" {
		t.Errorf("recorded Cookie %q Authorization %q", last.Cookie, last.Authorization)
	}
}
