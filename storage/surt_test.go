package storage

import (
	"strings"
	"testing"
)

// surtTests come from the examples documented with pywb's canonicalize and the
// surt package it uses (its tests, which follow the Java WaybackURLKeyMaker,
// IAURLCanonicalizer and GoogleURLCanonicalizer tests), written as the SURT
// key each URL gets.
var surtTests = []struct{ in, out string }{
	// pywb canonicalize
	{"http://example.com/path/file.html", "com,example)/path/file.html"},
	// surt(): WaybackURLKeyMakerTest
	{"", "-"},
	{"filedesc:foo.arc.gz", "filedesc:foo.arc.gz"},
	{"filedesc://foo.arc.gz", "filedesc://foo.arc.gz"},
	{"warcinfo:foo.warc.gz", "warcinfo:foo.warc.gz"},
	{"dns:alexa.com", "dns:alexa.com"},
	{"mailto:foo@example.com", "mailto:foo@example.com"},
	{"http://www.archive.org/", "org,archive)/"},
	{"http://archive.org/", "org,archive)/"},
	{"http://archive.org/goo/", "org,archive)/goo"},
	{"http://archive.org/goo/?", "org,archive)/goo"},
	{"http://archive.org/goo/?b&a", "org,archive)/goo?a&b"},
	{"http://archive.org/goo/?a=2&b&a=1", "org,archive)/goo?a=1&a=2&b"},
	{"http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221", "org,archive)/index.php?action=profile;u=4221"},
	{"whois://whois.isoc.org.il/shaveh.co.il", "il,org,isoc,whois)/shaveh.co.il"},
	{"http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2",
		"com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2"},
	{"http://www.example.com/", "com,example)/"},
	{"ftp://www.example.com/", "com,example)/"},
	// IAURLCanonicalizerTest
	{"http://ARCHIVE.ORG/", "org,archive)/"},
	{"http://www.archive.org:80/", "org,archive)/"},
	{"https://www.archive.org:80/", "org,archive:80)/"},
	{"http://www.archive.org:443/", "org,archive:443)/"},
	{"https://www.archive.org:443/", "org,archive)/"},
	{"http://www.archive.org/big/", "org,archive)/big"},
	{"http://archive.org/index.html?", "org,archive)/index.html"},
	{"http://archive.org/index.html?b=b&a=b", "org,archive)/index.html?a=b&b=b"},
	{"http://www34.archive.org/index.html?b=a&b=b&a=b", "org,archive)/index.html?a=b&b=a&b=b"},
	{"http://www2foo.com/", "com,www2foo)/"},
	{"http://www2.www2foo.com/", "com,www2foo)/"},
	{"http://archive.org/?a=1&", "org,archive)/?&a=1"},
	{"http://archive.org/?b=b&a=b&b=a&a=a", "org,archive)/?a=a&a=b&b=a&b=b"},
	{"http://example.com/foo?X=Y", "com,example)/foo?x=y"},
	// session identifiers (URLRegexTransformer tests)
	{"http://a.com/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx", "com,a)/mileg.aspx"},
	{"http://a.com/(4hqa0555fwsecu455xqckv45)/mileg.aspx", "com,a)/mileg.aspx"},
	{"http://a.com/photos/36050182@N05/", "com,a)/photos/36050182@n05"},
	{"http://a.com/?jsessionid=0123456789abcdefghijklemopqrstuv&x=y", "com,a)/?x=y"},
	{"http://a.com/?one=two&jsessionid=0123456789abcdefghijklemopqrstuv&x=y", "com,a)/?one=two&x=y"},
	{"http://a.com/?jsessionid=0123456789abcdefghijklemopqrstuv0", "com,a)/?jsessionid=0123456789abcdefghijklemopqrstuv0"},
	{"http://a.com/?aspsessionidABCDEFGH=ABCDEFGHIJKLMNOPQRSTUVWX&x=y", "com,a)/?x=y"},
	{"http://a.com/?CFID=1169580&CFTOKEN=48630702&dtstamp=22%2F08%2F2006%7C06%3A58%3A11", "com,a)/?dtstamp=22/08/2006|06:58:11"},
	// GoogleURLCanonicalizerTest
	{"http://host/%25%32%35", "host)/%25"},
	{"http://host/%25%32%35%25%32%35", "host)/%25%25"},
	{"http://host/%2525252525252525", "host)/%25"},
	{"http://host/asdf%25%32%35asd", "host)/asdf%25asd"},
	{"http://host/%%%25%32%35asd%%", "host)/%25%25%25asd%25%25"},
	{"http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/", "26,99,188,168)/.secure/www.ebay.com"},
	{"http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx/", "11,0,127,195)/uploads/%20%20%20%20/.verify/.ebaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx"},
	{"http://host%23.com/%257Ea%2521b%2540c%2523d%2524e%25f%255E00%252611%252A22%252833%252944_55%252B", "com,host%23)/~a!b@c%23d$e%25f^00&11*22(33)44_55+"},
	{"http://3279880203/blah", "11,0,127,195)/blah"},
	{"http://017.0.0.1/", "1,0,0,15)/"},
	{"http://10.0.258/", "2,1,0,10)/"},
	{"http://www.google.com/blah/..", "com,google)/"},
	{"www.google.com/", "com,google)/"},
	{"www.google.com", "com,google)/"},
	{"http://www.evil.com/blah#frag", "com,evil)/blah"},
	{"http://www.GOOgle.com/", "com,google)/"},
	{"http://www.google.com.../", "com,google)/"},
	{"http://www.google.com/foo\tbar\rbaz\n2", "com,google)/foobarbaz2"},
	{"http://www.google.com/q?", "com,google)/q"},
	{"http://www.google.com/q?r?", "com,google)/q?r?"},
	{"http://www.google.com/q?r?s", "com,google)/q?r?s"},
	{"http://evil.com/foo#bar#baz", "com,evil)/foo"},
	{"http://evil.com/foo;", "com,evil)/foo;"},
	{"http://evil.com/foo?bar;", "com,evil)/foo?bar;"},
	{"B\u00fccher.ch:8080", "ch,xn--bcher-kva:8080)/"},
	{"\u2603.com", "com,xn--n3h)/"},
	{"http://notrailingslash.com", "com,notrailingslash)/"},
	{"http://www.gotaport.com:1234/", "com,gotaport:1234)/"},
	{"  http://www.google.com/  ", "com,google)/"},
	{"https://www.securesite.com/", "com,securesite)/"},
	{"http://host.com/ab%23cd", "com,host)/ab%23cd"},
	{"http://host.com//twoslashes?more//slashes", "com,host)/twoslashes?more//slashes"},
	// URLParserTest
	{"http://www.archive.org:8080/index.html?query#foo", "org,archive:8080)/index.html?query"},
	{"http:////////////////www.vikings.com", "com,vikings)/"},
	{"http://https://order.1and1.com", "com,1and1,order)/"},
	{"http://mineral.galleries.com:/minerals/silicate/chabazit/chabazit.htm", "com,galleries,mineral)/minerals/silicate/chabazit/chabazit.htm"},
	// what a crawl of loopback hosts writes
	{"http://127.0.0.1:8080/a/b.html", "1,0,0,127:8080)/a/b.html"},
	{"http://user:pw@Example.COM:8080/A?Z=1&y=2", "com,example:8080)/a?y=2&z=1"},
	{"https://caf\u00e9.example/men\u00fc", "example,xn--caf-dma)/men%c3%bc"},
}

func TestSURT(t *testing.T) {
	for _, tt := range surtTests {
		if got := SURT(tt.in); got != tt.out {
			t.Errorf("SURT(%q):\n\tgot  %q\n\twant %q", tt.in, got, tt.out)
		}
	}
}

func FuzzSURT(f *testing.F) {
	for _, tt := range surtTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, u string) {
		key := SURT(u)
		if key == "" {
			t.Fatalf("SURT(%q) is empty", u)
		}
		web := strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
		if !web {
			return
		}
		// A key of a web URL is one field of a CDXJ line: no white space or
		// control characters, and the host part ends at ')'.
		if strings.ContainsFunc(key, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			t.Fatalf("SURT(%q) = %q holds white space or control characters", u, key)
		}
		if !strings.Contains(key, ")") {
			t.Fatalf("SURT(%q) = %q has no host part", u, key)
		}
		// Keys ignore case and the fragment.
		ascii := !strings.ContainsFunc(u, func(r rune) bool { return r >= 0x80 })
		if ascii && u == strings.TrimSpace(u) {
			i := strings.Index(u, "//") + 2
			other := strings.ToUpper(u[:i-3]) + "://" + strings.ToUpper(u[i:])
			if i := strings.IndexByte(other, '#'); i < 0 {
				other += "#Frag"
			}
			if k := SURT(other); k != key {
				t.Fatalf("SURT(%q) = %q but SURT(%q) = %q", u, key, other, k)
			}
		}
	})
}
