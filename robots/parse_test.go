package robots

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseSyntax(t *testing.T) {
	tests := []struct {
		name string
		body string
		// Each body disallows /x and allows the rest for "bot" when read right.
	}{
		{"LF", "user-agent: bot\ndisallow: /x\n"},
		{"CRLF", "user-agent: bot\r\ndisallow: /x\r\n"},
		{"CR", "user-agent: bot\rdisallow: /x\r"},
		{"no final newline", "user-agent: bot\ndisallow: /x"},
		{"BOM", "\xEF\xBB\xBFuser-agent: bot\ndisallow: /x\n"},
		{"comments", "# head\nuser-agent: bot # me\n# between\ndisallow: /x# tail\n"},
		{"spaces and tabs", " \t user-agent \t : \t bot \t \n\tdisallow\t:\t/x\t \n"},
		{"upper case keys", "USER-AGENT: bot\nDISALLOW: /x\n"},
		{"mixed case keys", "User-Agent: bot\nDisAllow: /x\n"},
		{"whitespace separator", "user-agent bot\ndisallow /x\n"},
		{"whitespace then colon", "user-agent :bot\ndisallow : /x\n"},
		{"useragent", "useragent: bot\ndisallow: /x\n"},
		{"user agent", "user agent: bot\ndisallow: /x\n"},
		{"User Agent no colon", "User Agent bot\ndisallow: /x\n"},
		{"disalow", "user-agent: bot\ndisalow: /x\n"},
		{"dissallow", "user-agent: bot\ndissallow: /x\n"},
		{"blank lines", "\n\nuser-agent: bot\n\n\ndisallow: /x\n\n"},
		{"no leading slash", "user-agent: bot\ndisallow: x\n"},
		{"junk lines", "user-agent: bot\n:::\n=x\n<html>\ndisallow: /x\n"},
		{"agent with version", "user-agent: Bot/2.1\ndisallow: /x\n"},
		{"agent upper case", "user-agent: BOT\ndisallow: /x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runChecks(t, tt.body, []check{
				{"bot", "/x", false},
				{"bot", "/x/y", false},
				{"bot", "/", true},
				{"bot", "/y", true},
			})
		})
	}
}

func TestParseLineNumbers(t *testing.T) {
	for _, eol := range []string{"\n", "\r", "\r\n"} {
		body := strings.Join([]string{"# c", "user-agent: bot", "", "allow: /a", "disallow: /", ""}, eol)
		r := Parse([]byte(body))
		d := r.Match("bot", "/a")
		if d.Rule == nil || d.Rule.Line != 4 || !d.Rule.Allow || d.Rule.Pattern != "/a" {
			t.Errorf("eol %q: Match(/a):\n\tgot %+v\n\twant allow /a on line 4", eol, d.Rule)
		}
		d = r.Match("bot", "/b")
		if d.Rule == nil || d.Rule.Line != 5 || d.Rule.Allow {
			t.Errorf("eol %q: Match(/b):\n\tgot %+v\n\twant disallow / on line 5", eol, d.Rule)
		}
	}
	// A lone CR followed by LF is one line ending; CR CR is two.
	r := Parse([]byte("user-agent: bot\r\rdisallow: /\n"))
	if d := r.Match("bot", "/"); d.Rule == nil || d.Rule.Line != 3 {
		t.Errorf("CR CR: got %+v, want line 3", d.Rule)
	}
}

func TestParseMaxSize(t *testing.T) {
	head := "user-agent: *\ndisallow: /a\n"
	tail := "disallow: /b\n"
	pad := func(n int) string { return "#" + strings.Repeat("x", n-2) + "\n" }
	for _, tt := range []struct {
		name  string
		body  string
		wantB bool // whether /b is allowed
	}{
		{"just under", head + pad(MaxSize-len(head)-len(tail)-1) + tail, false},
		{"exactly at", head + pad(MaxSize-len(head)-len(tail)) + tail, false},
		{"without final newline", head + pad(MaxSize-len(head)-len(tail)+1) + tail[:len(tail)-1], false},
		{"just over", head + pad(MaxSize-len(head)) + tail, true},
		{"far over", head + pad(MaxSize) + tail, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse([]byte(tt.body))
			if r.Allowed("bot", "/a") {
				t.Errorf("/a allowed, want disallowed")
			}
			if got := r.Allowed("bot", "/b"); got != tt.wantB {
				t.Errorf("len %d: /b allowed:\n\tgot %v\n\twant %v", len(tt.body), got, tt.wantB)
			}
		})
	}
}

func TestParseLongLines(t *testing.T) {
	long := "/" + strings.Repeat("a", 70<<10)
	body := "# " + strings.Repeat("c", 100<<10) + "\nuser-agent: *\ndisallow: " + long + "\ndisallow: /short\n"
	runChecks(t, body, []check{
		{"bot", long, false},
		{"bot", long + "/more", false},
		{"bot", long[:len(long)-1], true},
		{"bot", "/short", false},
	})
}

func TestParseGroups(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		checks []check
	}{
		{
			name: "consecutive user-agent lines share a group",
			body: "user-agent: a\nuser-agent: b\ndisallow: /x\n",
			checks: []check{
				{"a", "/x", false}, {"b", "/x", false}, {"c", "/x", true},
			},
		},
		{
			name: "user-agent after a rule opens a new group",
			body: "user-agent: a\ndisallow: /x\nuser-agent: b\ndisallow: /y\n",
			checks: []check{
				{"a", "/x", false}, {"a", "/y", true}, {"b", "/x", true}, {"b", "/y", false},
			},
		},
		{
			name: "empty disallow still ends the user-agent run",
			body: "user-agent: a\ndisallow:\nuser-agent: b\ndisallow: /y\n",
			checks: []check{
				{"a", "/y", true}, {"b", "/y", false},
			},
		},
		{
			name: "sitemap and unknown lines do not end a group",
			body: "user-agent: a\nsitemap: https://e.com/s.xml\nfoo: bar\ncrawl-delay: 3\nuser-agent: b\ndisallow: /x\n",
			checks: []check{
				{"a", "/x", false}, {"b", "/x", false},
			},
		},
		{
			name: "rules before the first user-agent are ignored",
			body: "disallow: /x\nallow: /y\nuser-agent: a\ndisallow: /y\n",
			checks: []check{
				{"a", "/x", true}, {"a", "/y", false}, {"b", "/x", true},
			},
		},
		{
			name: "matching groups merge",
			body: "user-agent: a\ndisallow: /x\nuser-agent: *\ndisallow: /z\nuser-agent: A\ndisallow: /y\n",
			checks: []check{
				{"a", "/x", false}, {"a", "/y", false}, {"a", "/z", true},
			},
		},
		{
			name: "star groups merge when nothing matches",
			body: "user-agent: *\ndisallow: /x\nuser-agent: a\ndisallow: /z\nuser-agent: *\ndisallow: /y\n",
			checks: []check{
				{"b", "/x", false}, {"b", "/y", false}, {"b", "/z", true}, {"a", "/x", true},
			},
		},
		{
			name:   "no group and no star allows everything",
			body:   "user-agent: a\ndisallow: /\n",
			checks: []check{{"b", "/", true}, {"b", "/x", true}, {"a", "/x", false}},
		},
		{
			name:   "product token is case-insensitive",
			body:   "user-agent: ExampleBot\ndisallow: /\n",
			checks: []check{{"examplebot", "/", false}, {"EXAMPLEBOT", "/", false}, {"ExampleBot", "/", false}},
		},
		{
			name: "whole User-Agent value",
			body: "user-agent: ExampleBot\ndisallow: /\n",
			checks: []check{
				{"ExampleBot/2.1 (+https://example.com/bot)", "/", false},
				{"Mozilla/5.0 (compatible; ExampleBot/2.1)", "/", true},
			},
		},
		{
			name:   "token must match whole: no prefix match",
			body:   "user-agent: Example\ndisallow: /\n",
			checks: []check{{"ExampleBot", "/", true}, {"Example", "/", false}, {"Example-News", "/", true}},
		},
		{
			name:   "group with no rules matches and allows",
			body:   "user-agent: *\ndisallow: /\nuser-agent: a\n",
			checks: []check{{"a", "/x", true}, {"b", "/x", false}},
		},
		{
			name: "empty file", body: "",
			checks: []check{{"a", "/", true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runChecks(t, tt.body, tt.checks) })
	}
}

func TestMatchRules(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		checks []check
	}{
		{
			name: "longest pattern wins",
			body: "user-agent: *\ndisallow: /a\nallow: /a/b\ndisallow: /a/b/c\n",
			checks: []check{
				{"x", "/a", false}, {"x", "/a/b", true}, {"x", "/a/b/c", false}, {"x", "/a/bc", true},
			},
		},
		{
			name:   "allow wins a tie",
			body:   "user-agent: *\ndisallow: /a\nallow: /a\ndisallow: /b*\nallow: /*b\n",
			checks: []check{{"x", "/a", true}, {"x", "/b", true}},
		},
		{
			name:   "longest counts octets after normalising",
			body:   "user-agent: *\nallow: /%7Ea\ndisallow: /~a\n",
			checks: []check{{"x", "/~a", true}},
		},
		{
			name:   "empty disallow is no rule",
			body:   "user-agent: *\ndisallow:\n",
			checks: []check{{"x", "/", true}, {"x", "/a", true}},
		},
		{
			name: "robots.txt is always allowed",
			body: "user-agent: *\ndisallow: /\n",
			checks: []check{
				{"x", "/robots.txt", true}, {"x", "https://e.com/robots.txt", true}, {"x", "/robots.txt.bak", false},
			},
		},
		{
			name: "fragment ignored, empty path is slash, query counts",
			body: "user-agent: *\ndisallow: /$\ndisallow: /*?sid=\n",
			checks: []check{
				{"x", "https://e.com", false}, {"x", "https://e.com#x", false}, {"x", "https://e.com/#top", false},
				{"x", "https://e.com/a#?sid=", true}, {"x", "https://e.com/a?sid=1", false},
				{"x", "https://e.com?sid=1", false}, {"x", "https://E.com:8080/a", true},
			},
		},
		{
			name: "wildcards",
			body: "user-agent: *\ndisallow: /*.pdf$\ndisallow: /a*b*c\ndisallow: /**z\n",
			checks: []check{
				{"x", "/x.pdf", false}, {"x", "/x.pdf?", true}, {"x", "/x.pdfx", true},
				{"x", "/a-b-c", false}, {"x", "/abc", false}, {"x", "/acb", true}, {"x", "/a/b/c/d", false},
				{"x", "/z", false}, {"x", "/y/z", false},
			},
		},
		{
			name: "dollar inside a pattern is literal",
			body: "user-agent: *\ndisallow: /a$b\n",
			checks: []check{
				{"x", "/a$b", false}, {"x", "/a%24b", false}, {"x", "/a", true},
			},
		},
		{
			name: "matching is case-sensitive",
			body: "user-agent: *\ndisallow: /Private\n",
			checks: []check{
				{"x", "/Private", false}, {"x", "/private", true},
			},
		},
		{
			name: "percent-encoding on both sides",
			body: "user-agent: *\ndisallow: /caf%c3%a9\ndisallow: /a b\ndisallow: /%zz\n",
			checks: []check{
				{"x", "/café", false}, {"x", "/caf%C3%A9", false}, {"x", "/a%20b", false}, {"x", "/a b", false},
				{"x", "/%25zz", false}, {"x", "/%zz", false}, {"x", "/cafe", true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runChecks(t, tt.body, tt.checks) })
	}
}

func TestMatchDecision(t *testing.T) {
	r := Parse([]byte("user-agent: *\ndisallow: /private # staff only\nallow: /private/press\n"))
	tests := []struct {
		url  string
		want Decision
		text string
	}{
		{"/private/x", Decision{false, &Rule{false, "/private", 2}, ByRule}, "disallow: /private (line 2)"},
		{"/private/press/1", Decision{true, &Rule{true, "/private/press", 3}, ByRule}, "allow: /private/press (line 3)"},
		{"/public", Decision{true, nil, NoRule}, "no matching rule"},
		{"/robots.txt", Decision{true, nil, RobotsTxt}, "/robots.txt is always allowed"},
	}
	for _, tt := range tests {
		got := r.Match("bot", tt.url)
		if !reflect.DeepEqual(got, tt.want) || got.String() != tt.text {
			t.Errorf("Match(%q):\n\tgot %+v %q\n\twant %+v %q", tt.url, got, got, tt.want, tt.text)
		}
	}
}

func TestAgentToken(t *testing.T) {
	for _, tt := range []struct{ in, out string }{
		{"ExampleBot", "ExampleBot"},
		{"ExampleBot/2.1 (+https://example.com/bot)", "ExampleBot"},
		{"  my_bot-News/1", "my_bot-News"},
		{"Mozilla/5.0 (compatible; Googlebot/2.1)", "Mozilla"},
		{"*", ""},
		{"", ""},
		{"2bot", ""},
	} {
		if got := AgentToken(tt.in); got != tt.out {
			t.Errorf("AgentToken(%q):\n\tgot %q\n\twant %q", tt.in, got, tt.out)
		}
	}
}

func TestRecords(t *testing.T) {
	body := `sitemap: https://example.com/before-groups.xml
crawl-delay: 9
user-agent: a
user-agent: b
crawl-delay: 2.5
request-rate: 1/10s
visit-time: 0600-0845
content-signal: ai-train=no, search=yes, ai-input=no
disallow: /x
sitemap: https://example.com/sitemap.xml
sitemap: /relative.xml
host: example.com
clean-param: ref /articles/
crawl-delay: soon

user-agent: a
crawl-delay: 4
request-rate: 3/1m
visit-time: 22:00-02:00
content-signal: ai-train=yes, ai-input=no
disallow: /z

user-agent: *
crawl-delay: 1
`
	r := Parse([]byte(body))
	wantSitemaps := []string{"https://example.com/before-groups.xml", "https://example.com/sitemap.xml"}
	if got := r.Sitemaps(); !reflect.DeepEqual(got, wantSitemaps) {
		t.Errorf("Sitemaps:\n\tgot %q\n\twant %q", got, wantSitemaps)
	}
	wantRecords := []Record{
		{"crawl-delay", "9", 2},
		{"sitemap", "/relative.xml", 11},
		{"host", "example.com", 12},
		{"clean-param", "ref /articles/", 13},
		{"crawl-delay", "soon", 14},
	}
	if got := r.Records(); !reflect.DeepEqual(got, wantRecords) {
		t.Errorf("Records:\n\tgot %+v\n\twant %+v", got, wantRecords)
	}
	a := r.Group("a/1.0")
	want := Group{
		Agents:      []string{"a", "b", "a"},
		Rules:       []Rule{{false, "/x", 9}, {false, "/z", 21}},
		CrawlDelay:  4 * time.Second,
		RequestRate: Rate{3, time.Minute}, // 20 s per request: slower than 1/10s
		VisitTimes:  []VisitTime{{6 * 60, 8*60 + 45}, {22 * 60, 2 * 60}},
		ContentSignal: map[string]string{
			"ai-train": "no", "search": "yes", "ai-input": "no",
		},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("Group(a):\n\tgot %+v\n\twant %+v", a, want)
	}
	b := r.Group("b")
	if b.CrawlDelay != 2500*time.Millisecond || b.RequestRate != (Rate{1, 10 * time.Second}) {
		t.Errorf("Group(b): got delay %v rate %v, want 2.5s 1/10s", b.CrawlDelay, b.RequestRate)
	}
	if star := r.Group("c"); star.CrawlDelay != time.Second || len(star.Rules) != 0 {
		t.Errorf("Group(c): got %+v, want delay 1s and no rules", star)
	}
	if got := r.Agents(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Agents: got %q, want [a b]", got)
	}
	if g := Parse([]byte("user-agent: a\ndisallow: /\n")).Group("b"); !reflect.DeepEqual(g, Group{}) {
		t.Errorf("Group with none applying: got %+v, want zero", g)
	}
}

func TestCrawlDelayValues(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration // 0: ignored
	}{
		{"10", 10 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"1.", time.Second},
		{".25", 250 * time.Millisecond},
		{"3s", 3 * time.Second},
		{"0", 0},
		{"-1", 0},
		{"abc", 0},
		{"1e3", 0},
		{"NaN", 0},
		{"Inf", 0},
		{"0x10", 0},
		{"", 0},
		{"99999999999999999999", maxDelay},
	} {
		r := Parse([]byte("user-agent: *\ncrawl-delay: " + tt.in + "\ndisallow: /x\n"))
		if got := r.Group("bot").CrawlDelay; got != tt.want {
			t.Errorf("Crawl-delay %q:\n\tgot %v\n\twant %v", tt.in, got, tt.want)
		}
		if r.Allowed("bot", "/x") {
			t.Errorf("Crawl-delay %q: the rule after it was lost", tt.in)
		}
	}
}

func TestRequestRateValues(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Rate
	}{
		{"1/5", Rate{1, 5 * time.Second}},
		{"1/5s", Rate{1, 5 * time.Second}},
		{"30/1m", Rate{30, time.Minute}},
		{"100/1h", Rate{100, time.Hour}},
		{"1/10m 1800-1959", Rate{1, 10 * time.Minute}},
		{"2/", Rate{2, time.Second}},
		{"0/5", Rate{}},
		{"1/0", Rate{}},
		{"x/5", Rate{}},
		{"5", Rate{}},
		{"-1/5", Rate{}},
	} {
		got := Parse([]byte("user-agent: *\nrequest-rate: " + tt.in + "\n")).Group("bot").RequestRate
		if got != tt.want {
			t.Errorf("Request-rate %q:\n\tgot %+v\n\twant %+v", tt.in, got, tt.want)
		}
	}
	if got := (Rate{30, time.Minute}).Interval(); got != 2*time.Second {
		t.Errorf("Interval of 30/1m: got %v, want 2s", got)
	}
	if got := (Rate{3, 10 * time.Second}).String(); got != "3/10s" {
		t.Errorf("String: got %q, want 3/10s", got)
	}
}

func TestVisitTime(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []VisitTime
	}{
		{"0600-0845", []VisitTime{{360, 525}}},
		{"06:00-08:45", []VisitTime{{360, 525}}},
		{"2300 - 0100", []VisitTime{{1380, 60}}},
		{"2400-0100", []VisitTime{{0, 60}}},
		{"2500-0100", nil},
		{"0660-0100", nil},
		{"600-800", nil},
		{"morning", nil},
	} {
		got := Parse([]byte("user-agent: *\nvisit-time: " + tt.in + "\n")).Group("bot").VisitTimes
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Visit-time %q:\n\tgot %+v\n\twant %+v", tt.in, got, tt.want)
		}
	}
	at := func(h, m int) time.Time { return time.Date(2026, 1, 1, h, m, 0, 0, time.UTC) }
	day, night := VisitTime{360, 525}, VisitTime{1380, 60}
	for _, tt := range []struct {
		v    VisitTime
		t    time.Time
		want bool
	}{
		{day, at(6, 0), true}, {day, at(8, 44), true}, {day, at(8, 45), false}, {day, at(5, 59), false},
		{night, at(23, 30), true}, {night, at(0, 59), true}, {night, at(1, 0), false}, {night, at(12, 0), false},
		{VisitTime{0, 0}, at(12, 0), true},
		{day, at(6, 30).In(time.FixedZone("JST", 9*3600)), true},
	} {
		if got := tt.v.Contains(tt.t); got != tt.want {
			t.Errorf("%v.Contains(%v):\n\tgot %v\n\twant %v", tt.v, tt.t, got, tt.want)
		}
	}
	if got := night.String(); got != "2300-0100" {
		t.Errorf("String: got %q, want 2300-0100", got)
	}
}

func TestFromStatus(t *testing.T) {
	body := []byte("user-agent: *\ndisallow: /private\n")
	for _, tt := range []struct {
		code                 int
		private, public      bool
		unreachable          bool
		reasonPriv, reasonPb Reason
	}{
		{200, false, true, false, ByRule, NoRule},
		{204, false, true, false, ByRule, NoRule},
		{299, false, true, false, ByRule, NoRule},
		{400, true, true, false, Unavailable, Unavailable},
		{401, true, true, false, Unavailable, Unavailable},
		{403, true, true, false, Unavailable, Unavailable},
		{404, true, true, false, Unavailable, Unavailable},
		{410, true, true, false, Unavailable, Unavailable},
		{429, false, false, true, Unreachable, Unreachable},
		{500, false, false, true, Unreachable, Unreachable},
		{503, false, false, true, Unreachable, Unreachable},
		{599, false, false, true, Unreachable, Unreachable},
		{0, false, false, true, Unreachable, Unreachable},
		{100, false, false, true, Unreachable, Unreachable},
		{301, false, false, true, Unreachable, Unreachable},
		{600, false, false, true, Unreachable, Unreachable},
	} {
		r := FromStatus(tt.code, body)
		dp, dq := r.Match("bot", "/private"), r.Match("bot", "/public")
		if dp.Allowed != tt.private || dq.Allowed != tt.public || r.Unreachable() != tt.unreachable ||
			dp.Reason != tt.reasonPriv || dq.Reason != tt.reasonPb || r.Status() != tt.code {
			t.Errorf("FromStatus(%d):\n\tgot private %v (%v), public %v (%v), unreachable %v, status %d\n\twant %v (%v), %v (%v), %v",
				tt.code, dp.Allowed, dp.Reason, dq.Allowed, dq.Reason, r.Unreachable(), r.Status(),
				tt.private, tt.reasonPriv, tt.public, tt.reasonPb, tt.unreachable)
		}
		if !r.Allowed("bot", "/robots.txt") {
			t.Errorf("FromStatus(%d): /robots.txt disallowed", tt.code)
		}
	}
	if Parse([]byte("user-agent: *\ndisallow: /\n")).Unreachable() {
		t.Error("Parse: Unreachable() = true for a real disallow-all")
	}
	var zero Robots
	if !zero.Allowed("bot", "/x") {
		t.Error("zero Robots: /x disallowed")
	}
}

func TestRequestPath(t *testing.T) {
	for _, tt := range []struct{ in, out string }{
		{"https://example.com/a?b#c", "/a?b"},
		{"https://example.com", "/"},
		{"https://example.com?q", "/?q"},
		{"HTTP://example.com:80/a", "/a"},
		{"//example.com/a", "/a"},
		{"/a/b?c", "/a/b?c"},
		{"a/b", "/a/b"},
		{"", "/"},
		{"#frag", "/"},
		{"/a:b", "/a:b"},
		{"https://user:pw@example.com/p", "/p"},
	} {
		if got := requestPath(tt.in); got != tt.out {
			t.Errorf("requestPath(%q):\n\tgot %q\n\twant %q", tt.in, got, tt.out)
		}
	}
}

func TestNormalize(t *testing.T) {
	for _, tt := range []struct{ in, out string }{
		{"/a/b", "/a/b"},
		{"/%7e%41", "/~A"},
		{"/%3a%2F", "/%3A%2F"},
		{"/ツ", "/%E3%83%84"},
		{"/a b\t", "/a%20b%09"},
		{"/%", "/%25"},
		{"/%4", "/%254"},
		{"/%zz", "/%25zz"},
		{"/%2a%24", "/*$"},
		{"/\"<>", "/%22%3C%3E"},
	} {
		got := string(appendNormalized(nil, tt.in))
		if got != tt.out {
			t.Errorf("normalize(%q):\n\tgot %q\n\twant %q", tt.in, got, tt.out)
		}
		if again := string(appendNormalized(nil, got)); again != got {
			t.Errorf("normalize(%q) not idempotent: %q then %q", tt.in, got, again)
		}
	}
}
