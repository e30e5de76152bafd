package crawl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/frontier"
	"go.yaml.in/yaml/v3"
)

// Config is everything a crawl can be told. DefaultConfig returns the defaults;
// ParseConfig reads a YAML file over them; Validate checks the result. Every key is
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
	// SeedsFile names a file of seed URLs, one a line, read by ParseSeeds: comments and
	// blank lines are ignored, lines that are not URLs skipped and reported.
	SeedsFile string `yaml:"seeds_file"`

	Scope      ScopeConfig      `yaml:"scope"`
	Politeness PolitenessConfig `yaml:"politeness"`
	Fetch      FetchConfig      `yaml:"fetch"`
	Network    NetworkConfig    `yaml:"network"`
	Robots     RobotsConfig     `yaml:"robots"`
	Sitemaps   SitemapsConfig   `yaml:"sitemaps"`
	URL        URLConfig        `yaml:"url"`
	Extract    ExtractConfig    `yaml:"extract"`
	Storage    StorageConfig    `yaml:"storage"`
	Recrawl    RecrawlConfig    `yaml:"recrawl"`
	Frontier   FrontierConfig   `yaml:"frontier"`
	Cluster    ClusterConfig    `yaml:"cluster"`

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
	// the crawl runs; the final figures stay in the status file (StatusFile).
	MetricsAddr string `yaml:"metrics_addr"`
	// LogLevel is the level of crawl.log and stderr logs: debug, info, warn or error.
	LogLevel string `yaml:"log_level"`

	// lines maps key paths to their line in the file ParseConfig read, for errors.
	lines map[string]int
}

// RecrawlConfig fetches finished pages again on a schedule, so that a crawl stays
// fresh. The zero value is off: a crawl ends once nothing is queued.
type RecrawlConfig struct {
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

// FrontierConfig sets how the frontier (frontier.db) takes in the links pages lead
// to. The zero value queues each page's links in the transaction that finishes it.
type FrontierConfig struct {
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
	// a link, deleted at once) and merges those. 0: the frontier's default, 1,048,576
	// (32 MiB); at most MaxFrontierBatch.
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
	// DefaultResidentMap; 0 keeps every page mapped, which ran a frontier of 1M URLs
	// 1.3 times as fast (Next/Done cycles) at 1.1 GiB of peak RSS instead of 330 MiB.
	ResidentMap ByteSize `yaml:"resident_map"`
	// LinkCache is how many links the engine remembers having handed to the
	// frontier lately, about 128 bytes of memory each: a link found again at the
	// same depth or deeper (a site's menus, its pages linking to one another) is not
	// handed again, since the frontier would stage it, log it and find it a
	// duplicate only when it sorts it in. The oldest is forgotten first. 0: off,
	// every link found is handed. Default DefaultLinkCache; at most MaxFrontierBatch.
	LinkCache int `yaml:"link_cache"`
}

// DefaultLinkCache is frontier.link_cache's default, in links (about 4 MiB):
// BENCHMARKS.md, "(fifth session) — the crawl's pages/s".
const DefaultLinkCache = 32_768

// residentMap is ResidentMap as frontier.Options.ResidentMap takes it: negative for
// never.
func (f *FrontierConfig) residentMap() int64 {
	if f.ResidentMap == 0 {
		return -1
	}
	return int64(f.ResidentMap)
}

// DefaultResidentMap is frontier.resident_map's default, in bytes.
const DefaultResidentMap = frontier.DefaultResidentMap

// DefaultLinkBatch is frontier.link_batch's default, in links (BENCHMARKS.md, "the
// engine stages links" and "folds larger than memory"). At 10M URLs over 100,000
// hosts, batches of 1,000,000 wrote 0.75 of the bytes per page of batches of 100,000,
// but the process's peak RSS was 360-500 MiB against under 200 MiB.
const DefaultLinkBatch = 100_000

// MaxFrontierBatch bounds frontier.link_batch, frontier.fold_links,
// frontier.log_batch and frontier.link_cache, in links or queue changes: a batch holds in memory 32 bytes a
// link it sorts (fold_links), 64 to 90 bytes a queue change, until it is written.
const MaxFrontierBatch = 10_000_000

// validate checks the frontier section; bad builds the error.
func (f *FrontierConfig) validate(bad func(field string, value any, format string, args ...any) error) error {
	if f.LinkBatch < 0 || f.LinkBatch > MaxFrontierBatch {
		return bad("frontier.link_batch", f.LinkBatch, "must be between 0 (off) and %d", MaxFrontierBatch)
	}
	if f.FoldLinks < 0 || f.FoldLinks > MaxFrontierBatch {
		return bad("frontier.fold_links", f.FoldLinks, "must be between 0 (the default) and %d", MaxFrontierBatch)
	}
	if f.LogBatch < 0 || f.LogBatch > MaxFrontierBatch {
		return bad("frontier.log_batch", f.LogBatch, "must be between 0 (the default) and %d", MaxFrontierBatch)
	}
	if f.LinkCache < 0 || f.LinkCache > MaxFrontierBatch {
		return bad("frontier.link_cache", f.LinkCache, "must be between 0 (off) and %d", MaxFrontierBatch)
	}
	return nil
}

// Recrawl modes.
const (
	RecrawlFixed    = "fixed"
	RecrawlAdaptive = "adaptive"
)

// validate checks the recrawl section; bad builds the error.
func (r *RecrawlConfig) validate(bad func(field string, value any, format string, args ...any) error) error {
	if r.Interval < 0 || r.Interval != 0 && r.Interval < Duration(time.Second) {
		return bad("recrawl.interval", r.Interval, "must be 0 (off) or at least 1s")
	}
	switch r.Mode {
	case "", RecrawlFixed:
		return nil
	case RecrawlAdaptive:
	default:
		return bad("recrawl.mode", r.Mode, "must be fixed or adaptive")
	}
	if r.MinInterval < Duration(time.Second) {
		return bad("recrawl.min_interval", r.MinInterval, "must be at least 1s")
	}
	if r.Interval != 0 && r.MinInterval > r.Interval {
		return bad("recrawl.min_interval", r.MinInterval, "must be at most recrawl.interval (%v)", r.Interval)
	}
	if r.MaxInterval < max(r.Interval, r.MinInterval) {
		return bad("recrawl.max_interval", r.MaxInterval, "must be at least recrawl.interval and recrawl.min_interval (%v)", max(r.Interval, r.MinInterval))
	}
	return nil
}

// ClusterConfig makes this process one of several that share a crawl through a NATS
// JetStream server (README, "Several processes, one crawl"). The zero value, with no
// URL, is a single-process crawl, which needs no NATS.
type ClusterConfig struct {
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
	// for the others and checks whether the whole crawl has ended. A process whose
	// last report is older than 30s or five of these intervals, whichever is longer,
	// and that did not say it stopped, counts as dead: its shards hold the crawl's end
	// until it is back. Default 2s.
	ReportEvery Duration `yaml:"report_every"`
}

// ScopeConfig keeps the crawl where its user wants it and out of traps.
type ScopeConfig struct {
	// Mode is host (only the seeds' hosts), domain (the seeds' registered domains),
	// prefix (URLs under Prefixes, or under the seeds when Prefixes is empty) or any.
	Mode     string   `yaml:"mode"`
	Prefixes []string `yaml:"prefixes"`
	// Include and Exclude are regular expressions over the canonical URL. When Include
	// is not empty a URL must match one of them; a URL matching any Exclude is refused.
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
	// MaxDepth is the number of links followed from a seed; 0 means unlimited.
	MaxDepth int `yaml:"max_depth"`
	// MaxPagesPerHost caps the URLs queued per host; 0 = unlimited.
	MaxPagesPerHost int `yaml:"max_pages_per_host"`
	// MaxPages caps the pages fetched (responses archived with a pages.jsonl line,
	// sitemaps included) over the whole crawl, across runs of one data directory; URLs
	// blocked by robots.txt, skipped or failed do not count, and the URLs past it stay
	// queued, so a later run with a larger value goes on. 0 = unlimited.
	MaxPages int `yaml:"max_pages"`
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

// PolitenessConfig sets how often one host is fetched.
type PolitenessConfig struct {
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

// FetchConfig bounds every HTTP request.
type FetchConfig struct {
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
}

// NetworkConfig says which addresses may be reached.
type NetworkConfig struct {
	// AllowPrivate permits loopback, private, link-local and other non-public addresses
	// (intranet crawls and tests). Off by default.
	AllowPrivate bool `yaml:"allow_private"`
	// Resolve maps "host:port" to "ip:port", like curl --resolve.
	Resolve map[string]string `yaml:"resolve"`
	// Resolver, when not nil, looks host names up instead of the system's resolver
	// (tests, a DNS server of one's own). It has no YAML form.
	Resolver *net.Resolver `yaml:"-"`
}

// RobotsConfig sets how robots.txt is fetched and cached (RFC 9309 §2.3–2.4).
type RobotsConfig struct {
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
	// is recorded with every page either way.
	ContentSignalUse string `yaml:"content_signal_use"`
}

// SitemapsConfig sets where sitemap URLs come from.
type SitemapsConfig struct {
	// FromRobots fetches the sitemaps robots.txt lists.
	FromRobots bool `yaml:"from_robots"`
	// Guess fetches /sitemap.xml when robots.txt lists none.
	Guess bool `yaml:"guess"`
}

// URLConfig sets the canonical form URLs are deduplicated under.
type URLConfig struct {
	// StripParams lists query parameters removed from every URL; a trailing * matches a
	// prefix (utm_*). Case-insensitive.
	StripParams []string `yaml:"strip_params"`
	// SortQuery sorts query parameters, so ?b=1&a=2 and ?a=2&b=1 are one URL.
	SortQuery bool `yaml:"sort_query"`
}

// ExtractConfig bounds what is read out of a document.
type ExtractConfig struct {
	// MaxHTMLBytes is the most bytes of an HTML page that are parsed for links and
	// metadata; links past them are dropped, counted as skipped ("link-truncated"), and
	// the page is marked truncated in pages.jsonl.
	MaxHTMLBytes ByteSize `yaml:"max_html_bytes"`
}

// StorageConfig sets what a crawl writes.
type StorageConfig struct {
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
	// WACZ packages the crawl as DataDir/crawl.wacz (see WACZName) when a run
	// completes, as `crawl wacz` does. False: no package.
	WACZ bool `yaml:"wacz"`
	// Operator names who runs the crawl, for the warcinfo record.
	Operator string `yaml:"operator"`
}

// DefaultUserAgent is the User-Agent sent when the configuration names none.
const DefaultUserAgent = "politecrawl/0.1 (+https://github.com/politecrawl/crawl)"

// DefaultStripParams are the query parameters removed by default: tracking and session
// identifiers that make one page look like many.
var DefaultStripParams = []string{"utm_*", "fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "jsessionid", "phpsessid", "sid", "sessionid", "aspsessionid*"}

// DefaultConfig returns the configuration a crawl uses when told nothing.
func DefaultConfig() Config {
	return Config{
		UserAgent: DefaultUserAgent,
		DataDir:   "crawl-data",
		Workers:   64,
		Scope: ScopeConfig{
			Mode:                "host",
			MaxURLLength:        2048,
			MaxPathSegments:     32,
			MaxRepeatedSegments: 3,
			MaxQueryParams:      16,
			CalendarTrap:        true,
			MaxLinksPerPage:     10000,
		},
		Politeness: PolitenessConfig{
			MinDelay:       Duration(time.Second),
			MaxDelay:       Duration(60 * time.Second),
			PerHost:        1,
			AdaptiveFactor: 1,
			BackoffBase:    Duration(5 * time.Second),
			BackoffMax:     Duration(10 * time.Minute),
		},
		Fetch: FetchConfig{
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
		},
		Robots: RobotsConfig{
			UnreachableAttempts: 3,
			UnreachableRetry:    Duration(time.Minute),
			MaxAge:              Duration(24 * time.Hour),
		},
		Sitemaps: SitemapsConfig{FromRobots: true},
		Recrawl: RecrawlConfig{
			Mode:        RecrawlFixed,
			MinInterval: Duration(time.Minute),
			MaxInterval: Duration(90 * 24 * time.Hour),
		},
		Frontier: FrontierConfig{LinkBatch: DefaultLinkBatch, ResidentMap: DefaultResidentMap, LinkCache: DefaultLinkCache},
		URL:      URLConfig{StripParams: append([]string(nil), DefaultStripParams...)},
		Extract:  ExtractConfig{MaxHTMLBytes: 2 << 20},
		Storage: StorageConfig{
			WARCPrefix:    "crawl",
			WARCMaxSize:   1 << 30,
			WARCGzipLevel: 1,
		},
		Cluster: ClusterConfig{
			Stream:      "POLITECRAWL",
			ShardCount:  64,
			Replicas:    1,
			AckWait:     Duration(30 * time.Second),
			ReportEvery: Duration(2 * time.Second),
		},
		LogLevel: "info",
	}
}

// ConfigError is a configuration value that cannot be used.
type ConfigError struct {
	Field string // the YAML key path, such as "politeness.min_delay"
	Value string // the value given, as text
	Line  int    // the line in the configuration file, 0 when unknown (flags, defaults)
	Err   error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Field)
	if e.Value != "" {
		fmt.Fprintf(&b, " %q", e.Value)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// maxConfigSize bounds the configuration file read by ParseConfig.
const maxConfigSize = 4 << 20

// ParseConfig reads a YAML configuration over DefaultConfig. Decoding is strict: an
// unknown key, a value of the wrong type or a second document is an error naming its line.
// The result is not validated; call Validate.
func ParseConfig(r io.Reader) (Config, error) {
	cfg := DefaultConfig()
	data, err := io.ReadAll(io.LimitReader(r, maxConfigSize+1))
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if len(data) > maxConfigSize {
		return cfg, fmt.Errorf("config: file larger than %d bytes", maxConfigSize)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, nil // an empty file means the defaults
		}
		return cfg, fmt.Errorf("config: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return cfg, errors.New("config: more than one YAML document")
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err == nil {
		cfg.lines = map[string]int{}
		indexLines(&root, "", cfg.lines)
	}
	return cfg, nil
}

// indexLines records the line of every key path in a YAML tree, so Validate can say
// where a bad value came from.
func indexLines(n *yaml.Node, prefix string, lines map[string]int) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			indexLines(c, prefix, lines)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if prefix != "" {
				key = prefix + "." + key
			}
			lines[key] = n.Content[i].Line
			indexLines(n.Content[i+1], key, lines)
		}
	}
}

// Validate checks every value and returns the first problem as a *ConfigError.
func (c *Config) Validate() error {
	bad := func(field string, value any, format string, args ...any) error {
		return &ConfigError{Field: field, Value: fmt.Sprint(value), Line: c.lines[field], Err: fmt.Errorf(format, args...)}
	}
	if err := validateUserAgent(c.UserAgent); err != nil {
		return bad("user_agent", c.UserAgent, "%v", err)
	}
	if strings.TrimSpace(c.DataDir) == "" {
		return bad("data_dir", c.DataDir, "must name a directory")
	}
	if err := c.validateDedupFrom(); err != nil {
		return err
	}
	if c.Workers < 1 || c.Workers > 10000 {
		return bad("workers", c.Workers, "must be between 1 and 10000")
	}
	for i, s := range c.Seeds {
		if err := validateSeed(s); err != nil {
			return bad(fmt.Sprintf("seeds[%d]", i), s, "%v", err)
		}
	}
	switch c.Scope.Mode {
	case "host", "domain", "prefix", "any":
	default:
		return bad("scope.mode", c.Scope.Mode, "must be host, domain, prefix or any")
	}
	for i, p := range c.Scope.Prefixes {
		if err := validateSeed(p); err != nil {
			return bad(fmt.Sprintf("scope.prefixes[%d]", i), p, "%v", err)
		}
	}
	for field, n := range map[string]int{
		"scope.max_depth": c.Scope.MaxDepth, "scope.max_pages_per_host": c.Scope.MaxPagesPerHost,
		"scope.max_pages": c.Scope.MaxPages, "scope.max_url_length": c.Scope.MaxURLLength,
		"scope.max_path_segments": c.Scope.MaxPathSegments, "scope.max_repeated_segments": c.Scope.MaxRepeatedSegments,
		"scope.max_query_params": c.Scope.MaxQueryParams,
	} {
		if n < 0 {
			return bad(field, n, "must not be negative (0 means no limit)")
		}
	}
	if c.Scope.MaxLinksPerPage < 1 || c.Scope.MaxLinksPerPage > 1000000 {
		return bad("scope.max_links_per_page", c.Scope.MaxLinksPerPage, "must be between 1 and 1000000")
	}
	p := c.Politeness
	if p.MinDelay < 0 {
		return bad("politeness.min_delay", p.MinDelay, "must not be negative")
	}
	if p.MaxDelay < p.MinDelay {
		return bad("politeness.max_delay", p.MaxDelay, "must be at least politeness.min_delay (%v)", p.MinDelay)
	}
	if p.PerHost < 1 || p.PerHost > 64 {
		return bad("politeness.per_host", p.PerHost, "must be between 1 and 64")
	}
	if p.AdaptiveFactor < 0 || p.AdaptiveFactor > 100 {
		return bad("politeness.adaptive_factor", p.AdaptiveFactor, "must be between 0 (off) and 100")
	}
	if p.BackoffBase <= 0 {
		return bad("politeness.backoff_base", p.BackoffBase, "must be positive")
	}
	if p.BackoffMax < p.BackoffBase {
		return bad("politeness.backoff_max", p.BackoffMax, "must be at least politeness.backoff_base")
	}
	f := c.Fetch
	for field, d := range map[string]Duration{
		"fetch.timeout": f.Timeout, "fetch.dial_timeout": f.DialTimeout,
		"fetch.tls_timeout": f.TLSTimeout, "fetch.header_timeout": f.HeaderTimeout,
	} {
		if d <= 0 {
			return bad(field, d, "must be positive")
		}
	}
	if f.MaxBodySize <= 0 {
		return bad("fetch.max_body_size", f.MaxBodySize, "must be positive")
	}
	if f.MaxDecodedSize <= 0 {
		return bad("fetch.max_decoded_size", f.MaxDecodedSize, "must be positive")
	}
	if f.MaxBytesInFlight < 1<<20 {
		return bad("fetch.max_bytes_in_flight", f.MaxBytesInFlight, "must be at least 1MiB")
	}
	if c.Extract.MaxHTMLBytes <= 0 || c.Extract.MaxHTMLBytes > 1<<30 {
		return bad("extract.max_html_bytes", c.Extract.MaxHTMLBytes, "must be positive and at most 1GiB")
	}
	if f.MaxAttempts < 1 || f.MaxAttempts > 100 {
		return bad("fetch.max_attempts", f.MaxAttempts, "must be between 1 and 100")
	}
	if f.MaxRedirects < 0 || f.MaxRedirects > 20 {
		return bad("fetch.max_redirects", f.MaxRedirects, "must be between 0 and 20")
	}
	for k, v := range c.Network.Resolve {
		if _, _, err := net.SplitHostPort(k); err != nil {
			return bad("network.resolve", k, "key must be host:port")
		}
		host, _, err := net.SplitHostPort(v)
		if err != nil || net.ParseIP(host) == nil {
			return bad("network.resolve", v, "value must be ip:port")
		}
	}
	r := c.Robots
	if r.UnreachableAttempts < 1 || r.UnreachableAttempts > 100 {
		return bad("robots.unreachable_attempts", r.UnreachableAttempts, "must be between 1 and 100")
	}
	if r.UnreachableRetry <= 0 {
		return bad("robots.unreachable_retry", r.UnreachableRetry, "must be positive")
	}
	if err := c.Recrawl.validate(bad); err != nil {
		return err
	}
	if err := c.Frontier.validate(bad); err != nil {
		return err
	}
	if r.MaxAge <= 0 || r.MaxAge > Duration(24*time.Hour) {
		return bad("robots.max_age", r.MaxAge, "must be positive and at most 24h (RFC 9309 §2.4)")
	}
	switch r.ContentSignalUse {
	case "", "search", "ai-train", "ai-input":
	default:
		return bad("robots.content_signal_use", r.ContentSignalUse, "must be search, ai-train or ai-input (or empty: none)")
	}
	if c.Storage.WARCPrefix == "" || strings.ContainsAny(c.Storage.WARCPrefix, `/\`) {
		return bad("storage.warc_prefix", c.Storage.WARCPrefix, "must be a plain file name prefix")
	}
	if c.Storage.WARCMaxSize < 1<<20 {
		return bad("storage.warc_max_size", c.Storage.WARCMaxSize, "must be at least 1MiB")
	}
	if c.Storage.WARCGzipLevel < 1 || c.Storage.WARCGzipLevel > 9 {
		return bad("storage.warc_gzip_level", c.Storage.WARCGzipLevel, "must be between 1 and 9")
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return bad("metrics_addr", c.MetricsAddr, "must be host:port, such as 127.0.0.1:9090")
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return bad("log_level", c.LogLevel, "must be debug, info, warn or error")
	}
	return c.validateCluster(bad)
}

// validateUserAgent checks that ua starts with a product token of letters, '_' and '-'.
func validateUserAgent(ua string) error {
	if ua == "" {
		return errors.New("must not be empty")
	}
	n := 0
	for n < len(ua) && isTokenByte(ua[n]) {
		n++
	}
	if n == 0 {
		return errors.New("must start with a product token of letters, '_' and '-' (RFC 9309 §2.2.1)")
	}
	for i := 0; i < len(ua); i++ {
		if ua[i] < 0x20 || ua[i] == 0x7f {
			return errors.New("must not contain control characters")
		}
	}
	return nil
}

func isTokenByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || b == '-'
}

// validateSeed checks that s is an absolute http or https URL with a host, in a form
// the crawl can canonicalise. Leading and trailing spaces are allowed; spaces or control
// characters inside are not, so "http://host/p.html  trailing junk" is refused.
func validateSeed(s string) error {
	s = strings.TrimSpace(s)
	if i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return fmt.Errorf("not a URL: text after %q (a space in a URL is written %%20)", s[:i])
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("must be an http or https URL")
	}
	if u.Host == "" {
		return errors.New("must name a host")
	}
	if _, err := (*extract.URLRules)(nil).Canonical(s); err != nil {
		var ue *extract.URLError
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return errors.New(strings.TrimPrefix(err.Error(), "extract: "))
	}
	return nil
}

// Duration is a time.Duration written in YAML as a string such as "200ms", "1s" or
// "1m30s" (a bare number is seconds).
type Duration time.Duration

// ParseDuration parses a duration as the configuration file and the command's flags
// write it: a number with a unit ("200ms", "1.5s", "1m30s"), or a bare number of seconds
// ("5", "0.5").
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 || secs > 1e9 {
			return 0, fmt.Errorf("duration %q out of range", s)
		}
		return Duration(secs * float64(time.Second)), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q: want a number with a unit such as 1s or 200ms, or a number of seconds", s)
	}
	return Duration(v), nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 1s or 200ms", n.Line)
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*d = v
	return nil
}

// Set implements flag.Value, so a flag takes a duration as the configuration file does
// (a bare number is seconds).
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

func (d Duration) String() string { return time.Duration(d).String() }

// ByteSize is a size in bytes written in YAML as a number or with a unit: 500KB, 10MiB,
// 1GiB (KB, MB and GB are powers of 1000; KiB, MiB and GiB powers of 1024).
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// ParseByteSize parses a size such as "10MiB".
func ParseByteSize(s string) (ByteSize, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range byteUnits {
		if len(s) > len(u.suffix) && strings.EqualFold(s[len(s)-len(u.suffix):], u.suffix) {
			mult = u.mult
			s = strings.TrimSpace(s[:len(s)-len(u.suffix)])
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*float64(mult) > float64(1<<62) {
		return 0, fmt.Errorf("bad size %q: want a number with a unit such as 10MiB", s)
	}
	return ByteSize(f * float64(mult)), nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a size such as 10MiB", n.Line)
	}
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*b = v
	return nil
}

func (b ByteSize) String() string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

// validateDedupFrom checks that every dedup_from entry names a path other than the
// crawl's own data directory; whether it exists is checked when the crawl starts.
func (c *Config) validateDedupFrom() error {
	own, _ := filepath.Abs(c.DataDir)
	for i, p := range c.DedupFrom {
		field := fmt.Sprintf("dedup_from[%d]", i)
		if strings.TrimSpace(p) == "" {
			return &ConfigError{Field: field, Value: p, Line: c.lines[field], Err: errors.New("must name a data directory, a digests.db or a CDXJ file")}
		}
		if abs, err := filepath.Abs(p); err == nil && (abs == own || abs == filepath.Join(own, "digests.db")) {
			return &ConfigError{Field: field, Value: p, Line: c.lines[field], Err: errors.New("must not be this crawl's own data directory (data_dir)")}
		}
	}
	return nil
}
