package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/politecrawl/crawl/crawltest"
)

// authServer starts a NATS server with JetStream that requires user alice with
// password pw, or (user "") the token pw.
func authServer(t *testing.T, user, pw string) *server.Server {
	t.Helper()
	o := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	if user != "" {
		o.Users = []*server.User{{Username: user, Password: pw}}
	} else {
		o.Authorization = pw
	}
	srv, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Shutdown)
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	return srv
}

// TestCredentialsNeverPrinted: a NATS URL with a user and password or a token in it is
// never written out, neither to stderr nor crawl.log nor status.json, whether the join
// succeeds or the server refuses the credentials.
func TestCredentialsNeverPrinted(t *testing.T) {
	farm, err := crawltest.Start(crawltest.Generate(crawltest.GenerateOptions{Hosts: 1, PagesPerHost: 2, LinksPerPage: 1, Seed: 3})...)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	var resolve strings.Builder
	for k, v := range farm.Resolve() {
		fmt.Fprintf(&resolve, "    %q: %q\n", k, v)
	}
	userSrv := authServer(t, "alice", "S3cretPassw0rd")
	tokenSrv := authServer(t, "", "T0kenSecr3tValue")
	hostOf := func(s *server.Server) string { return strings.TrimPrefix(s.ClientURL(), "nats://") }
	for _, tc := range []struct {
		name, url, secret string
		ok                bool
	}{
		{"user", "nats://alice:S3cretPassw0rd@" + hostOf(userSrv), "S3cretPassw0rd", true},
		{"wrong password", "nats://alice:Wr0ngPassw0rd@" + hostOf(userSrv), "Wr0ngPassw0rd", false},
		{"token", "nats://T0kenSecr3tValue@" + hostOf(tokenSrv), "T0kenSecr3tValue", true},
		{"wrong token", "nats://Wr0ngT0kenValue@" + hostOf(tokenSrv), "Wr0ngT0kenValue", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			config := writeFile(t, "crawl.yaml", fmt.Sprintf("data_dir: %q\nseeds: %s\npoliteness:\n  min_delay: 10ms\n"+
				"network:\n  allow_private: true\n  resolve:\n%scluster:\n  url: %q\n  shard_count: 4\n  shards: 0-3\n  report_every: 100ms\n  lease: 1s\n",
				data, mustJSON(farm.Seeds()), resolve.String(), tc.url))
			code, out, errOut := runFor(t, "-config", config, "-progress", "none")
			if tc.ok != (code == 0) {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if !tc.ok && !strings.Contains(errOut, "***@") {
				t.Errorf("the error does not name the server (redacted):\n%s", errOut)
			}
			if _, err := os.Stat(data); !tc.ok && !os.IsNotExist(err) {
				t.Errorf("the refused process left its data directory: %v", err)
			}
			for what, text := range map[string]string{"stdout": out, "stderr": errOut,
				"crawl.log": readIfAny(t, filepath.Join(data, "crawl.log")), "status.json": readIfAny(t, filepath.Join(data, "status.json"))} {
				if strings.Contains(text, tc.secret) {
					t.Errorf("%s shows the secret:\n%s", what, text)
				}
			}
		})
	}
}

// readIfAny returns a file's content, "" if it does not exist.
func readIfAny(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}
