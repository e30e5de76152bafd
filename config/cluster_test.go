package config

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateCluster(t *testing.T) {
	const base = "cluster:\n  url: nats://127.0.0.1:4222\n  shards: 0-15\n"
	tests := []struct {
		name  string
		in    string
		field string // "" means valid
		line  int
	}{
		{"single process", "cluster:\n  stream: X\n", "", 0},
		{"shards without url", "cluster:\n  shards: 0-3\n", "cluster.shards", 2},
		{"minimal", base, "", 0},
		{"several urls", "cluster:\n  url: nats://a:4222, tls://b:4222\n  shards: 0\n", "", 0},
		{"bad scheme", "cluster:\n  url: http://a:4222\n  shards: 0\n", "cluster.url", 2},
		{"no host", "cluster:\n  url: nats://\n  shards: 0\n", "cluster.url", 2},
		{"no shards", "cluster:\n  url: nats://a:4222\n", "cluster.shards", 0},
		{"shard out of range", "cluster:\n  url: nats://a:4222\n  shard_count: 16\n  shards: 0-16\n", "cluster.shards", 4},
		{"bad shard list", "cluster:\n  url: nats://a:4222\n  shards: many\n", "cluster.shards", 3},
		{"zero shard count", base + "  shard_count: 0\n", "cluster.shard_count", 4},
		{"stream with dot", base + "  stream: a.b\n", "cluster.stream", 4},
		{"empty stream", base + "  stream: \"\"\n", "cluster.stream", 4},
		{"name with space", base + "  name: \"web 1\"\n", "cluster.name", 4},
		{"name", base + "  name: web1\n", "", 0},
		{"token and user", base + "  token: t\n  user: u\n", "cluster.token", 4},
		{"password alone", base + "  password: p\n", "cluster.password", 4},
		{"user and password", base + "  user: u\n  password: p\n", "", 0},
		{"creds and token", base + "  creds_file: x.creds\n  token: t\n", "cluster.creds_file", 4},
		{"cert without key", base + "  cert_file: c.pem\n", "cluster.cert_file", 4},
		{"replicas", base + "  replicas: 0\n", "cluster.replicas", 4},
		{"ack wait", base + "  ack_wait: 0s\n", "cluster.ack_wait", 4},
		{"report too often", base + "  report_every: 10ms\n", "cluster.report_every", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = cfg.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
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

func TestProcessName(t *testing.T) {
	got := Cluster{Shards: "0-15,32"}.ProcessName()
	if !processName.MatchString(got) || !strings.HasSuffix(got, "-shards-0-15_32") {
		t.Errorf("ProcessName() of shards %q = %q, want a valid name ending in -shards-0-15_32", "0-15,32", got)
	}
	if got := (Cluster{Name: "web1", Shards: "0-3"}).ProcessName(); got != "web1" {
		t.Errorf("ProcessName() with name web1 = %q", got)
	}
}
