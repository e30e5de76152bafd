package optout

import (
	"errors"
	"reflect"
	"testing"
)

// The two tdmrep.json examples of the TDMRep final report (§3.1), and the URLs they
// govern.
func TestTDMRepExamples(t *testing.T) {
	optOutAll := `[
  {
  "location": "/",
  "tdm-reservation": 1
  }
]`
	groups := `[
  {
  "location": "/directory-a/",
  "tdm-reservation": 1
  },
  {
  "location": "/directory-b/html/",
  "tdm-reservation": 1,
  "tdm-policy":"https://provider.com/policies/policy.json"
  },
  {
  "location": "/directory-b/images/*.jpg",
  "tdm-reservation": 0
  }
]`
	policy := "https://provider.com/policies/policy.json"
	cases := []struct {
		file, url string
		want      TDM
		location  string
		ok        bool
	}{
		{optOutAll, "https://provider.com/", TDM{Reserved, "", "tdmrep.json"}, "/", true},
		{optOutAll, "https://provider.com/any/thing.pdf?x=1", TDM{Reserved, "", "tdmrep.json"}, "/", true},
		{groups, "https://provider.com/directory-a/paper.pdf", TDM{Reserved, "", "tdmrep.json"}, "/directory-a/", true},
		{groups, "https://provider.com/directory-b/html/index.html", TDM{Reserved, policy, "tdmrep.json"}, "/directory-b/html/", true},
		{groups, "https://provider.com/directory-b/images/2024/cat.jpg", TDM{NotReserved, "", "tdmrep.json"}, "/directory-b/images/*.jpg", true},
		{groups, "https://provider.com/directory-b/images/cat.png", TDM{}, "", false},
		{groups, "https://provider.com/directory-a", TDM{}, "", false},
		{groups, "/directory-a/x", TDM{Reserved, "", "tdmrep.json"}, "/directory-a/", true},
	}
	for _, c := range cases {
		f, err := ParseTDMRep([]byte(c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, loc, ok := f.Match(c.url)
		if got != c.want || loc != c.location || ok != c.ok {
			t.Errorf("Match(%q):\n\tgot  %+v %q %v\n\twant %+v %q %v", c.url, got, loc, ok, c.want, c.location, c.ok)
		}
	}
}

// Patterns as the report borrows them from robots.txt: "$", "*", percent-encoding, and
// the first matching rule winning.
func TestTDMRepPatterns(t *testing.T) {
	f, err := ParseTDMRep([]byte(`[
  {"location": "/this/path/exactly$", "tdm-reservation": 1},
  {"location": "/this/*/then", "tdm-reservation": 1},
  {"location": "/path/foo-%24", "tdm-reservation": 1},
  {"location": "/caf%c3%a9", "tdm-reservation": 1},
  {"location": "/%7Euser", "tdm-reservation": 1},
  {"location": "/odd", "tdm-reservation": 2},
  {"location": "/odd/inner", "tdm-reservation": 1},
  {"tdm-reservation": 1},
  {"location": "/no-value"},
  {"location": "/", "tdm-reservation": 0}
]`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() != 8 {
		t.Errorf("Len() = %d, want 8 (two rules lack a mandatory property)", f.Len())
	}
	cases := []struct {
		url  string
		want Reservation
	}{
		{"/this/path/exactly", Reserved},
		{"/this/path/exactly/not", NotReserved},
		{"/this/a/b/then/more", Reserved},
		{"/path/foo-$", Reserved},
		{"/path/foo-%24", Reserved},
		{"/caf%C3%A9/menu", Reserved},
		{"/café", Reserved},
		{"/~user/page", Reserved},
		{"/odd/inner", Unset}, // the first match has an undefined value: unset
		{"/no-value", NotReserved},
	}
	for _, c := range cases {
		if got, _, _ := f.Match(c.url); got.Reservation != c.want {
			t.Errorf("Match(%q) = %v, want %v", c.url, got.Reservation, c.want)
		}
	}
}

func TestTDMRepProtocolErrors(t *testing.T) {
	for _, body := range []string{``, `{}`, `{"location": "/", "tdm-reservation": 1}`, `[1, 2]`, `[{"location": "/", "tdm-reservation": 1}`, `<html>`} {
		if f, err := ParseTDMRep([]byte(body)); !errors.Is(err, ErrTDMRep) || f != nil {
			t.Errorf("ParseTDMRep(%q) = %v, %v; want ErrTDMRep", body, f, err)
		}
	}
	var f *TDMRep
	if _, _, ok := f.Match("/"); ok {
		t.Error("a nil TDMRep matched")
	}
}

// The header and meta examples of the report (§3.2, §3.3), and its processing priority
// (§4): the file, then the header, then the meta elements, an absent value never
// resetting an earlier one.
func TestTDMPrecedence(t *testing.T) {
	policy := "https://provider.com/policies/policy.json"
	header := TDMHeader(map[string][]string{"Tdm-Reservation": {"1"}, "Tdm-Policy": {policy}})
	if header != (TDM{Reserved, policy, "header"}) {
		t.Errorf("TDMHeader = %+v", header)
	}
	page := ParseHTML([]byte(`<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="tdm-reservation" content="1">
    <meta name="tdm-policy" content="https://provider.com/policies/policy.json">
    <title>Document title</title>
  </head>
  <body>
    <meta name="tdm-reservation" content="0">
  </body>
</html>`), "politecrawl")
	if page.TDM != (TDM{Reserved, policy, "meta"}) {
		t.Errorf("ParseHTML().TDM = %+v", page.TDM)
	}
	file := TDM{Reservation: NotReserved, Source: "tdmrep.json"}
	cases := []struct {
		name               string
		file, header, meta TDM
		want               Reservation
		source, wantPolicy string
	}{
		{"file only", file, TDM{Source: "header"}, TDM{Source: "meta"}, NotReserved, "tdmrep.json", ""},
		{"header overrides file", file, header, TDM{Source: "meta"}, Reserved, "header", policy},
		{"meta overrides header", file, header, TDM{Reservation: NotReserved, Source: "meta"}, NotReserved, "meta", ""},
		{"bad header value is unset", file, TDMHeader(map[string][]string{"Tdm-Reservation": {"yes"}}), TDM{}, NotReserved, "tdmrep.json", ""},
	}
	for _, c := range cases {
		got := c.file.Override(c.header).Override(c.meta)
		if got.Reservation != c.want || got.Source != c.source || got.Policy != c.wantPolicy {
			t.Errorf("%s: %+v, want %v from %s policy %q", c.name, got, c.want, c.source, c.wantPolicy)
		}
	}
}

func TestNoAI(t *testing.T) {
	cases := []struct {
		header []string
		meta   string
		want   NoAI
	}{
		{[]string{"noai"}, "", NoAI{true, false, "x-robots-tag"}},
		{[]string{"noindex, NoImageAI"}, "", NoAI{false, true, "x-robots-tag"}},
		{[]string{"otherbot: noai"}, "", NoAI{}},
		{[]string{"politecrawl: noai, noimageai"}, "", NoAI{true, true, "x-robots-tag"}},
		{[]string{"unavailable_after: 25 Jun 2010 15:00:00 PST", "noimageai"}, "", NoAI{false, true, "x-robots-tag"}},
		{nil, `<meta name="robots" content="noai, noimageai">`, NoAI{true, true, "meta"}},
		{nil, `<meta name="PoliteCrawl" content="noai">`, NoAI{true, false, "meta"}},
		{nil, `<meta name="otherbot" content="noai">`, NoAI{}},
		{nil, `<meta name="robots" content="noindex">`, NoAI{}},
	}
	for _, c := range cases {
		got := RobotsTag(map[string][]string{"X-Robots-Tag": c.header}, "politecrawl/1.0").
			Or(ParseHTML([]byte("<html><head>"+c.meta+"</head></html>"), "politecrawl/1.0").NoAI)
		if got != c.want {
			t.Errorf("%q %q:\n\tgot  %+v\n\twant %+v", c.header, c.meta, got, c.want)
		}
	}
}

// The examples of draft-ietf-aipref-vocab (§6, §6.5) and -attach (§1.2).
func TestParseUsage(t *testing.T) {
	cases := []struct {
		in   string
		want Usage
		err  bool
	}{
		{"train-ai=y, search=n", Usage{TrainAI: Allow, Search: Disallow}, false},
		{"train-ai=n", Usage{TrainAI: Disallow}, false},
		{`train-ai=y, train-ai, search=n, search="n"`, Usage{}, false},
		{"train-ai;allow=n, train-ai=y", Usage{TrainAI: Allow}, false},
		{`train-ai;has;parameters="?";`, nil, true},
		{"Train-AI=n", nil, true},
		{"train-ai=n,", nil, true},
		{"train-ai=maybe, search=(y n);x=1, future-use=n, x=?1, d=@1700000000, b=:aGk=:, q=1.5", Usage{"future-use": Disallow}, false},
		{"", Usage{}, false},
		{"  search=y  ,\ttrain-ai=n", Usage{Search: Allow, TrainAI: Disallow}, false},
	}
	for _, c := range cases {
		got, err := ParseUsage(c.in)
		if (err != nil) != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseUsage(%q):\n\tgot  %v, %v\n\twant %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
	a, _ := ParseUsage("train-ai=y, search=y")
	b, _ := ParseUsage("train-ai=n")
	if got, want := a.Combine(b), (Usage{TrainAI: Disallow, Search: Allow}); !reflect.DeepEqual(got, want) {
		t.Errorf("Combine: got %v, want %v", got, want)
	}
	if got := a.Combine(b).String(); got != "search=y, train-ai=n" {
		t.Errorf("String() = %q", got)
	}
}

func TestEvaluate(t *testing.T) {
	cases := []struct {
		name string
		s    Signals
		want map[string]string
		str  string
	}{
		{"nothing", Signals{}, nil, ""},
		{"tdmrep file", Signals{TDMFile: TDM{Reserved, "https://p/policy", "tdmrep.json"}},
			map[string]string{UseAITrain: "tdm-reservation=1 (tdmrep.json)", UseAIInput: "tdm-reservation=1 (tdmrep.json)"},
			"tdm-reservation=1 (tdmrep.json) tdm-policy=https://p/policy; reserved: ai-input, ai-train"},
		{"header lifts the file's reservation", Signals{TDMFile: TDM{Reserved, "", "tdmrep.json"}, TDMHeader: TDM{NotReserved, "", "header"}},
			nil, "tdm-reservation=0 (header)"},
		{"noimageai on a page", Signals{NoAI: NoAI{NoImageAI: true, Source: "meta"}}, nil, "noimageai (meta)"},
		{"noimageai on an image", Signals{NoAI: NoAI{NoImageAI: true, Source: "x-robots-tag"}, Image: true},
			map[string]string{UseAITrain: "noimageai (x-robots-tag)", UseAIInput: "noimageai (x-robots-tag)"},
			"noimageai (x-robots-tag); reserved: ai-input, ai-train"},
		{"content-usage, most restrictive", Signals{Usage: []string{"train-ai=y", "train-ai=n, search=n", "bad=="}},
			map[string]string{UseAITrain: "content-usage train-ai=n", UseSearch: "content-usage search=n"},
			"content-usage=search=n, train-ai=n; reserved: ai-train, search"},
		{"tdmrep decides before noai", Signals{TDMMeta: TDM{Reserved, "", "meta"}, NoAI: NoAI{NoAI: true, Source: "meta"}},
			map[string]string{UseAITrain: "tdm-reservation=1 (meta)", UseAIInput: "tdm-reservation=1 (meta)"},
			"tdm-reservation=1 (meta); noai (meta); reserved: ai-input, ai-train"},
	}
	for _, c := range cases {
		v := Evaluate(c.s)
		if !reflect.DeepEqual(v.Reserved, c.want) || v.String() != c.str {
			t.Errorf("%s:\n\tgot  %v %q\n\twant %v %q", c.name, v.Reserved, v.String(), c.want, c.str)
		}
		for use, by := range c.want {
			if got, ok := v.Reserves(use); !ok || got != by {
				t.Errorf("%s: Reserves(%s) = %q, %v", c.name, use, got, ok)
			}
		}
	}
}
