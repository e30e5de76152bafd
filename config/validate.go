package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/politecrawl/crawl/cluster"
	"github.com/politecrawl/crawl/extract"
)

// validate checks the frontier section; bad builds the error.
func (f *Frontier) validate(bad func(field string, value any, format string, args ...any) error) error {
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

// validate checks the requisites section; bad builds the error.
func (r *Requisites) validate(bad func(field string, value any, format string, args ...any) error) error {
	if !r.Enabled {
		return nil
	}
	if r.MaxHops < 1 || r.MaxHops > 7 {
		return bad("requisites.max_hops", r.MaxHops, "must be between 1 and 7")
	}
	for i, k := range r.Kinds {
		if _, err := extract.ParseKind(k); err != nil {
			return bad(fmt.Sprintf("requisites.kinds[%d]", i), k, "must be one of %s", strings.Join(kindNames(), ", "))
		}
	}
	if r.MaxBodySize <= 0 {
		return bad("requisites.max_body_size", r.MaxBodySize, "must be positive")
	}
	if r.MaxPerPage < 0 {
		return bad("requisites.max_per_page", r.MaxPerPage, "must be 0 (unlimited) or more")
	}
	return nil
}

// kindNames returns the names of the requisite kinds.
func kindNames() []string {
	var names []string
	for _, k := range extract.Kinds() {
		names = append(names, k.String())
	}
	return names
}

// validate checks the recrawl section; bad builds the error.
func (r *Recrawl) validate(bad func(field string, value any, format string, args ...any) error) error {
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

var (
	streamName  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	processName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
)

// validateCluster checks the cluster section; bad builds the *Error.
func (c *Config) validateCluster(bad func(field string, value any, format string, args ...any) error) error {
	k := c.Cluster
	if strings.TrimSpace(k.URL) == "" {
		if k.Shards != "" {
			return bad("cluster.shards", k.Shards, "needs cluster.url (without it the crawl is one process, which owns everything)")
		}
		return nil
	}
	for _, one := range strings.Split(k.URL, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || u.Host == "" {
			return bad("cluster.url", cluster.RedactURL(k.URL), "must be a NATS URL such as nats://127.0.0.1:4222, or several separated by commas")
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return bad("cluster.url", cluster.RedactURL(k.URL), "scheme must be nats, tls, ws or wss")
		}
	}
	if k.ShardCount < 1 || k.ShardCount > cluster.MaxShards {
		return bad("cluster.shard_count", k.ShardCount, "must be between 1 and %d", cluster.MaxShards)
	}
	if k.Shards == "" {
		return bad("cluster.shards", k.Shards, "must list the shards this process owns, such as 0-15 (of 0-%d)", k.ShardCount-1)
	}
	if _, err := cluster.ParseShards(k.Shards, k.ShardCount); err != nil {
		return bad("cluster.shards", k.Shards, "%v", err)
	}
	if !streamName.MatchString(k.Stream) {
		return bad("cluster.stream", k.Stream, "must be 1 to 64 letters, digits, '-' or '_'")
	}
	if k.Name != "" && !processName.MatchString(k.Name) {
		return bad("cluster.name", k.Name, "must be 1 to 128 letters, digits, '-' or '_'")
	}
	switch {
	case k.Token != "" && (k.User != "" || k.Password != ""):
		return bad("cluster.token", "", "give a token or a user and password, not both")
	case k.Password != "" && k.User == "":
		return bad("cluster.password", "", "needs cluster.user")
	case k.CredsFile != "" && (k.User != "" || k.Token != ""):
		return bad("cluster.creds_file", k.CredsFile, "give a creds file, a token or a user and password, not two of them")
	case (k.CertFile == "") != (k.KeyFile == ""):
		return bad("cluster.cert_file", k.CertFile, "cluster.cert_file and cluster.key_file go together")
	}
	if k.Replicas < 1 || k.Replicas > 5 {
		return bad("cluster.replicas", k.Replicas, "must be between 1 and 5")
	}
	if k.AckWait < Duration(time.Second) || k.AckWait > Duration(time.Hour) {
		return bad("cluster.ack_wait", k.AckWait, "must be between 1s and 1h")
	}
	if k.ReportEvery < Duration(100*time.Millisecond) || k.ReportEvery > Duration(time.Minute) {
		return bad("cluster.report_every", k.ReportEvery, "must be between 100ms and 1m")
	}
	if k.Lease != 0 && (k.Lease < Duration(time.Second) || k.Lease > Duration(time.Hour) || k.Lease < 3*k.ReportEvery) {
		return bad("cluster.lease", k.Lease, "must be between 1s and 1h, and at least three cluster.report_every (%s)", 3*k.ReportEvery)
	}
	return nil
}

// Validate checks every value and returns the first problem as a *Error.
func (c *Config) Validate() error {
	bad := func(field string, value any, format string, args ...any) error {
		return &Error{Field: field, Value: fmt.Sprint(value), Line: c.lines[field], Err: fmt.Errorf(format, args...)}
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
		"scope.max_pages_per_host": c.Scope.MaxPagesPerHost,
		"scope.max_pages":          c.Scope.MaxPages, "scope.max_url_length": c.Scope.MaxURLLength,
		"scope.max_path_segments": c.Scope.MaxPathSegments, "scope.max_repeated_segments": c.Scope.MaxRepeatedSegments,
		"scope.max_query_params": c.Scope.MaxQueryParams,
	} {
		if n < 0 {
			return bad(field, n, "must not be negative (0 means no limit)")
		}
	}
	if c.Scope.MaxDepth < SeedsOnly {
		return bad("scope.max_depth", c.Scope.MaxDepth, "must be a number of link hops (0 = unlimited), or seeds")
	}
	if c.Scope.MaxDuration < 0 {
		return bad("scope.max_duration", c.Scope.MaxDuration, "must not be negative (0 means no limit)")
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
	if _, ok := TextFormat(c.Extract.TextFormat); !ok {
		return bad("extract.text_format", c.Extract.TextFormat, `must be "plain" or "markdown"`)
	}
	if f.MaxAttempts < 1 || f.MaxAttempts > 100 {
		return bad("fetch.max_attempts", f.MaxAttempts, "must be between 1 and 100")
	}
	if f.MaxRedirects < 0 || f.MaxRedirects > 20 {
		return bad("fetch.max_redirects", f.MaxRedirects, "must be between 0 and 20")
	}
	if err := c.validateAccess(); err != nil {
		return err
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
	if err := c.Requisites.validate(bad); err != nil {
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
	if c.Storage.Parquet && c.Storage.WARCMaxSize >= 2<<30 {
		return bad("storage.warc_max_size", c.Storage.WARCMaxSize, "must be below 2GiB with storage.parquet (its record offsets are 32-bit, as Common Crawl's)")
	}
	if strings.ContainsAny(c.Storage.CrawlName, `/\=`) {
		return bad("storage.crawl_name", c.Storage.CrawlName, "must not hold / \\ or =")
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
			return ue.Err // the seed is named already
		}
		return err
	}
	return nil
}

// validateDedupFrom checks that every dedup_from entry names a path other than the
// crawl's own data directory; whether it exists is checked when the crawl starts.
func (c *Config) validateDedupFrom() error {
	own, _ := filepath.Abs(c.DataDir)
	for i, p := range c.DedupFrom {
		field := fmt.Sprintf("dedup_from[%d]", i)
		if strings.TrimSpace(p) == "" {
			return &Error{Field: field, Value: p, Line: c.lines[field], Err: errors.New("must name a data directory, a digests.db or a CDXJ file")}
		}
		if abs, err := filepath.Abs(p); err == nil && (abs == own || abs == filepath.Join(own, "digests.db")) {
			return &Error{Field: field, Value: p, Line: c.lines[field], Err: errors.New("must not be this crawl's own data directory (data_dir)")}
		}
	}
	return nil
}
