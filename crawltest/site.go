package crawltest

import "time"

// Site describes one virtual web site of a farm. The farm serves it as
// http://Host/ on port 80 (see [Farm.Resolve]); it never changes while the
// farm runs.
//
// The description states what a correct crawler does explicitly: the farm
// does not parse robots.txt, so a test author who writes a Disallow rule in
// Robots.Body also marks the pages it forbids with [Page.Disallowed], and a
// Crawl-delay line goes together with Delay.
type Site struct {
	// Host is the host name, such as "news.test", without port. Host names
	// are compared case-insensitively.
	Host string

	// Seed is the path (and query) of the site's seed URL; "" means "/".
	Seed string

	// Robots describes /robots.txt. Nil means /robots.txt answers 404.
	Robots *Robots

	// Pages holds the site's documents by path, with "?query" when there is
	// one: "/", "/a/b.html", "/list?page=2". Paths are compared after
	// percent-encoding normalisation (non-ASCII as UTF-8 %XX, upper-case hex,
	// unreserved characters decoded), so "/café" and "/caf%c3%a9" are the same
	// page. Paths not in the map answer 404.
	Pages map[string]*Page

	// Sitemaps lists absolute sitemap URLs that robots.txt declares. The farm
	// appends a "Sitemap: URL" line to Robots.Body for each one the body does
	// not already contain, so the body need not repeat them. They are only
	// served (and only expected to be read) when robots.txt answers 2xx.
	Sitemaps []string

	// Delay is the smallest gap between the starts of two requests to this
	// host that a correct crawler keeps, typically its Crawl-delay for the
	// audited agent. The auditor uses max(Delay, AuditOptions.MinDelay).
	Delay time.Duration

	// Latency is added before every response of this host, robots.txt
	// included (on top of Robots.Latency and Page.Latency).
	Latency time.Duration

	// Login, when set, puts the site's pages behind a login (see [Login]).
	// Expected assumes the crawler is logged in.
	Login *Login

	// Icon makes /favicon.ico answer a small icon (an ICO file holding one
	// 16×16 PNG image), as most sites do; false leaves it 404, as on many
	// others. A page in Pages at "/favicon.ico" takes precedence. A browser
	// asks every host for its /favicon.ico, and a browser-like crawler fetches
	// it once per host whether it answers or not ([Farm.ExpectedIcons]).
	Icon bool
}

// Robots describes a site's /robots.txt.
type Robots struct {
	// Status is the HTTP status; 0 means 200. 3xx needs RedirectTo.
	Status int

	// Body is served as text/plain when Status is 2xx (after the farm
	// appends the site's Sitemap lines).
	Body string

	// RedirectTo, when set, makes robots.txt answer a redirect (Status, or
	// 301 when Status is not 3xx) to this absolute URL, which may be on
	// another farm host. A crawler follows up to five redirects and applies
	// the result to this site.
	RedirectTo string

	// Latency is added before the response.
	Latency time.Duration
}

// Page describes one document of a site.
type Page struct {
	// Status is the HTTP status; 0 means 200 (301 when RedirectTo is set).
	Status int

	// ContentType is the Content-Type header; "" means
	// "text/html; charset=utf-8", or "application/xml" for a sitemap
	// ("application/gzip" when Gzip is set too).
	ContentType string

	// Body, when set, is served as is. Links, NoFollowLinks and MetaNoFollow
	// are then not rendered but still declare what the body links to, for
	// [Farm.Expected] and the auditors: keep them consistent with Body.
	// Sitemap bodies are the exception: their <loc> entries are read.
	Body string

	// Links are hrefs (relative or absolute) rendered as <a href> into a
	// generated HTML page when Body is empty. For a sitemap with an empty
	// Body they are the <loc> entries, resolved against the sitemap's URL;
	// the sitemap is a <sitemapindex> when every link is a sitemap page of the
	// farm and a <urlset> otherwise.
	Links []string

	// NoFollowLinks are rendered as <a rel="nofollow" href>.
	NoFollowLinks []string

	// MetaNoFollow renders <meta name="robots" content="nofollow">.
	MetaNoFollow bool

	// HeaderNoFollow sends "X-Robots-Tag: nofollow".
	HeaderNoFollow bool

	// Header holds more header fields to send, such as "Tdm-Reservation" → "1".
	Header map[string]string

	// RedirectTo, when set, makes the page answer a redirect (Status, or 301
	// when Status is not 3xx) to this URL, relative or absolute.
	RedirectTo string

	// Disallowed states that robots.txt forbids this page to the audited
	// agent. The test author sets it by hand; the farm does not parse
	// robots.txt. A page that exists only to be forbidden can have Status 404.
	Disallowed bool

	// Sitemap marks the page as a sitemap file: Body holds its XML, or Links
	// its entries.
	Sitemap bool

	// Gzip compresses the response. A sitemap is served as a gzip file
	// (Content-Type application/gzip, no Content-Encoding), as sitemap.xml.gz
	// files are; any other page is sent with "Content-Encoding: gzip" when
	// the request accepts gzip, and plain otherwise.
	Gzip bool

	// Size pads generated HTML with filler text to about this many bytes;
	// 0 means no padding.
	Size int

	// Bomb, when positive, makes the page a compression bomb, as a hostile
	// server sends one: the generated HTML (its links, not Size) with one text
	// run of Bomb bytes in it, gzip-compressed about 100 to 1 (a 64 MiB bomb is
	// about 650 KiB) and always sent with "Content-Encoding: gzip", whatever the
	// request accepts. The farm compresses it once, when it starts.
	Bomb int

	// NoLength sends the body without Content-Length (chunked), so that the
	// client cannot size its buffer in advance.
	NoLength bool

	// ETag, when set, is sent as the ETag header of a 200 page, and a request
	// whose If-None-Match holds it is answered 304 Not Modified, without a body.
	ETag string
	// LastModified, when not zero, is sent as the Last-Modified header of a 200
	// page, and a request without If-None-Match whose If-Modified-Since is not
	// before it is answered 304 Not Modified.
	LastModified time.Time
	// Changing makes a generated page differ at every visit: it ends with a
	// comment holding the visit's number. Keep ETag and LastModified empty with
	// it, or they lie.
	Changing bool
	// ChangeEvery, when positive, makes the page change every ChangeEvery rounds of
	// the farm ([Farm.SetRound]): in round r it is at version r/ChangeEvery, which
	// its body ends with (a comment), its ETag carries (`"e1"` becomes `"e1-v2"` at
	// version 2) and its LastModified is moved by (an hour per version). Round 0 is
	// version 0, so a test knows when every page changes.
	ChangeEvery int

	// Busy, when positive, makes the first Busy requests for the page answer
	// Status (503 unless Status is 429) with a Retry-After header of RetryAfter
	// when that is set; later requests are answered as if Status were 0.
	Busy       int
	RetryAfter string

	// Latency is added before the response.
	Latency time.Duration
}
