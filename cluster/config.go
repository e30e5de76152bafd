package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// DefaultStream is the stream name of a crawl whose Config leaves Stream empty.
const DefaultStream = "POLITECRAWL"

// Defaults for the zero values of Config's durations.
const (
	DefaultAckWait    = 30 * time.Second
	DefaultStaleAfter = 30 * time.Second
)

// Config says how a process joins a crawl shared through NATS JetStream. The zero value
// of each field is documented; URL and Own are required by Join.
type Config struct {
	// URL is the NATS server, or several separated by commas:
	// nats://host:port[,nats://host:port]; tls:// forces TLS. Empty means single-process
	// mode: the engine does not call Join at all.
	URL string
	// Name is this process's name, unique in the crawl: its key in the state bucket.
	// Letters, digits, '-' and '_'; other characters become '_'. Empty means
	// "<hostname>-<owned shards>" (say "crawler1-0-15_32"), the same when the process is
	// started again, so that it takes its own place back at once.
	Name string
	// Stream is the JetStream stream of this crawl: letters, digits, '-' and '_'. Its
	// subjects are "<Stream>.shard.<n>" and its state bucket "<Stream>_state", so crawls
	// with different streams share a NATS server. Empty means DefaultStream.
	Stream string
	// Shards is the crawl's shard count, fixed when the crawl is created (by the first
	// Join) and checked on every later Join. Zero means DefaultShards for Join, and
	// "whatever the crawl has" for Status.
	Shards int
	// Own lists the shards this process owns (see ParseShards).
	Own []int

	// User and Password authenticate with a NATS user; Token with a token; CredsFile
	// with a NATS credentials file (JWT and NKey seed). Empty means not used.
	User, Password, Token, CredsFile string
	// CAFile is a PEM file of the certificate authorities trusted for the server's
	// certificate (empty: the system's); CertFile and KeyFile are this client's
	// certificate and key for servers that verify clients (both or neither).
	CAFile, CertFile, KeyFile string

	// Replicas is the number of copies the stream and bucket keep in a NATS cluster,
	// set when they are created. Zero means 1.
	Replicas int
	// AckWait is how long a handed-off batch may stay unacknowledged by its owner before
	// JetStream delivers it again (to the restarted owner after a crash). A batch whose
	// intake runs longer is kept alive by progress signals. Zero means DefaultAckWait.
	AckWait time.Duration
	// StaleAfter is the age after which the report of a process that has not said it
	// stopped counts as the report of a dead process (see Finished). It should be several
	// times the report interval. Zero means DefaultStaleAfter.
	StaleAfter time.Duration
	// Lease is how long after its last report that the server stored this process may
	// go on fetching its shards' hosts without reaching NATS again (see AwaitLease): the
	// fencing of shard ownership. It must be under StaleAfter, after which another
	// process may take the shards over; the difference covers the machines' clocks
	// disagreeing and a request that was about to be sent. Zero means StaleAfter/2.
	Lease time.Duration
	// Log receives what the node skips or retries (damaged messages, publish retries).
	// Nil means slog.Default().
	Log *slog.Logger
}

var streamRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// withDefaults returns c with zero values replaced by their defaults.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		host, _ := os.Hostname()
		own := slices.Clone(c.Own)
		slices.Sort(own)
		c.Name = host + "-" + FormatShards(own)
		if len(own) == 0 {
			c.Name = fmt.Sprintf("%s-pid%d", host, os.Getpid())
		}
	}
	c.Name = cleanName(c.Name)
	if c.Stream == "" {
		c.Stream = DefaultStream
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.AckWait == 0 {
		c.AckWait = DefaultAckWait
	}
	if c.StaleAfter == 0 {
		c.StaleAfter = DefaultStaleAfter
	}
	if c.Lease == 0 {
		c.Lease = c.StaleAfter / 2
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return c
}

// cleanName maps every character outside [A-Za-z0-9_-] to '_'.
func cleanName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// validate checks a Config that has its defaults.
func (c *Config) validate() error {
	if c.URL == "" {
		return errors.New("cluster: no NATS URL")
	}
	if !streamRE.MatchString(c.Stream) {
		return fmt.Errorf("cluster: stream name %q: only letters, digits, '-' and '_'", c.Stream)
	}
	if c.Shards < 0 || c.Shards > MaxShards {
		return fmt.Errorf("cluster: shard count %d out of range 1..%d", c.Shards, MaxShards)
	}
	if c.Replicas < 1 || c.Replicas > 5 {
		return fmt.Errorf("cluster: replicas %d out of range 1..5", c.Replicas)
	}
	if c.AckWait < time.Second {
		return fmt.Errorf("cluster: ack wait %v is under 1s", c.AckWait)
	}
	if c.StaleAfter < 0 {
		return fmt.Errorf("cluster: stale-after %v is negative", c.StaleAfter)
	}
	if c.Lease <= 0 || c.Lease >= c.StaleAfter {
		return fmt.Errorf("cluster: lease %v is not between 0 and stale-after (%v)", c.Lease, c.StaleAfter)
	}
	if c.Token != "" && (c.User != "" || c.CredsFile != "") {
		return errors.New("cluster: token given with user or creds file: use one way to authenticate")
	}
	if c.User != "" && c.CredsFile != "" {
		return errors.New("cluster: user given with creds file: use one way to authenticate")
	}
	if c.Password != "" && c.User == "" {
		return errors.New("cluster: password without user")
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return errors.New("cluster: client certificate and key go together")
	}
	for _, f := range []string{c.CredsFile, c.CAFile, c.CertFile, c.KeyFile} {
		if f == "" {
			continue
		}
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
	}
	return nil
}

// connect opens a NATS connection as c says. The connection reconnects forever, so a
// restarted server is picked up again.
func (c *Config) connect() (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name("politecrawl " + c.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(250*time.Millisecond, time.Second),
		nats.Timeout(5 * time.Second),
	}
	if c.User != "" {
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	if c.Token != "" {
		opts = append(opts, nats.Token(c.Token))
	}
	if c.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	}
	if c.CAFile != "" {
		opts = append(opts, nats.RootCAs(c.CAFile))
	}
	if c.CertFile != "" {
		opts = append(opts, nats.ClientCert(c.CertFile, c.KeyFile))
	}
	nc, err := nats.Connect(c.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect %s: %w", RedactURL(c.URL), err)
	}
	return nc, nil
}

// RedactURL returns a NATS server URL, or several separated by commas, with the user
// information of each (user and password, or token) replaced by "***", for logs and
// errors. It works on the text, so that even a URL that does not parse is redacted.
func RedactURL(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		if at := strings.LastIndex(p, "@"); at >= 0 {
			if s := strings.Index(p, "://"); s >= 0 && s < at {
				parts[i] = p[:s+3] + "***" + p[at:]
			} else if s < 0 {
				parts[i] = "***" + p[at:]
			}
		}
	}
	return strings.Join(parts, ",")
}
