package robots

import "testing"

// TestOurDepartures checks each deliberate departure that DEPARTURES.md lists under
// "Where this package departs on purpose": the package does what the page says.
func TestOurDepartures(t *testing.T) {
	tests := []struct {
		name, body, url string
		want            bool // allowed
	}{
		// A pattern without a leading "/" is read as if it had one.
		{"pattern without slash", "user-agent: *\ndisallow: admin.php\n", "http://x.test/admin.php", false},
		{"pattern without slash, other path", "user-agent: *\ndisallow: admin.php\n", "http://x.test/a/admin.php", true},
		{"allow without slash", "user-agent: *\ndisallow: /\nallow: public/\n", "http://x.test/public/a", true},
		{"star pattern kept", "user-agent: *\ndisallow: *.pdf\n", "http://x.test/a/b.pdf", false},
		// Variant spellings of keys.
		{"user_agent", "user_agent: bot\ndisallow: /x\n", "http://x.test/x", false},
		{"useragent", "useragent: bot\ndisallow: /x\n", "http://x.test/x", false},
		{"user agent", "user agent: bot\ndisallow: /x\n", "http://x.test/x", false},
		{"dissalow", "user-agent: bot\ndissalow: /x\n", "http://x.test/x", false},
		{"dissallow", "user-agent: bot\ndissallow: /x\n", "http://x.test/x", false},
		{"disalow", "user-agent: bot\ndisalow: /x\n", "http://x.test/x", false},
		{"other spelling ignored", "user-agent: bot\ndis-allow: /x\n", "http://x.test/x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse([]byte(tt.body)).Match("bot", tt.url).Allowed; got != tt.want {
				t.Errorf("Parse(%q).Match(bot, %s).Allowed:\n\tgot  %v\n\twant %v", tt.body, tt.url, got, tt.want)
			}
		})
	}
	r := Parse([]byte("user-agent: *\ndisallow: admin.php\n"))
	if d := r.Match("bot", "http://x.test/admin.php"); d.Rule == nil || d.Rule.Pattern != "/admin.php" {
		t.Errorf("rule of disallow: admin.php = %v, want pattern /admin.php", d.Rule)
	}
	if got := FromStatus(429, nil).Match("bot", "http://x.test/x").Allowed; got {
		t.Errorf("FromStatus(429) allows /x, want unreachable (disallowed)")
	}
	if got := FromStatus(404, nil).Match("bot", "http://x.test/x").Allowed; !got {
		t.Errorf("FromStatus(404) disallows /x, want allowed")
	}
}
