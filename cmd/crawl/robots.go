package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/robots"
)

func init() {
	register("robots", "explain robots.txt decisions for URLs", runRobots)
}

// robotsSource is one robots.txt the command read: its rules and where they came from.
type robotsSource struct {
	rules  *robots.Robots
	origin string // the file name, or the robots.txt URL with its status
	// fetchErr is why the robots.txt could not be fetched at all (no HTTP status):
	// the decision for its URLs is unknown, not "disallowed".
	fetchErr error
}

func runRobots(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("robots", "usage: crawl robots [-agent TOKEN] [-file robots.txt] [-config FILE] URL...\n\n"+
		"Prints, for each URL, whether the agent may fetch it under RFC 9309 and the rule\n"+
		"that decided, then the crawl-delay, request-rate, visit-time, content-signal and\n"+
		"sitemaps of that robots.txt. Without -file, each URL's live robots.txt is fetched\n"+
		"(up to 5 redirects) and its status applied as RFC 9309 §2.3.1 says.")
	agent := fs.String("agent", config.DefaultUserAgent, "product `token` or whole User-Agent value whose rules apply")
	file := fs.String("file", "", "read robots.txt from this `file` instead of fetching each URL's live robots.txt")
	allowPrivate := fs.Bool("allow-private", false, "allow fetching robots.txt from loopback and private addresses")
	configFile := fs.String("config", "", "read the fetch and network sections (fetch.ca_file, fetch.insecure_skip_verify, network.allow_private, ...) from this YAML `file`, as a crawl does")
	timeoutFlag := config.Duration(30 * time.Second)
	fs.Var(&timeoutFlag, "timeout", "deadline of each robots.txt fetch, a `time` such as 30s or 30 (seconds)")
	timeout := (*time.Duration)(&timeoutFlag)
	urls, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(urls) == 0 {
		fs.Usage()
		return usagef("robots: no URL given")
	}
	token := robots.AgentToken(*agent)
	if token == "" {
		return usagef("robots: -agent %q does not start with a product token (letters, '_' and '-')", *agent)
	}

	var fixed *robotsSource
	if *file != "" {
		body, err := readLimited(*file, robots.MaxSize)
		if err != nil {
			return usagef("robots: %v", err)
		}
		fixed = &robotsSource{rules: robots.Parse(body), origin: *file}
	}
	var live *liveRobots
	if fixed == nil {
		cfg := config.Default()
		if *configFile != "" {
			if cfg, err = loadConfig(*configFile); err != nil {
				return err
			}
			if cfg.Fetch.InsecureSkipVerify {
				fmt.Fprintln(m.Stderr, "warning: fetch.insecure_skip_verify is on: TLS certificates are not checked, so anyone on the path can pose as a site")
			}
		}
		cfg.UserAgent = *agent
		cfg.Fetch.Timeout = config.Duration(*timeout)
		cfg.Network.AllowPrivate = cfg.Network.AllowPrivate || *allowPrivate
		client, err := crawl.NewRobotsClient(cfg)
		var ce *config.Error
		if errors.As(err, &ce) && ce.Field == "user_agent" {
			// The agent is also sent as the User-Agent header; a bare token may be
			// refused there, so fall back to the default header and keep the token
			// for matching.
			cfg.UserAgent = config.DefaultUserAgent
			client, err = crawl.NewRobotsClient(cfg)
		}
		if err != nil {
			return err
		}
		live = &liveRobots{client: client, byAuthority: map[string]*robotsSource{}}
	}

	printed := map[*robotsSource]bool{}
	var order []*robotsSource
	for _, raw := range urls {
		src := fixed
		if src == nil {
			var err error
			src, err = live.get(ctx, raw)
			if err != nil {
				return usagef("robots: %v", err)
			}
		}
		if !printed[src] {
			printed[src] = true
			order = append(order, src)
		}
		if src.fetchErr != nil {
			fmt.Fprintf(m.Stdout, "%-10s %s\trobots.txt not fetched: %v\n", "unreachable", raw, src.fetchErr)
			continue
		}
		d := src.rules.Match(token, raw)
		verdict := "disallowed"
		if d.Allowed {
			verdict = "allowed"
		}
		fmt.Fprintf(m.Stdout, "%-10s %s\t%s\n", verdict, raw, d)
	}
	failed := 0
	for _, src := range order {
		describeRobots(m.Stdout, src, token)
		if src.fetchErr != nil {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("robots: %d of %d robots.txt unreachable (not fetched): no decision for their URLs", failed, len(order))
	}
	return nil
}

// describeRobots prints what a robots.txt asks of token besides allow and disallow.
func describeRobots(w io.Writer, src *robotsSource, token string) {
	g := src.rules.Group(token)
	fmt.Fprintf(w, "\nrobots.txt: %s\n", src.origin)
	if src.fetchErr != nil {
		fmt.Fprintln(w, "  unreachable: not fetched; a crawl fetches nothing on this site until it can be")
		if errors.Is(src.fetchErr, crawl.ErrAddressRefused) {
			fmt.Fprintln(w, "  (a loopback or private address: -allow-private allows it)")
		}
		return
	}
	if src.rules.Unreachable() {
		fmt.Fprintln(w, "  unreachable: everything but /robots.txt is disallowed until it can be fetched")
	}
	if len(g.Agents) > 0 {
		fmt.Fprintf(w, "  groups for %s: user-agent %s\n", token, strings.Join(g.Agents, ", "))
	} else {
		fmt.Fprintf(w, "  groups for %s: none\n", token)
	}
	if g.CrawlDelay > 0 {
		fmt.Fprintf(w, "  crawl-delay: %s\n", g.CrawlDelay)
	}
	if !g.RequestRate.IsZero() {
		fmt.Fprintf(w, "  request-rate: %s\n", g.RequestRate)
	}
	for _, v := range g.VisitTimes {
		fmt.Fprintf(w, "  visit-time: %s\n", v)
	}
	if len(g.ContentSignal) > 0 {
		keys := make([]string, 0, len(g.ContentSignal))
		for k := range g.ContentSignal {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		pairs := make([]string, len(keys))
		for i, k := range keys {
			pairs[i] = k + "=" + g.ContentSignal[k]
		}
		fmt.Fprintf(w, "  content-signal: %s\n", strings.Join(pairs, ", "))
	}
	for _, s := range src.rules.Sitemaps() {
		fmt.Fprintf(w, "  sitemap: %s\n", s)
	}
}

// liveRobots fetches each authority's robots.txt once.
type liveRobots struct {
	client      *crawl.RobotsClient
	byAuthority map[string]*robotsSource
}

func (l *liveRobots) get(ctx context.Context, raw string) (*robotsSource, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute http or https URL (use -file for paths)", raw)
	}
	authority := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
	if src, ok := l.byAuthority[authority]; ok {
		return src, nil
	}
	robotsURL := authority + "/robots.txt"
	res, err := l.client.Fetch(ctx, robotsURL)
	var src *robotsSource
	if err != nil {
		src = &robotsSource{rules: robots.FromStatus(0, nil), origin: fmt.Sprintf("%s (not fetched: %v)", robotsURL, err), fetchErr: err}
	} else {
		origin := fmt.Sprintf("%s (status %d)", robotsURL, res.Status)
		if res.FinalURL != "" && res.FinalURL != robotsURL {
			origin = fmt.Sprintf("%s → %s (status %d)", robotsURL, res.FinalURL, res.Status)
		}
		src = &robotsSource{rules: robots.FromStatus(res.Status, res.Body), origin: origin}
	}
	l.byAuthority[authority] = src
	return src, nil
}

// readLimited reads at most limit bytes of the file at path: robots.txt past MaxSize is
// ignored anyway.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}
