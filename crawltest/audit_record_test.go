package crawltest

import (
	"slices"
	"testing"
	"time"
)

// rec builds a record from (host, path, start offset, duration) with a fixed
// epoch, so the auditors' arithmetic is tested without a clock.
type step struct {
	host, path string
	start, dur time.Duration
}

var epoch = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

func rec(steps ...step) []Request {
	reqs := make([]Request, len(steps))
	for i, s := range steps {
		reqs[i] = Request{Host: s.host, Path: s.path, Method: "GET", UserAgent: "politecrawl/0.1",
			Status: 200, Start: epoch.Add(s.start), End: epoch.Add(s.start + s.dur)}
	}
	return reqs
}

func TestAuditRequestsTiming(t *testing.T) {
	const ms = time.Millisecond
	sites := []Site{
		{Host: "a.test", Delay: 100 * ms, Robots: &Robots{Body: "User-agent: *\nCrawl-delay: 0.1\n"},
			Pages: map[string]*Page{"/": {Links: []string{"/1", "/2"}}, "/1": {}, "/2": {}}},
		{Host: "b.test", Pages: map[string]*Page{"/": {}}},
	}
	f := startFarm(t, sites...)
	tests := []struct {
		name      string
		reqs      []Request
		opts      AuditOptions
		want      []Kind
		wantRatio float64
	}{
		{
			name: "exactly the allowed gap",
			reqs: rec(step{"a.test", "/robots.txt", 0, ms}, step{"a.test", "/", 100 * ms, ms},
				step{"a.test", "/1", 200 * ms, ms}, step{"a.test", "/2", 300 * ms, ms}),
			wantRatio: 1,
		},
		{
			name: "one nanosecond short",
			reqs: rec(step{"a.test", "/robots.txt", 0, ms}, step{"a.test", "/", 100*ms - 1, ms}),
			want: []Kind{KindGap}, wantRatio: float64(100*ms-1) / float64(100*ms),
		},
		{
			name: "short within tolerance",
			reqs: rec(step{"a.test", "/robots.txt", 0, ms}, step{"a.test", "/", 99 * ms, ms}),
			opts: AuditOptions{Tolerance: ms}, wantRatio: 0.99,
		},
		{
			name: "MinDelay larger than Crawl-delay",
			reqs: rec(step{"a.test", "/robots.txt", 0, ms}, step{"a.test", "/", 150 * ms, ms}),
			opts: AuditOptions{MinDelay: 200 * ms},
			want: []Kind{KindGap}, wantRatio: 0.75,
		},
		{
			name:      "gap counted from the start, not the end",
			reqs:      rec(step{"a.test", "/robots.txt", 0, 50 * ms}, step{"a.test", "/", 120 * ms, ms}),
			wantRatio: 1.2,
		},
		{
			name: "long response overlaps the next start",
			reqs: rec(step{"a.test", "/robots.txt", 0, 150 * ms}, step{"a.test", "/", 100 * ms, ms}),
			want: []Kind{KindOverlap}, wantRatio: 1,
		},
		{
			name: "overlap with an earlier, longer request",
			reqs: rec(step{"b.test", "/robots.txt", 0, 300 * ms}, step{"b.test", "/", 100 * ms, ms},
				step{"b.test", "/x", 200 * ms, ms}),
			want: []Kind{KindOverlap},
		},
		{
			name: "hosts are independent",
			reqs: rec(step{"a.test", "/robots.txt", 0, ms}, step{"b.test", "/robots.txt", 0, ms},
				step{"b.test", "/", 2 * ms, ms}, step{"a.test", "/", 100 * ms, ms}),
			wantRatio: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := AuditRequests(f, tt.reqs, tt.opts)
			if got := kinds(r.Violations); !slices.Equal(got, tt.want) {
				t.Errorf("violation kinds:\n\tgot  %v\n\twant %v\n%v", got, tt.want, r.Violations)
			}
			if r.SmallestGapRatio != tt.wantRatio {
				t.Errorf("SmallestGapRatio = %v, want %v", r.SmallestGapRatio, tt.wantRatio)
			}
		})
	}
}

func TestAuditRequestsTimes(t *testing.T) {
	const ms = time.Millisecond
	f := startFarm(t, Site{Host: "a.test", Delay: 100 * ms,
		Pages: map[string]*Page{"/": {Links: []string{"/1", "/2"}}, "/1": {}, "/2": {}}})
	r := AuditRequests(f, rec(step{"a.test", "/robots.txt", 0, ms}, step{"a.test", "/", 100 * ms, ms},
		step{"a.test", "/1", 250 * ms, ms}, step{"a.test", "/2", 400 * ms, ms}), AuditOptions{MinCoverage: 1})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	// Four requests (robots.txt and three pages) at 100ms: 300ms at best.
	if r.IdealTime != 300*ms || r.ActualTime != 400*ms || r.Efficiency() != 0.75 {
		t.Errorf("ideal %v, actual %v, efficiency %v: want 300ms, 400ms, 0.75", r.IdealTime, r.ActualTime, r.Efficiency())
	}
	if r.SmallestGapRatio != 1 {
		t.Errorf("SmallestGapRatio = %v, want 1", r.SmallestGapRatio)
	}
	empty := AuditRequests(f, nil, AuditOptions{})
	if empty.Coverage != 0 || empty.Efficiency() != 0 || empty.SmallestGapRatio != 0 || empty.Err() != nil {
		t.Errorf("empty record: %+v", empty)
	}
}

// TestAuditRobotsRedirect: moved.test's robots.txt redirects to a file on
// static.test. Fetching that file is a robots fetch of moved.test: it comes
// before static.test's own robots.txt, inside static.test's gap, and
// overlapping, without a violation.
func TestAuditRobotsRedirect(t *testing.T) {
	const ms = time.Millisecond
	f := startFarm(t, DemoSites()...)
	reqs := rec(
		step{"static.test", "/robots-for-moved.txt", 0, 20 * ms},
		step{"static.test", "/robots.txt", 0, ms},
		step{"moved.test", "/robots.txt", 0, ms},
		step{"moved.test", "/", 100 * ms, ms},
		step{"moved.test", "/open.html", 200 * ms, ms},
		step{"static.test", "/", 100 * ms, ms},
		step{"static.test", "/logo.html", 200 * ms, ms},
		step{"static.test", "/robots-for-moved.txt", 201 * ms, ms},
	)
	r := AuditRequests(f, reqs, AuditOptions{MinDelay: 100 * ms})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if r.RobotsRequests != 4 || r.Duplicates != 0 {
		t.Errorf("RobotsRequests %d, Duplicates %d: want 4, 0", r.RobotsRequests, r.Duplicates)
	}
	// Without its own robots.txt, static.test's first page is a violation.
	r = AuditRequests(f, slices.Delete(slices.Clone(reqs), 1, 2), AuditOptions{MinDelay: 100 * ms})
	if got, want := kinds(r.Violations), []Kind{KindRobotsFirst}; !slices.Equal(got, want) {
		t.Errorf("violation kinds:\n\tgot  %v\n\twant %v\n%v", got, want, r.Violations)
	}
}

// TestAuditIcons: host icons are counted apart from pages, never unexpected,
// held to robots.txt first, the gap, robots.txt's rules and duplicates like any
// request, and each one missing is a violation with AuditOptions.Icons.
func TestAuditIcons(t *testing.T) {
	const ms = time.Millisecond
	f := startFarm(t,
		Site{Host: "icon.test", Icon: true, Robots: &Robots{Body: "User-agent: *\nAllow: /\n"}, Pages: map[string]*Page{"/": {}}},
		Site{Host: "plain.test", Pages: map[string]*Page{"/": {}}},
		Site{Host: "blocked.test", Robots: &Robots{Body: "User-agent: *\nDisallow: /favicon.ico\n"},
			Pages: map[string]*Page{"/": {}, "/favicon.ico": {Disallowed: true}}},
	)
	polite := []step{
		{"icon.test", "/robots.txt", 0, ms}, {"icon.test", "/", 100 * ms, ms}, {"icon.test", "/favicon.ico", 200 * ms, ms},
		{"plain.test", "/robots.txt", 0, ms}, {"plain.test", "/", 100 * ms, ms}, {"plain.test", "/favicon.ico", 200 * ms, ms},
		{"blocked.test", "/robots.txt", 0, ms}, {"blocked.test", "/", 100 * ms, ms},
	}
	with := func(extra ...step) []Request { return rec(append(slices.Clone(polite), extra...)...) }
	noPlainIcon := rec(slices.Delete(slices.Clone(polite), 5, 6)...)
	opts := AuditOptions{MinDelay: 100 * ms, MinCoverage: 1, Icons: true}
	tests := []struct {
		name    string
		reqs    []Request
		opts    AuditOptions
		want    []Kind
		icons   int
		missing []string
		unexp   []string
	}{
		{name: "each host's icon once", reqs: with(), opts: opts, icons: 2},
		{name: "an icon missing", reqs: noPlainIcon, opts: opts, want: []Kind{KindIcon}, icons: 1,
			missing: []string{"http://plain.test/favicon.ico"}},
		{name: "an icon missing, icons not asked for", reqs: noPlainIcon, opts: AuditOptions{MinDelay: 100 * ms, MinCoverage: 1},
			icons: 1, missing: []string{"http://plain.test/favicon.ico"}},
		{name: "an icon too soon after the page", reqs: rec(append(slices.Clone(polite[:2]), step{"icon.test", "/favicon.ico", 150 * ms, ms})...),
			opts: AuditOptions{MinDelay: 100 * ms}, want: []Kind{KindGap}, icons: 1, missing: []string{"http://plain.test/favicon.ico"}},
		{name: "an icon while the page is served", reqs: rec(step{"icon.test", "/robots.txt", 0, ms}, step{"icon.test", "/", 100 * ms, 50 * ms},
			step{"icon.test", "/favicon.ico", 120 * ms, ms}), opts: AuditOptions{}, want: []Kind{KindOverlap}, icons: 1,
			missing: []string{"http://plain.test/favicon.ico"}},
		{name: "an icon before robots.txt", reqs: rec(step{"icon.test", "/favicon.ico", 0, ms}, step{"icon.test", "/robots.txt", 100 * ms, ms}),
			want: []Kind{KindRobotsFirst}, icons: 1, missing: []string{"http://plain.test/favicon.ico"}},
		{name: "an icon robots.txt forbids", reqs: with(step{"blocked.test", "/favicon.ico", 200 * ms, ms}), opts: opts,
			want: []Kind{KindDisallowed}, icons: 2, unexp: []string{"http://blocked.test/favicon.ico"}},
		{name: "an icon twice", reqs: with(step{"icon.test", "/favicon.ico", 300 * ms, ms}), opts: opts,
			want: []Kind{KindDuplicate}, icons: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := AuditRequests(f, tt.reqs, tt.opts)
			if got := kinds(r.Violations); !slices.Equal(got, tt.want) {
				t.Errorf("violation kinds:\n\tgot  %v\n\twant %v\n%v", got, tt.want, r.Violations)
			}
			if r.Icons != tt.icons || !slices.Equal(r.MissingIcons, tt.missing) || !slices.Equal(r.Unexpected, tt.unexp) {
				t.Errorf("Icons %d, MissingIcons %q, Unexpected %q: want %d, %q, %q", r.Icons, r.MissingIcons, r.Unexpected, tt.icons, tt.missing, tt.unexp)
			}
		})
	}
	// The icon counts in the ideal time of a crawler that fetches it.
	if without, with := AuditRequests(f, with(), AuditOptions{MinDelay: 100 * ms}), AuditRequests(f, with(), opts); without.IdealTime != 100*ms || with.IdealTime != 200*ms {
		t.Errorf("IdealTime %v without Icons, %v with: want 100ms, 200ms", without.IdealTime, with.IdealTime)
	}
}
