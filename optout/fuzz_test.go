package optout

import (
	"reflect"
	"testing"
)

// FuzzTDMRep: any body parses or is refused with ErrTDMRep, without panic, and a parsed
// file matches any URL without panic, the same way twice.
func FuzzTDMRep(f *testing.F) {
	for _, s := range []string{
		`[{"location": "/", "tdm-reservation": 1}]`,
		`[{"location": "/directory-b/html/", "tdm-reservation": 1, "tdm-policy":"https://provider.com/policies/policy.json"}, {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0}]`,
		`[{"location": "/this/path/exactly$", "tdm-reservation": 1}, {"location": "/path/foo-%24", "tdm-reservation": 1.0}]`,
		`[{"location": "*", "tdm-reservation": "1"}]`,
		`{}`, `[`, ``,
	} {
		f.Add([]byte(s), "/directory-b/images/a.jpg")
	}
	f.Fuzz(func(t *testing.T, body []byte, url string) {
		rep, err := ParseTDMRep(body)
		if err != nil {
			if rep != nil {
				t.Fatal("a refused file came with rules")
			}
			return
		}
		a, la, oka := rep.Match(url)
		b, lb, okb := rep.Match(url)
		if a != b || la != lb || oka != okb {
			t.Fatalf("Match(%q) twice: %v %v", url, a, b)
		}
		if oka && a.Source != "tdmrep.json" {
			t.Fatalf("Match(%q) source %q", url, a.Source)
		}
	})
}

// FuzzUsage: any value parses or is refused without panic, and what parses formats into
// a statement that parses back to the same preferences.
func FuzzUsage(f *testing.F) {
	for _, s := range []string{
		"train-ai=y, search=n",
		`train-ai=y, train-ai, search=n, search="n"`,
		"train-ai;allow=n, train-ai=y",
		`train-ai;has;parameters="?";`,
		"a=(1 2 \"x\");p=?0, b=:aGk=:, c=@-1, d=%\"caf%c3%a9\", e=-1.25, f=*tok/x:y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		u, err := ParseUsage(v)
		if err != nil {
			return
		}
		back, err := ParseUsage(u.String())
		if err != nil || !reflect.DeepEqual(back, u) {
			t.Fatalf("ParseUsage(%q) = %v, formatted %q, parsed back %v, %v", v, u, u.String(), back, err)
		}
	})
}

// FuzzParseHTML: any document is read without panic.
func FuzzParseHTML(f *testing.F) {
	f.Add([]byte(`<meta name="tdm-reservation" content="1"><meta name="robots" content="noai">`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := ParseHTML(body, "politecrawl")
		if s.TDM.Source != "meta" {
			t.Fatal("source lost")
		}
	})
}
