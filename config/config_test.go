package config

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigValid(t *testing.T) {
	cfg := Default()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
}

// The example file documents every key with its default: parsing it must give exactly
// Default, and every key of Config must appear in it.
func TestExampleConfigIsDefaults(t *testing.T) {
	f, err := os.Open("../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse(config.example.yaml): %v", err)
	}
	want := Default()
	got.lines, want.lines = nil, nil
	got.Seeds = nil
	if got.Network.Resolve != nil && len(got.Network.Resolve) == 0 {
		got.Network.Resolve = nil
	}
	if got.Fetch.Headers != nil && len(got.Fetch.Headers) == 0 {
		got.Fetch.Headers = nil
	}
	if got.Fetch.Auth != nil && len(got.Fetch.Auth) == 0 {
		got.Fetch.Auth = nil
	}
	for _, s := range []*[]string{&got.Scope.Prefixes, &got.Scope.Include, &got.Scope.Exclude, &got.Fetch.AcceptTypes, &got.Fetch.NoProxy, &got.DedupFrom} {
		if *s != nil && len(*s) == 0 {
			*s = nil
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("config.example.yaml:\n\tgot  %+v\n\twant %+v", got, want)
	}
	example, _ := os.ReadFile("../config.example.yaml")
	for _, key := range yamlKeys(reflect.TypeOf(Config{}), "") {
		leaf := key[strings.LastIndex(key, ".")+1:]
		if !strings.Contains(string(example), "\n"+leaf+":") && !strings.Contains(string(example), " "+leaf+":") {
			t.Errorf("config.example.yaml does not document %s", key)
		}
	}
}

func yamlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		key := tag
		if prefix != "" {
			key = prefix + "." + tag
		}
		keys = append(keys, key)
		if f.Type.Kind() == reflect.Struct {
			keys = append(keys, yamlKeys(f.Type, key)...)
		}
	}
	return keys
}

func TestParseConfig(t *testing.T) {
	in := `
user_agent: "ExampleBot/1.0 (+https://example.org/bot)"
data_dir: /tmp/x
workers: 8
seeds: [https://example.com/, "http://example.org/start"]
scope:
  mode: domain
politeness:
  min_delay: 200ms
network:
  allow_private: true
robots:
  unreachable_attempts: 5
  unreachable_retry: 30s
fetch:
  max_body_size: 2MiB
frontier:
  link_batch: 0
  fold_links: 500000
  log_batch: 20000
  resident_map: 0
  link_cache: 0
`
	got, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"user_agent", got.UserAgent, "ExampleBot/1.0 (+https://example.org/bot)"},
		{"data_dir", got.DataDir, "/tmp/x"},
		{"workers", got.Workers, 8},
		{"seeds", got.Seeds, []string{"https://example.com/", "http://example.org/start"}},
		{"scope.mode", got.Scope.Mode, "domain"},
		{"politeness.min_delay", time.Duration(got.Politeness.MinDelay), 200 * time.Millisecond},
		{"network.allow_private", got.Network.AllowPrivate, true},
		{"robots.unreachable_attempts", got.Robots.UnreachableAttempts, 5},
		{"robots.unreachable_retry", time.Duration(got.Robots.UnreachableRetry), 30 * time.Second},
		{"fetch.max_body_size", got.Fetch.MaxBodySize, ByteSize(2 << 20)},
		{"frontier.link_batch", got.Frontier.LinkBatch, 0},
		{"frontier.fold_links", got.Frontier.FoldLinks, 500000},
		{"frontier.log_batch", got.Frontier.LogBatch, 20000},
		{"frontier.resident_map", got.Frontier.ResidentMap, ByteSize(0)},
		{"frontier.link_cache", got.Frontier.LinkCache, 0},
		// Keys not given keep their defaults.
		{"politeness.per_host", got.Politeness.PerHost, 1},
		{"sitemaps.from_robots", got.Sitemaps.FromRobots, true},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s:\n\tgot  %v\n\twant %v", c.name, c.got, c.want)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"unknown key", "workers: 4\nworkres: 5\n", "line 2"},
		{"unknown nested key", "scope:\n  mode: host\n  moed: any\n", "line 3"},
		{"bad type", "workers: many\n", "line 1"},
		{"bad duration", "politeness:\n  min_delay: soon\n", "line 2"},
		{"bad size", "fetch:\n  max_body_size: lots\n", "line 2"},
		{"two documents", "workers: 1\n---\nworkers: 2\n", "more than one YAML document"},
		{"not a mapping", "- a\n- b\n", "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q):\n\tgot  %v\n\twant an error containing %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		field string
		line  int
	}{
		{"empty user agent", `user_agent: ""`, "user_agent", 1},
		{"user agent without token", `user_agent: "/1.0 (+https://x)"`, "user_agent", 1},
		{"zero workers", "data_dir: d\nworkers: 0", "workers", 2},
		{"relative seed", "seeds: [example.com]", "seeds[0]", 0},
		{"ftp seed", "seeds: [ftp://example.com/]", "seeds[0]", 0},
		{"bad scope", "scope:\n  mode: planet", "scope.mode", 2},
		{"negative delay", "politeness:\n  min_delay: -1s", "politeness.min_delay", 2},
		{"max below min", "politeness:\n  min_delay: 2m\n  max_delay: 1m", "politeness.max_delay", 3},
		{"zero decoded size", "fetch:\n  max_decoded_size: 0", "fetch.max_decoded_size", 2},
		{"tiny memory budget", "fetch:\n  max_bytes_in_flight: 64KiB", "fetch.max_bytes_in_flight", 2},
		{"zero html bytes", "extract:\n  max_html_bytes: 0", "extract.max_html_bytes", 2},
		{"per host zero", "politeness:\n  per_host: 0", "politeness.per_host", 2},
		{"robots attempts", "robots:\n  unreachable_attempts: 0", "robots.unreachable_attempts", 2},
		{"robots retry", "robots:\n  unreachable_retry: 0s", "robots.unreachable_retry", 2},
		{"robots max age", "robots:\n  max_age: 48h", "robots.max_age", 2},
		{"resolve key", "network:\n  resolve: {\"a.test\": \"127.0.0.1:80\"}", "network.resolve", 2},
		{"resolve value", "network:\n  resolve: {\"a.test:80\": \"localhost:80\"}", "network.resolve", 2},
		{"log level", "log_level: loud", "log_level", 1},
		{"metrics addr", "metrics_addr: nowhere", "metrics_addr", 1},
		{"depth below seeds", "scope:\n  max_depth: -2", "scope.max_depth", 2},
		{"gzip level", "storage:\n  warc_gzip_level: 0", "storage.warc_gzip_level", 2},
		{"recrawl interval too short", "recrawl:\n  interval: 500ms", "recrawl.interval", 2},
		{"negative recrawl interval", "recrawl:\n  interval: -1h", "recrawl.interval", 2},
		{"recrawl mode", "recrawl:\n  interval: 1h\n  mode: sometimes", "recrawl.mode", 3},
		{"adaptive min too short", "recrawl:\n  interval: 1h\n  mode: adaptive\n  min_interval: 0s", "recrawl.min_interval", 4},
		{"adaptive min above interval", "recrawl:\n  interval: 1h\n  mode: adaptive\n  min_interval: 2h", "recrawl.min_interval", 4},
		{"adaptive max below interval", "recrawl:\n  interval: 48h\n  mode: adaptive\n  max_interval: 24h", "recrawl.max_interval", 4},
		{"content signal use", "robots:\n  content_signal_use: training", "robots.content_signal_use", 2},
		{"no links per page", "scope:\n  max_links_per_page: 0", "scope.max_links_per_page", 2},
		{"too many links per page", "scope:\n  max_links_per_page: 1000001", "scope.max_links_per_page", 2},
		{"negative link batch", "frontier:\n  link_batch: -1", "frontier.link_batch", 2},
		{"huge link batch", "frontier:\n  link_batch: 10000001", "frontier.link_batch", 2},
		{"negative fold links", "frontier:\n  fold_links: -1", "frontier.fold_links", 2},
		{"huge fold links", "frontier:\n  fold_links: 10000001", "frontier.fold_links", 2},
		{"negative log batch", "frontier:\n  log_batch: -5", "frontier.log_batch", 2},
		{"huge log batch", "frontier:\n  link_batch: 0\n  log_batch: 20000000", "frontier.log_batch", 3},
		{"negative link cache", "frontier:\n  link_cache: -1", "frontier.link_cache", 2},
		{"huge link cache", "frontier:\n  link_cache: 10000001", "frontier.link_cache", 2},
		{"http2", "fetch:\n  http2: maybe", "fetch.http2", 2},
		{"proxy scheme", "fetch:\n  proxy: ftp://proxy.test", "fetch.proxy", 2},
		{"socks5h proxy", "fetch:\n  proxy: socks5h://proxy.test", "fetch.proxy", 2},
		{"no_proxy alone", "fetch:\n  no_proxy: [a.test]", "fetch.no_proxy", 2},
		{"no_proxy pattern", "fetch:\n  proxy: http://p.test:3128\n  no_proxy: [\"a.test:80\"]", "fetch.no_proxy", 3},
		{"header user agent", "fetch:\n  headers:\n    \"*\": {User-Agent: Mozilla}", "fetch.headers", 2},
		{"header cookie", "fetch:\n  headers:\n    a.test: {Cookie: a=b}", "fetch.headers", 2},
		{"auth everywhere", "fetch:\n  auth:\n    - {hosts: \"*\", token: t}", "fetch.auth", 2},
		{"auth empty", "fetch:\n  auth:\n    - {hosts: a.test}", "fetch.auth", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = cfg.Validate()
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Validate() = %v, want a *Error", err)
			}
			if ce.Field != tt.field || ce.Line != tt.line {
				t.Errorf("Validate():\n\tgot  field %q line %d (%v)\n\twant field %q line %d", ce.Field, ce.Line, err, tt.field, tt.line)
			}
		})
	}
}

// In fixed mode the adaptive bounds do not apply: a short interval is valid with the
// default min_interval.
func TestValidateFixedIgnoresBounds(t *testing.T) {
	cfg := Default()
	cfg.Recrawl.Interval = Duration(time.Second)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("fixed 1s: %v", err)
	}
	cfg.Recrawl.Mode = RecrawlAdaptive
	var ce *Error
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Field != "recrawl.min_interval" {
		t.Fatalf("adaptive 1s with the default min_interval: %v, want a recrawl.min_interval error", err)
	}
	cfg.Recrawl.MinInterval = Duration(time.Second)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("adaptive 1s, min 1s: %v", err)
	}
}

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want ByteSize
		ok   bool
	}{
		{"1024", 1024, true}, {"10MiB", 10 << 20, true}, {"500KB", 500000, true},
		{"1GiB", 1 << 30, true}, {"1.5KiB", 1536, true}, {"2 mib", 2 << 20, true},
		{"", 0, false}, {"-1KB", 0, false}, {"MiB", 0, false}, {"1e30GB", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseByteSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseByteSize(%q):\n\tgot  %v, %v\n\twant %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzParseConfig: hostile YAML never panics, and a configuration that parses and
// validates always has usable values.
func FuzzParseConfig(f *testing.F) {
	example, _ := os.ReadFile("../config.example.yaml")
	f.Add(string(example))
	f.Add("workers: 4\nscope:\n  mode: any\n")
	f.Add("a: &a [*a, *a]\n")
	f.Add("politeness: {min_delay: 1e308}\n")
	f.Add("fetch:\n  max_body_size: 99999999999999999999TiB\n")
	f.Fuzz(func(t *testing.T, in string) {
		cfg, err := Parse(strings.NewReader(in))
		if err != nil {
			return
		}
		if cfg.Validate() != nil {
			return
		}
		if cfg.Workers < 1 || cfg.Politeness.PerHost < 1 || cfg.Politeness.MinDelay < 0 || cfg.Fetch.MaxBodySize <= 0 {
			t.Fatalf("valid config with unusable values: %+v", cfg)
		}
	})
}

func TestParseDepth(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Depth
		ok   bool
	}{
		{"0", Unlimited, true}, {"3", 3, true}, {" seeds ", SeedsOnly, true}, {"Seeds", SeedsOnly, true},
		{"unlimited", Unlimited, true}, {"-1", SeedsOnly, true}, {"-2", 0, false}, {"deep", 0, false}, {"", 0, false},
	} {
		got, err := ParseDepth(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseDepth(%q):\n\tgot %v, %v\n\twant %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	cfg, err := Parse(strings.NewReader("seeds: [http://a.test/]\nscope:\n  max_depth: seeds\n  max_duration: 2h\n"))
	if err != nil || cfg.Scope.MaxDepth != SeedsOnly || time.Duration(cfg.Scope.MaxDuration) != 2*time.Hour {
		t.Errorf("Parse: max_depth %v, max_duration %v, err %v; want seeds, 2h0m0s", cfg.Scope.MaxDepth, cfg.Scope.MaxDuration, err)
	}
	if _, err := Parse(strings.NewReader("scope:\n  max_depth: [1]\n")); err == nil {
		t.Error("Parse(max_depth: [1]): no error")
	}
}

func TestAccessSecretsNotQuoted(t *testing.T) {
	cfg, err := Parse(strings.NewReader("fetch:\n  proxy: gopher://user:hunter2@p.test\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Validate()
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "user:xxxxx@p.test") {
		t.Errorf("Validate() = %v, want an error naming the proxy with its password redacted", err)
	}
	cfg.Fetch.Proxy = ""
	cfg.Fetch.CookiesFile = "/nonexistent/cookies.txt"
	if _, err := cfg.Fetch.Cookies(); !errors.As(err, new(*Error)) || !strings.Contains(err.Error(), "fetch.cookies_file") {
		t.Errorf("Cookies() of a missing file = %v, want a *Error naming fetch.cookies_file", err)
	}
}

func TestAccess(t *testing.T) {
	cfg, err := Parse(strings.NewReader(`fetch:
  headers:
    "*": {Accept-Language: en}
    docs.example.org: {X-Archive: "yes", Accept-Language: fr}
  auth:
    - {hosts: "=intranet.example.org", user: ann, password: pw}
    - {hosts: api.example.org, token: tok}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	headers, auth := cfg.Fetch.Access()
	if len(headers) != 2 || headers[0].Hosts != "*" || headers[0].Header.Get("Accept-Language") != "en" ||
		headers[1].Hosts != "docs.example.org" || headers[1].Header.Get("X-Archive") != "yes" {
		t.Errorf("headers: got %+v", headers)
	}
	if len(auth) != 2 || auth[0].Hosts != "=intranet.example.org" || auth[0].Username != "ann" || auth[0].Password != "pw" ||
		auth[1].Token != "tok" {
		t.Errorf("auth: got %+v", auth)
	}
}
