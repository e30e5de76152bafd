package crawl_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/storage"
)

// allWARC returns the records of every WARC file in dir/warc, decompressed.
func allWARC(t *testing.T, dir string) []byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC file: %v", err)
	}
	var all bytes.Buffer
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(&all, zr); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return all.Bytes()
}

// loginSites is a club behind a login (a session cookie on every page, a Basic
// area) that links to an open site, which links back.
func loginSites() []crawltest.Site {
	return []crawltest.Site{
		{
			Host: "club.test",
			Pages: map[string]*crawltest.Page{
				"/":             {Links: []string{"/news", "/members/", "http://open.test/"}},
				"/news":         {Links: []string{"/"}},
				"/members/":     {Links: []string{"/members/list"}},
				"/members/list": {Links: []string{"/members/", "/"}},
				"/login":        {Body: "<form method=post action=/login><input name=user><input name=password></form>"},
			},
			Login: &crawltest.Login{User: "ann", Password: "pw", BasicPrefix: "/members/"},
		},
		{
			Host:  "open.test",
			Pages: map[string]*crawltest.Page{"/": {Links: []string{"/about", "http://club.test/news"}}, "/about": {}},
		},
	}
}

// login posts the club's form as a browser would and returns the session cookie.
func login(t *testing.T, farm *crawltest.Farm) *http.Cookie {
	t.Helper()
	resp, err := farm.Client().PostForm("http://club.test/login", url.Values{"user": {"ann"}, "password": {"pw"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "session" {
			return c
		}
	}
	t.Fatalf("login: status %d, no session cookie", resp.StatusCode)
	return nil
}

// TestCrawlBehindLogin: a crawl given a browser's cookies.txt and Basic
// credentials fetches a site behind a login whole; the open site it links to
// never receives the cookie or the credentials; the WARC files, the log and the
// status file hold the mark, not the secrets; the jar is kept for the next run.
func TestCrawlBehindLogin(t *testing.T) {
	farm := startFarm(t, loginSites())
	session := login(t, farm)
	farm.Reset() // the audit is of the crawl alone
	dir := t.TempDir()
	cookies := filepath.Join(t.TempDir(), "cookies.txt")
	txt := "# Netscape HTTP Cookie File\n#HttpOnly_club.test\tFALSE\t/\tFALSE\t0\tsession\t" + session.Value + "\n"
	if err := os.WriteFile(cookies, []byte(txt), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(farm, dir)
	cfg.Fetch.CookiesFile = cookies
	cfg.Fetch.Auth = []config.Auth{{Hosts: "=club.test", User: "ann", Password: "pw"}}
	runCrawl(t, cfg)
	auditOK(t, farm, 0)

	basic := "Basic YW5uOnB3" // ann:pw
	for _, r := range farm.Requests() {
		switch r.Host {
		case "club.test":
			if r.Path == "/robots.txt" && r.Status == http.StatusNotFound {
				r.Status = http.StatusOK // the club has none; it is public
			}
			if !strings.Contains(r.Cookie, "session="+session.Value) || r.Authorization != basic || r.Status != http.StatusOK {
				t.Errorf("club.test%s: status %d, cookie %q, authorization %q", r.Path, r.Status, r.Cookie, r.Authorization)
			}
		default:
			if r.Cookie != "" || r.Authorization != "" {
				t.Errorf("%s%s received cookie %q, authorization %q", r.Host, r.Path, r.Cookie, r.Authorization)
			}
		}
	}

	warc := allWARC(t, dir)
	if bytes.Contains(warc, []byte(session.Value)) || bytes.Contains(warc, []byte("YW5uOnB3")) {
		t.Error("the WARC files hold the session or the credentials")
	}
	if !bytes.Contains(warc, []byte("\r\nCookie: session="+storage.SecretMark+"\r\n")) ||
		!bytes.Contains(warc, []byte("\r\nAuthorization: Basic "+storage.SecretMark+"\r\n")) {
		t.Error("the WARC files do not hold the mark where the secrets were")
	}
	for _, name := range []string{"crawl.log", "status.json", "skipped.jsonl", "pages.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(session.Value)) || bytes.Contains(b, []byte("YW5uOnB3")) || bytes.Contains(b, []byte(":pw")) {
			t.Errorf("%s holds a secret", name)
		}
	}
	jar := filepath.Join(dir, crawl.CookiesName)
	st, err := os.Stat(jar)
	if err != nil {
		t.Fatalf("the jar was not kept: %v", err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("the jar's mode is %v, want it readable by its owner only", st.Mode())
	}
	kept, _ := os.ReadFile(jar)
	if !bytes.Contains(kept, []byte("\tsession\t"+session.Value+"\n")) {
		t.Errorf("the jar does not keep the session:\n%s", kept)
	}
}

// TestCrawlKeepSecrets: with storage.keep_secrets the records hold what was sent.
func TestCrawlKeepSecrets(t *testing.T) {
	farm := startFarm(t, loginSites())
	session := login(t, farm)
	dir := t.TempDir()
	cookies := filepath.Join(t.TempDir(), "cookies.txt")
	if err := os.WriteFile(cookies, []byte("club.test\tFALSE\t/\tFALSE\t0\tsession\t"+session.Value+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(farm, dir)
	cfg.Seeds = []string{"http://club.test/news"}
	cfg.Scope.MaxPages = 1
	cfg.Fetch.CookiesFile = cookies
	cfg.Storage.KeepSecrets = true
	runCrawl(t, cfg)
	if warc := allWARC(t, dir); !bytes.Contains(warc, []byte("\r\nCookie: session="+session.Value+"\r\n")) {
		t.Error("with keep_secrets the request record does not hold the cookie sent")
	}
}

// TestCrawlThroughProxy: the farm crawled through a SOCKS5 proxy is crawled as
// politely as directly (the audit), every tunnel is to the farm's checked
// address, never to a name, and the records name the farm's address, not the
// proxy's.
func TestCrawlThroughProxy(t *testing.T) {
	farm := startFarm(t, farmSites())
	proxy, err := crawltest.StartSOCKS5("crawler", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Fetch.Proxy = "socks5://crawler:s3cret@" + proxy.Addr()
	runCrawl(t, cfg)
	auditOK(t, farm, 0)
	targets := proxy.Targets()
	if len(targets) == 0 {
		t.Fatal("the proxy was not used")
	}
	for _, tgt := range targets {
		if tgt != farm.Addr() {
			t.Errorf("the proxy was asked for %q, not the farm's checked address %s", tgt, farm.Addr())
		}
	}
	warc := allWARC(t, dir)
	proxyIP, _, _ := strings.Cut(proxy.Addr(), ":")
	farmIP, _, _ := strings.Cut(farm.Addr(), ":")
	if proxyIP != farmIP && bytes.Contains(warc, []byte("WARC-IP-Address: "+proxyIP+"\r\n")) {
		t.Errorf("a record names the proxy's address %s", proxyIP)
	}
	if !bytes.Contains(warc, []byte("WARC-IP-Address: "+farmIP+"\r\n")) {
		t.Errorf("no record names the farm's address %s", farmIP)
	}
	for _, name := range []string{"crawl.log", "status.json"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); bytes.Contains(b, []byte("s3cret")) {
			t.Errorf("%s holds the proxy's password", name)
		}
	}
}

// TestCrawlProxyDown: a proxy that is down fails the fetches with errors naming
// it, password redacted; nothing reaches the farm directly.
func TestCrawlProxyDown(t *testing.T) {
	farm := startFarm(t, farmSites()[:1])
	proxy, err := crawltest.StartSOCKS5("", "")
	if err != nil {
		t.Fatal(err)
	}
	addr := proxy.Addr()
	proxy.Close()
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Fetch.Proxy = "socks5://crawler:s3cret@" + addr
	cfg.Fetch.MaxAttempts = 1
	runCrawl(t, cfg)
	if n := len(farm.Requests()); n != 0 {
		t.Errorf("the farm got %d requests with the proxy down, want none", n)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "crawl.log"))
	if !bytes.Contains(log, []byte("socks5://crawler:xxxxx@"+addr)) || bytes.Contains(log, []byte("s3cret")) {
		t.Errorf("crawl.log does not name the proxy with its password redacted:\n%s", log)
	}
}
