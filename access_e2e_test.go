package crawl_test

import (
	"bytes"
	"compress/gzip"
	"errors"
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

// loginSites is a club behind a login (a session cookie on every page and on its
// icon, a Basic area) that links to an open site, which links back.
func loginSites() []crawltest.Site {
	return []crawltest.Site{
		{
			Host: "club.test",
			Icon: true,
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

// TestCrawlThroughProxy: the farm crawled through a proxy (a SOCKS5 one, and Debian's
// tinyproxy for HTTP CONNECT) is crawled as politely as directly (the audit), every
// tunnel is to the farm's checked address, never to a name, and the records name the
// farm's address, not the proxy's.
func TestCrawlThroughProxy(t *testing.T) {
	t.Run("socks5", func(t *testing.T) {
		proxy, err := crawltest.StartSOCKS5("crawler", "s3cret")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proxy.Close() })
		crawlThroughProxy(t, "socks5://crawler:s3cret@"+proxy.Addr(), proxy.Addr(), proxy.Targets)
	})
	t.Run("tinyproxy", func(t *testing.T) {
		proxy, err := crawltest.StartTinyproxy(t.TempDir(), "crawler", "s3cret")
		if errors.Is(err, crawltest.ErrNoTinyproxy) {
			crawltest.MissingTool(t, "tinyproxy", "not found", "apt-get install tinyproxy; .ci/extra runs this test", "POLITECRAWL_PROXY")
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proxy.Close() })
		crawlThroughProxy(t, "http://crawler:s3cret@"+proxy.Addr(), proxy.Addr(), proxy.Connects)
	})
}

// crawlThroughProxy crawls the farm through proxyURL and checks the audit, what the
// proxy was asked for (targets) and the records.
func crawlThroughProxy(t *testing.T, proxyURL, proxyAddr string, targets func() []string) {
	farm := startFarm(t, farmSites())
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Fetch.Proxy = proxyURL
	runCrawl(t, cfg)
	auditOK(t, farm, 0)
	asked := targets()
	if len(asked) == 0 {
		t.Fatal("the proxy was not used")
	}
	for _, tgt := range asked {
		if tgt != farm.Addr() {
			t.Errorf("the proxy was asked for %q, not the farm's checked address %s", tgt, farm.Addr())
		}
	}
	warc := allWARC(t, dir)
	proxyIP, _, _ := strings.Cut(proxyAddr, ":")
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

// h2Sites are sites whose links are all relative, so that a crawl from https
// seeds stays on https.
func h2Sites() []crawltest.Site {
	return []crawltest.Site{
		{
			Host:   "h2news.test",
			Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /private/\n"},
			Icon:   true,
			Pages: map[string]*crawltest.Page{
				"/":          {Links: []string{"/a", "/b", "/private/x"}},
				"/a":         {Links: []string{"/b", "/c"}, Gzip: true},
				"/b":         {Links: []string{"/"}, Size: 20000},
				"/c":         {Links: []string{"/a"}},
				"/private/x": {Disallowed: true},
			},
		},
		{
			Host:  "h2shop.test",
			Pages: map[string]*crawltest.Page{"/": {Links: []string{"/item/1", "/item/2"}}, "/item/1": {}, "/item/2": {Status: 404}},
		},
	}
}

// h2Crawl is a configuration crawling the farm's HTTP/2 listener from https seeds.
func h2Crawl(t *testing.T, farm *crawltest.Farm, dir, mode string) config.Config {
	t.Helper()
	ca, err := farm.ServeHTTP2()
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(farm, dir)
	cfg.Seeds = nil
	for _, s := range farm.Seeds() {
		cfg.Seeds = append(cfg.Seeds, "https://"+strings.TrimPrefix(s, "http://"))
	}
	cfg.Network.Resolve = farm.ResolveHTTPS()
	cfg.Fetch.CAFile = caFile
	cfg.Fetch.HTTP2 = mode
	return cfg
}

// TestCrawlHTTP2: a farm that speaks only HTTP/2 over TLS (HTTP/1.1 refused at
// ALPN) is crawled whole and politely with fetch.http2 on, every exchange archived
// in its HTTP/1.1 form with WARC-Protocol h2 and tls/1.3, our CDXJ indexing it;
// with fetch.http2 off every fetch fails with an error saying what ALPN offered.
func TestCrawlHTTP2(t *testing.T) {
	for _, mode := range []string{"on", "auto"} {
		t.Run(mode, func(t *testing.T) {
			farm := startFarm(t, h2Sites())
			dir := t.TempDir()
			runCrawl(t, h2Crawl(t, farm, dir, mode))
			auditOK(t, farm, 0)
			warc := allWARC(t, dir)
			// A response, or a revisit where the payload repeats (the two hosts'
			// 404 pages: h2shop.test's /item/2 and /favicon.ico), and its request.
			responses := bytes.Count(warc, []byte("WARC-Type: response\r\n")) + bytes.Count(warc, []byte("WARC-Type: revisit\r\n"))
			h2 := bytes.Count(warc, []byte("\r\nWARC-Protocol: h2\r\nWARC-Protocol: tls/1.3\r\n"))
			if responses == 0 || h2 != 2*responses {
				t.Errorf("%d response and revisit records, %d records with WARC-Protocol h2 and tls/1.3; want every request, response and revisit", responses, h2)
			}
			if n := bytes.Count(warc, []byte("\r\n\r\nHTTP/1.1 200 \r\n")); n == 0 {
				t.Error("no response in HTTP/1.1 form with the status line h2 gives (no reason phrase)")
			}
			if bytes.Contains(warc, []byte("HTTP/2")) {
				t.Error("a record holds an HTTP/2 start line, which the IIPC proposal forbids")
			}
			// Go's HTTP/2 client writes the regular fields in no fixed order.
			if i := bytes.Index(warc, []byte("GET /a HTTP/1.1\r\nhost: h2news.test\r\n")); i < 0 ||
				!bytes.Contains(warc[i:min(i+1024, len(warc))], []byte("\r\nuser-agent: politecrawl")) {
				t.Error("no request in HTTP/1.1 form with its field names as sent")
			}
			lines := readJSONL(t, filepath.Join(dir, "pages.jsonl"))
			ok := 0
			for _, l := range lines {
				if strings.HasPrefix(l["url"].(string), "https://") && l["status"] == float64(200) {
					ok++
				}
			}
			if ok < 5 {
				t.Errorf("%d https pages fetched with 200, want the 5 pages: %v", ok, lines)
			}
			cdxj, _ := filepath.Glob(filepath.Join(dir, "warc", "*.cdxj"))
			var index []byte
			for _, name := range cdxj {
				b, _ := os.ReadFile(name)
				index = append(index, b...)
			}
			if !bytes.Contains(index, []byte(`"url": "https://h2news.test/a"`)) && !bytes.Contains(index, []byte(`"url":"https://h2news.test/a"`)) {
				t.Errorf("our CDXJ does not index https://h2news.test/a:\n%s", index)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		farm := startFarm(t, h2Sites())
		dir := t.TempDir()
		cfg := h2Crawl(t, farm, dir, "off")
		cfg.Fetch.MaxAttempts = 1
		cfg.Robots.UnreachableAttempts = 1
		runCrawl(t, cfg)
		if n := len(farm.Requests()); n != 0 {
			t.Errorf("%d requests reached the h2-only farm over HTTP/1.1", n)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "crawl.log"))
		if !bytes.Contains(log, []byte("no application protocol (the client offered http/1.1 at ALPN)")) ||
			!bytes.Contains(log, []byte("fetch.http2: auto")) {
			t.Errorf("crawl.log does not say why the h2-only farm was refused:\n%s", log)
		}
	})
}
