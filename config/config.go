package config

import (
	"net"
	"os"
	"strings"
	"time"

	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/frontier"
)

// Config is everything a crawl can be told. Default returns the defaults;
// Parse reads a YAML file over them; Validate checks the result. Every key is
// documented, with its unit and default, in config.example.yaml at the module root.
type Config struct {
	// UserAgent is sent with every request. It must start with a product token (letters,
	// '_' and '-'); robots.txt groups are matched against that token. It should carry a
	// contact URL.
	UserAgent string `yaml:"user_agent"`
	// DataDir holds everything the crawl knows: frontier.db, warc/, pages.jsonl, crawl.log.
	DataDir string `yaml:"data_dir"`
	// Workers is the number of fetches in flight at once, over all hosts.
	Workers int `yaml:"workers"`
	// Seeds are the URLs the crawl starts from.
	Seeds []string `yaml:"seeds"`
	// SeedsFile names a file of seed URLs, one a line, as ParseSeeds reads it: comments
	// and blank lines are ignored, lines that are not URLs skipped and reported. The
	// crawl reads it a batch at a time (SeedReader) and keeps its position in the data
	// directory, so a resumed crawl reads on from there.
	SeedsFile string `yaml:"seeds_file"`

	Scope      Scope      `yaml:"scope"`
	Politeness Politeness `yaml:"politeness"`
	Fetch      Fetch      `yaml:"fetch"`
	Network    Network    `yaml:"network"`
	Robots     Robots     `yaml:"robots"`
	Sitemaps   Sitemaps   `yaml:"sitemaps"`
	URL        URL        `yaml:"url"`
	Extract    Extract    `yaml:"extract"`
	Requisites Requisites `yaml:"requisites"`
	Storage    Storage    `yaml:"storage"`
	Recrawl    Recrawl    `yaml:"recrawl"`
	Frontier   Frontier   `yaml:"frontier"`
	Cluster    Cluster    `yaml:"cluster"`

	// DedupFrom names earlier crawls to deduplicate against: a data directory (its
	// digests.db, or its warc/*.cdxj when there is none), a digests.db file, a CDXJ
	// file, or a directory of CDXJ files. At start the crawl imports their payload
	// digests and captures into its own digest index (once: an unchanged source is
	// not read again), so that a page whose payload an earlier crawl archived is
	// written as a revisit pointing at the earlier record, and pages.jsonl says
	// whether it changed since. First fetches stay unconditional: a 304 would hide
	// the page's links. Empty: none.
	DedupFrom []string `yaml:"dedup_from"`

	// MetricsAddr, when set, serves Prometheus metrics at http://MetricsAddr/metrics while
	// the crawl runs; the final figures stay in the status file (status.json).
	MetricsAddr string `yaml:"metrics_addr"`
	// LogLevel is the level of crawl.log and stderr logs: debug, info, warn or error.
	LogLevel string `yaml:"log_level"`

	// lines maps key paths to their line in the file Parse read, for errors.
	lines map[string]int
}

// Requisites fetches what a browser needs to show each page (its stylesheets and
// what they import, images, fonts, scripts, frames, icons), so that the archive
// replays as the site looked. Requisites are not links: they never add pages to the
// crawl nor raise a page's depth, and each is fetched once per crawl, through its
// own host's robots.txt and pacing, right after the page that needs it.
type Requisites struct {
	// Enabled fetches requisites; false makes a links-only crawl (search indexes,
	// corpora). Default true.
	Enabled bool `yaml:"enabled"`
	// MaxHops is how many requisite steps lead from a page: 1 takes what the page
	// names (its stylesheet), 2 also what those name (the stylesheet's fonts and
	// images, a frame's images). A stylesheet imported by a stylesheet is at its
	// importer's step (extract.MaxImportNesting deep at most): the browser loads
	// the whole chain. Default 2, as Heritrix; between 1 and 7.
	MaxHops int `yaml:"max_hops"`
	// Kinds are the kinds fetched: stylesheet, script, image, font, icon, frame,
	// object, audio, video, manifest and other (a preload of no known kind). Default
	// all but audio and video (large, and not needed to show a page) and manifest.
	// icon also takes each page's host's /favicon.ico (extract.HostIcon), which a
	// browser and a replay tool ask for: one request per host.
	Kinds []string `yaml:"kinds"`
	// OtherHosts fetches requisites on other hosts than the page's, whatever
	// scope.mode says (CDNs, font hosts), each through its own robots.txt and
	// pacing. Default true.
	OtherHosts bool `yaml:"other_hosts"`
	// MaxBodySize is the largest requisite received, in bytes (as
	// fetch.max_body_size for pages); a larger one is cut and marked truncated.
	// Default 16MiB.
	MaxBodySize ByteSize `yaml:"max_body_size"`
	// MaxPerPage is the most requisites queued for one document (a page, or a
	// stylesheet or frame it needs), in the order the document names them; the
	// rest are skipped (skipped.jsonl reason requisite-limit). Requisites do not
	// count toward scope.max_pages or scope.max_pages_per_host: this bounds them.
	// Default 500; 0 = unlimited.
	MaxPerPage int `yaml:"max_per_page"`
}

// DefaultRequisitesPerPage is the default of requisites.max_per_page: far more than a
// documentation page names (issue 29's ten sampled manual pages loaded 35 distinct
// subresources together), few enough that a gallery of thousands of images does not
// make one page thousands of fetches.
const DefaultRequisitesPerPage = 500

// DefaultRequisiteKinds are the requisite kinds fetched by default.
var DefaultRequisiteKinds = []string{"stylesheet", "script", "image", "font", "icon", "frame", "object", "other"}

// Recrawl fetches finished pages again on a schedule, so that a crawl stays
// fresh. The zero value is off: a crawl ends once nothing is queued.
type Recrawl struct {
	// Interval is how long after its fetch a page (not a robots.txt) is fetched again,
	// with a conditional GET from the validators of its last 2xx response; a 304 is
	// archived as a server-not-modified revisit. In mode adaptive it is the interval a
	// page starts with, unless its sitemap entry says otherwise. Sitemaps are read
	// again every Interval in either mode. With it on, a crawl does not end: it waits
	// for the next URL due until it is stopped. Zero: off; otherwise at least 1s.
	Interval Duration `yaml:"interval"`
	// Mode is fixed (every page every Interval; the zero value means fixed) or adaptive:
	// each page's interval shrinks by 20% when a refetch finds it changed and grows by
	// 40% when it did not (a 304, or the same status and payload), kept within
	// MinInterval and MaxInterval (Nutch's AdaptiveFetchSchedule, with its default
	// rates). In adaptive mode a sitemap's changefreq and lastmod set a page's first
	// interval (see README, "Recrawl").
	Mode string `yaml:"mode"`
	// MinInterval and MaxInterval bound the interval of a page in mode adaptive; fixed
	// mode ignores them. Defaults 1m and 2160h (90 days); MinInterval at least 1s and
	// at most Interval, MaxInterval at least Interval.
	MinInterval Duration `yaml:"min_interval"`
	MaxInterval Duration `yaml:"max_interval"`
}

// Frontier sets how the frontier (frontier.db) takes in the links pages lead
// to. The zero value queues each page's links in the transaction that finishes it.
type Frontier struct {
	// LinkBatch is how many links found on pages are staged before they are sorted
	// into the seen set and the queues in one batch (frontier.Options.LinkBatch).
	// Staged links are durable as soon as their page is done, but they are not
	// queued, nor known to be new or duplicates, until that batch; the crawl sorts
	// them in early rather than wait for a host or end, and status counts them as
	// "found and not yet sorted into the queues". Staged links wait on disk, in
	// frontier.db. 0: off, each page's links are queued one by one as the page is
	// done, which rewrites a seen page and a queue page per new link. Default
	// DefaultLinkBatch; at most MaxFrontierBatch.
	LinkBatch int `yaml:"link_batch"`
	// FoldLinks is the most staged links a batch sorts in memory at once, 32 bytes
	// each until they are queued (frontier.Options.FoldLinks). A batch takes in up to
	// LinkBatch or FoldLinks links, whichever is more; beyond FoldLinks it sorts them
	// in chunks of FoldLinks written to temporary files beside frontier.db (32 bytes
	// a link, deleted at once) and merges those. 0: the frontier's default, a batch
	// of up to 1,048,576 links (or LinkBatch) sorted 262,144 at a time (8 MiB); at
	// most MaxFrontierBatch.
	FoldLinks int `yaml:"fold_links"`
	// LogBatch is how many queue changes of finished pages (a URL done, failed,
	// retried, given back for later) wait in the frontier's log, 64 to 90 bytes of
	// memory each, before they are written into the queues in one sorted batch
	// (frontier.Options.LogBatch). 0: the frontier's default, 50,000; at most
	// MaxFrontierBatch.
	LogBatch int `yaml:"log_batch"`
	// ResidentMap is how much of frontier.db the process may map beyond what it had
	// mapped at its last drop before it drops those pages from its resident set
	// (the page cache keeps them; the next read maps them again): bbolt reads the
	// file through a mapping, and what a crawl reads of it would otherwise stay in
	// its RSS, about the whole file (frontier.Options.ResidentMap). Default
	// DefaultResidentMap; 0 keeps every page mapped: faster, for about the whole file
	// in the process's RSS (BENCHMARKS.md, "Figures moved out of the code's
	// comments"). While a seeds file is read, the crawl keeps at most 32 MiB mapped.
	ResidentMap ByteSize `yaml:"resident_map"`
	// LinkCache is how many links the engine remembers having handed to the
	// frontier lately, about 128 bytes of memory each: a link found again at the
	// same depth or deeper (a site's menus, its pages linking to one another) is not
	// handed again, since the frontier would stage it, log it and find it a
	// duplicate only when it sorts it in. The oldest is forgotten first. 0: off,
	// every link found is handed. Default DefaultLinkCache; at most MaxFrontierBatch.
	LinkCache int `yaml:"link_cache"`
}

// DefaultLinkCache is frontier.link_cache's default, in links (about 4 MiB of
// memory; BENCHMARKS.md, "the crawl's pages/s").
const DefaultLinkCache = 32_768

// DefaultResidentMap is frontier.resident_map's default, in bytes.
const DefaultResidentMap = frontier.DefaultResidentMap

// DefaultLinkBatch is frontier.link_batch's default, in links: at 10M URLs over
// 100,000 hosts it keeps the process's peak RSS under 200 MiB (BENCHMARKS.md, "the
// engine stages links" and "folds larger than memory").
const DefaultLinkBatch = 100_000

// MaxFrontierBatch bounds frontier.link_batch, frontier.fold_links,
// frontier.log_batch and frontier.link_cache, in links or queue changes: a batch holds in memory 32 bytes a
// link it sorts (fold_links), 64 to 90 bytes a queue change, until it is written.
const MaxFrontierBatch = 10_000_000

// Recrawl modes.
const (
	RecrawlFixed    = "fixed"
	RecrawlAdaptive = "adaptive"
)

// Cluster makes this process one of several that share a crawl through a NATS
// JetStream server (README, "Several processes, one crawl"). The zero value, with no
// URL, is a single-process crawl, which needs no NATS.
type Cluster struct {
	// URL is the NATS server, or several comma-separated (nats://host:4222,
	// tls://host:4222). Empty: single-process mode, and every other key is ignored.
	URL string `yaml:"url"`
	// Name is this process's name in the crawl, unique among its processes; it keys
	// the process's state that `crawl status -cluster` shows. Letters, digits, '-'
	// and '_'. Empty: the host name and the shards owned (such as
	// "web1-shards-0-15"), the same at every restart.
	Name string `yaml:"name"`
	// Stream is the JetStream stream of this crawl (its subjects are
	// STREAM.shard.N, its state bucket STREAM_state): two crawls sharing a NATS
	// server need two names. Letters, digits, '-' and '_'. Default POLITECRAWL.
	Stream string `yaml:"stream"`
	// ShardCount is the number of shards of the crawl, fixed when its stream is
	// created; every process must give the same. A URL's shard is a hash of its
	// registered domain. Default 64.
	ShardCount int `yaml:"shard_count"`
	// Shards lists the shards this process owns, as ranges: "0-15", "16-31,40".
	// Required with URL; every shard of the crawl must be owned by one process.
	Shards string `yaml:"shards"`
	// User and Password, or Token, or CredsFile (a NATS .creds file, with JWT and
	// nkey seed) authenticate to the server. Empty: none.
	User      string `yaml:"user"`
	Password  string `yaml:"password"`
	Token     string `yaml:"token"`
	CredsFile string `yaml:"creds_file"`
	// CAFile is a PEM file of CAs that sign the server's certificate (TLS); CertFile
	// and KeyFile a client certificate, when the server asks for one. Empty: the
	// system roots, no client certificate.
	CAFile   string `yaml:"ca_file"`
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	// Replicas is the number of copies JetStream keeps of the stream and the state
	// bucket (a clustered NATS server); at creation only. Default 1.
	Replicas int `yaml:"replicas"`
	// AckWait is how long links delivered to this process may stay unacknowledged
	// before JetStream delivers them again: after a crash, the restarted process gets
	// the links it was taking in when it died after this long. Default 30s.
	AckWait Duration `yaml:"ack_wait"`
	// ReportEvery is how often this process writes its state (queue, rate, idle)
	// for the others and checks whether the whole crawl has ended. Each report the
	// server stores renews the process's lease. Default 2s.
	ReportEvery Duration `yaml:"report_every"`
	// Lease is how long this process goes on fetching its shards' hosts after its last
	// report that the NATS server stored: cut off from NATS for longer, it stops
	// fetching (its queue stays on disk) until it reaches NATS again. A process whose
	// last report is older than twice the lease, and that did not say it stopped,
	// counts as dead: another process may then take its shards over (and the cut-off
	// one, when it is back, hands them on), and until then its shards hold the crawl's
	// end. At least 1s and three report intervals, at most 1h. Zero (the default): 15s,
	// or three report intervals if that is longer (EffectiveLease).
	Lease Duration `yaml:"lease"`
}

// DefaultLease is the lease of a Cluster whose Lease is zero, unless three report
// intervals are longer.
const DefaultLease = 15 * time.Second

// EffectiveLease is k.Lease, or when it is zero DefaultLease or three report intervals,
// whichever is longer.
func (k Cluster) EffectiveLease() time.Duration {
	if k.Lease != 0 {
		return time.Duration(k.Lease)
	}
	return max(DefaultLease, 3*time.Duration(k.ReportEvery))
}

// Scope keeps the crawl where its user wants it and out of traps.
type Scope struct {
	// Mode is host (only the seeds' hosts), domain (the seeds' registered domains),
	// prefix (URLs under Prefixes, or under the seeds when Prefixes is empty) or any.
	Mode     string   `yaml:"mode"`
	Prefixes []string `yaml:"prefixes"`
	// Include and Exclude are regular expressions over the canonical URL. When Include
	// is not empty a URL must match one of them; a URL matching any Exclude is refused.
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
	// MaxDepth is the number of links followed from a seed: Unlimited (0) by default,
	// SeedsOnly ("seeds") to fetch the seeds and follow none of their links.
	MaxDepth Depth `yaml:"max_depth"`
	// MaxPagesPerHost caps the URLs queued per host; 0 = unlimited. Page requisites
	// are not refused by it.
	MaxPagesPerHost int `yaml:"max_pages_per_host"`
	// MaxPages caps the pages fetched (responses archived with a pages.jsonl line,
	// sitemaps included) over the whole crawl, across runs of one data directory; URLs
	// blocked by robots.txt, skipped or failed do not count, nor do page requisites
	// (those of the pages fetched are fetched past it), and the URLs past it stay
	// queued, so a later run with a larger value goes on. 0 = unlimited.
	MaxPages int `yaml:"max_pages"`
	// MaxDuration stops a run this long after it starts, as a signal stops it: the
	// fetches in flight finish, the rest stays queued and the next run goes on. The
	// time is per run, not summed across runs. 0 = no limit.
	MaxDuration Duration `yaml:"max_duration"`
	// Trap defences: 0 turns one off.
	MaxURLLength        int  `yaml:"max_url_length"`
	MaxPathSegments     int  `yaml:"max_path_segments"`
	MaxRepeatedSegments int  `yaml:"max_repeated_segments"`
	MaxQueryParams      int  `yaml:"max_query_params"`
	CalendarTrap        bool `yaml:"calendar_trap"`
	// FollowNofollow follows links marked rel="nofollow" (never those of a page whose
	// meta robots or X-Robots-Tag says nofollow).
	FollowNofollow bool `yaml:"follow_nofollow"`
	// MaxLinksPerPage is the most distinct URLs (fragments removed) taken from one
	// page; links to URLs past it are counted as "link-limit". Default 10000.
	MaxLinksPerPage int `yaml:"max_links_per_page"`
}

// Politeness sets how often one host is fetched.
type Politeness struct {
	// MinDelay is the least time between two requests to one host; 0 means none
	// (robots.txt pacing, backoff and the adaptive delay still apply). robots.txt
	// Crawl-delay and Request-rate can only make it longer.
	MinDelay Duration `yaml:"min_delay"`
	// MaxDelay is the longest Crawl-delay honoured by waiting; a host asking for more is
	// deferred and reported, never fetched faster than it asked.
	MaxDelay Duration `yaml:"max_delay"`
	// PerHost is the number of requests in flight at once to one host.
	PerHost int `yaml:"per_host"`
	// AdaptiveFactor k makes the delay at least k times the host's last response time;
	// 0 turns it off.
	AdaptiveFactor float64 `yaml:"adaptive_factor"`
	// BackoffBase and BackoffMax bound the exponential backoff after 5xx answers,
	// timeouts and connection errors.
	BackoffBase Duration `yaml:"backoff_base"`
	BackoffMax  Duration `yaml:"backoff_max"`
	// GroupByIP makes host names that resolve to one IP address share one budget.
	GroupByIP bool `yaml:"group_by_ip"`
}

// Fetch bounds every HTTP request.
type Fetch struct {
	Timeout       Duration `yaml:"timeout"`
	DialTimeout   Duration `yaml:"dial_timeout"`
	TLSTimeout    Duration `yaml:"tls_timeout"`
	HeaderTimeout Duration `yaml:"header_timeout"`
	// MaxBodySize is the most body bytes kept from one response (as received); the
	// rest is cut and the record marked truncated. A size such as 4MiB or 500KB.
	MaxBodySize ByteSize `yaml:"max_body_size"`
	// MaxDecodedSize is the most bytes a compressed body (Content-Encoding gzip, br,
	// zstd, deflate) is decoded to for parsing; decoding also stops at 100 times the
	// received size once past 1 MiB. The WARC keeps the body as received.
	MaxDecodedSize ByteSize `yaml:"max_decoded_size"`
	// MaxBytesInFlight bounds the body bytes held in memory by all workers at once
	// (received, decoded, and the HTML being parsed). A fetch waits for room before it
	// reads on; one that needs more than the whole budget runs alone.
	MaxBytesInFlight ByteSize `yaml:"max_bytes_in_flight"`
	// AcceptTypes lists the content types whose bodies are downloaded; empty = all.
	AcceptTypes []string `yaml:"accept_types"`
	// MaxAttempts is how often a URL is tried after temporary errors before it fails.
	MaxAttempts int `yaml:"max_attempts"`
	// MaxRedirects is how many redirect hops are followed from one URL.
	MaxRedirects int `yaml:"max_redirects"`
	// CAFile is a PEM file of certificates trusted besides the system's roots, for
	// sites whose certificates a private CA signed. Empty means the system roots only.
	CAFile string `yaml:"ca_file"`
	// InsecureSkipVerify accepts any TLS certificate, unverified: anyone on the path
	// can then pose as the site. Off by default; when on, every run warns.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
	// HTTP2 is "off" (HTTP/1.1 only), "auto" (offer h2 and http/1.1 at ALPN over
	// TLS; the server chooses) or "on" (HTTP/2 over TLS, required). Plain http is
	// HTTP/1.1 whatever it says.
	HTTP2 string `yaml:"http2"`
	// Proxy is the proxy every request goes through: http://, https:// or
	// socks5://, with user:password@ if it asks for credentials. The crawler
	// resolves and checks each address itself and asks the proxy for that address,
	// so network.allow_private still decides. Empty: direct connections.
	Proxy string `yaml:"proxy"`
	// NoProxy lists the hosts reached directly when Proxy is set (see Access).
	NoProxy []string `yaml:"no_proxy"`
	// Headers are extra request headers by host pattern: "*" for every host, a
	// name for it and the names under it, "=name" for that name alone.
	Headers map[string]map[string]string `yaml:"headers"`
	// CookiesFile is a Netscape cookies.txt file whose cookies the crawl starts
	// with (a browser session exported for an archive behind a login).
	CookiesFile string `yaml:"cookies_file"`
	// Auth holds credentials by host pattern, sent only to the hosts they match.
	Auth []Auth `yaml:"auth"`
}

// Network says which addresses may be reached.
type Network struct {
	// AllowPrivate permits loopback, private, link-local and other non-public addresses
	// (intranet crawls and tests). Off by default.
	AllowPrivate bool `yaml:"allow_private"`
	// Resolve maps "host:port" to "ip:port", like curl --resolve.
	Resolve map[string]string `yaml:"resolve"`
	// Resolver, when not nil, looks host names up instead of the system's resolver
	// (tests, a DNS server of one's own). It has no YAML form.
	Resolver *net.Resolver `yaml:"-"`
}

// Robots sets how robots.txt is fetched and cached (RFC 9309 §2.3–2.4).
type Robots struct {
	// UnreachableAttempts is how many times an unreachable robots.txt (5xx, 429,
	// network error) is tried before the host's URLs are set aside for this run.
	UnreachableAttempts int `yaml:"unreachable_attempts"`
	// UnreachableRetry is the wait before the second try; it doubles each time.
	UnreachableRetry Duration `yaml:"unreachable_retry"`
	// MaxAge is how long a fetched robots.txt is used (at most 24h per RFC 9309).
	MaxAge Duration `yaml:"max_age"`
	// ContentSignalUse is what the crawl's pages are for: "search", "ai-train" or
	// "ai-input". A page whose robots.txt group for our agent has a Content-Signal
	// saying no to that use ("ai-train=no") is not fetched, and is recorded in
	// skipped.jsonl. Empty (the default) fetches whatever the signal says; the signal
	// is recorded with every page either way. A use also turns OptOuts on and obeys
	// them.
	ContentSignalUse string `yaml:"content_signal_use"`
	// OptOuts reads the opt-outs beyond robots.txt and records each page's verdict
	// (pages.jsonl opt_out, its metadata record, the Parquet index): TDMRep (the
	// origin's /.well-known/tdmrep.json, fetched and archived once per host before its
	// first page; the tdm-reservation and tdm-policy header fields and meta elements),
	// noai and noimageai (X-Robots-Tag, meta robots), and AIPREF Content-Usage (robots.txt
	// rules, the header field). A ContentSignalUse turns it on and obeys it: a page
	// reserved against that use is not fetched when robots.txt or tdmrep.json says so,
	// and dropped unstored when its response says so, with a skipped.jsonl line.
	// False (the default): read only with a ContentSignalUse.
	OptOuts bool `yaml:"opt_outs"`
}

// Sitemaps sets where sitemap URLs come from.
type Sitemaps struct {
	// FromRobots fetches the sitemaps robots.txt lists.
	FromRobots bool `yaml:"from_robots"`
	// Guess fetches /sitemap.xml when robots.txt lists none.
	Guess bool `yaml:"guess"`
}

// URL sets the canonical form URLs are deduplicated under.
type URL struct {
	// StripParams lists query parameters removed from every URL; a trailing * matches a
	// prefix (utm_*). Case-insensitive.
	StripParams []string `yaml:"strip_params"`
	// SortQuery sorts query parameters, so ?b=1&a=2 and ?a=2&b=1 are one URL.
	SortQuery bool `yaml:"sort_query"`
}

// Extract bounds what is read out of a document.
type Extract struct {
	// MaxHTMLBytes is the most bytes of an HTML page that are parsed for links and
	// metadata; links past them are dropped, counted as skipped ("link-truncated"), and
	// the page is marked truncated in pages.jsonl.
	MaxHTMLBytes ByteSize `yaml:"max_html_bytes"`
	// TextFormat is the form of each page's main text (storage.text, text_records, wet):
	// "plain", one line per paragraph, heading, list item and table row, or "markdown".
	// Empty means "plain".
	TextFormat string `yaml:"text_format"`
	// SkipNearDuplicates follows no link of a page whose main text (500 bytes or more)
	// is a near-duplicate (SimHash within 6 bits) of one of the last 256 pages fetched
	// on the same host in this run: session-id and calendar variants end there. The
	// page itself is archived. Text is then extracted from every HTML page. False:
	// links of every page are followed.
	SkipNearDuplicates bool `yaml:"skip_near_duplicates"`
}

// TextFormat returns the extract.TextFormat that an extract.text_format value names;
// ok is false for an unknown name.
func TextFormat(name string) (f extract.TextFormat, ok bool) {
	switch name {
	case "", "plain":
		return extract.TextPlain, true
	case "markdown":
		return extract.TextMarkdown, true
	}
	return 0, false
}

// Storage sets what a crawl writes.
type Storage struct {
	// WARCPrefix starts every WARC file name: PREFIX-TIMESTAMP-SERIAL.warc.gz.
	WARCPrefix string `yaml:"warc_prefix"`
	// WARCMaxSize rotates WARC files at about this size.
	WARCMaxSize ByteSize `yaml:"warc_max_size"`
	// WARCGzipLevel is the gzip level of WARC records, from 1 (fastest, the default)
	// to 9 (smallest files, several times the CPU).
	WARCGzipLevel int `yaml:"warc_gzip_level"`
	// Text adds each page's main visible text to pages.jsonl.
	Text bool `yaml:"text"`
	// TextRecords archives each HTML page's main visible text as a WARC
	// conversion record (text/plain, WARC-Refers-To its response), as WET files
	// hold it for corpus pipelines. False: none.
	TextRecords bool `yaml:"text_records"`
	// WET keeps, beside each WARC file, its WET file in Common Crawl's layout
	// (warc/NAME.warc.wet.gz): one conversion record per HTML page with its main
	// text. False: none.
	WET bool `yaml:"wet"`
	// Parquet keeps a Parquet index in Common Crawl's flat cc-index schema,
	// DataDir/cc-index/crawl=CrawlName/subset=…/NAME.parquet, one file per subset
	// as each WARC file closes. False: none.
	Parquet bool `yaml:"parquet"`
	// CrawlName is the crawl partition of the Parquet index (crawl=NAME), what
	// Common Crawl's queries select in WHERE crawl = '…'. Empty: WARCPrefix.
	CrawlName string `yaml:"crawl_name"`
	// Language detects the language of each HTML page's main text when Text,
	// TextRecords or WET is on (package extract/lang), for pages.jsonl (language),
	// the metadata record (language fields) and the conversion records
	// (WARC-Identified-Content-Language). Default true; it adds about an eighth to
	// the CPU of finding the text.
	Language bool `yaml:"language"`
	// WACZ packages the crawl as DataDir/crawl.wacz (see WACZName) when a run
	// completes, as `crawl wacz` does. False: no package.
	WACZ bool `yaml:"wacz"`
	// Operator names who runs the crawl, for the warcinfo record.
	Operator string `yaml:"operator"`
	// KeepSecrets archives the values of Authorization, Cookie and Set-Cookie
	// fields as sent and received; by default the WARC files hold a fixed mark
	// instead, so that an archive handed to others leaks no session.
	KeepSecrets bool `yaml:"keep_secrets"`
}

// DefaultUserAgent is the User-Agent sent when the configuration names none.
const DefaultUserAgent = "politecrawl/0.1 (+https://github.com/politecrawl/crawl)"

// DefaultStripParams are the query parameters removed by default: tracking and session
// identifiers that make one page look like many.
var DefaultStripParams = []string{"utm_*", "fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "jsessionid", "phpsessid", "sid", "sessionid", "aspsessionid*"}

// Default returns the configuration a crawl uses when told nothing.
func Default() Config {
	return Config{
		UserAgent: DefaultUserAgent,
		DataDir:   "crawl-data",
		Workers:   64,
		Scope: Scope{
			Mode:                "host",
			MaxURLLength:        2048,
			MaxPathSegments:     32,
			MaxRepeatedSegments: 3,
			MaxQueryParams:      16,
			CalendarTrap:        true,
			MaxLinksPerPage:     10000,
		},
		Politeness: Politeness{
			MinDelay:       Duration(time.Second),
			MaxDelay:       Duration(60 * time.Second),
			PerHost:        1,
			AdaptiveFactor: 1,
			BackoffBase:    Duration(5 * time.Second),
			BackoffMax:     Duration(10 * time.Minute),
		},
		Fetch: Fetch{
			Timeout:       Duration(60 * time.Second),
			DialTimeout:   Duration(10 * time.Second),
			TLSTimeout:    Duration(10 * time.Second),
			HeaderTimeout: Duration(30 * time.Second),
			// Googlebot reads the first 2 MB of an HTML file for Search (Google Search
			// Central, 2026), and the median page is a few tens of KB: 4 MiB received,
			// 8 MiB decoded and 2 MiB parsed keep nearly every page whole while one
			// hostile server costs little (see BENCHMARKS.md, "Memory").
			MaxBodySize:      4 << 20,
			MaxDecodedSize:   8 << 20,
			MaxBytesInFlight: 32 << 20,
			MaxAttempts:      3,
			MaxRedirects:     5,
			HTTP2:            DefaultHTTP2,
		},
		Robots: Robots{
			UnreachableAttempts: 3,
			UnreachableRetry:    Duration(time.Minute),
			MaxAge:              Duration(24 * time.Hour),
		},
		Sitemaps: Sitemaps{FromRobots: true},
		Recrawl: Recrawl{
			Mode:        RecrawlFixed,
			MinInterval: Duration(time.Minute),
			MaxInterval: Duration(90 * 24 * time.Hour),
		},
		Frontier: Frontier{LinkBatch: DefaultLinkBatch, ResidentMap: DefaultResidentMap, LinkCache: DefaultLinkCache},
		URL:      URL{StripParams: append([]string(nil), DefaultStripParams...)},
		Extract:  Extract{MaxHTMLBytes: 2 << 20, TextFormat: "plain"},
		Requisites: Requisites{
			Enabled:     true,
			MaxHops:     2,
			Kinds:       append([]string(nil), DefaultRequisiteKinds...),
			OtherHosts:  true,
			MaxBodySize: 16 << 20,
			MaxPerPage:  DefaultRequisitesPerPage,
		},
		Storage: Storage{
			WARCPrefix:    "crawl",
			WARCMaxSize:   1 << 30,
			WARCGzipLevel: 1,
			Language:      true,
		},
		Cluster: Cluster{
			Stream:      "POLITECRAWL",
			ShardCount:  64,
			Replicas:    1,
			AckWait:     Duration(30 * time.Second),
			ReportEvery: Duration(2 * time.Second),
		},
		LogLevel: "info",
	}
}

// ProcessName is the process's name in the crawl: Name, or when it is empty the host
// name and the shards owned (such as "web1-shards-0-15"), which stay the same when the
// process restarts.
func (k Cluster) ProcessName() string {
	if k.Name != "" {
		return k.Name
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "crawl"
	}
	name := host + "-shards-" + k.Shards
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
}
