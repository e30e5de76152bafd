package extract

import (
	"encoding/xml"
	"strings"
)

// smAtomLink returns the href of an Atom entry's link element when it points to the
// entry itself: rel absent or "alternate" (Atom 1.0 and 0.3). Other links
// (enclosure, related, self, edit, replies) are not the entry's page.
func smAtomLink(attrs []xml.Attr) string {
	rel := strings.TrimSpace(smAttr(attrs, "rel"))
	if rel != "" && !strings.EqualFold(rel, "alternate") {
		return ""
	}
	return smAttr(attrs, "href")
}

// smIsHTTP reports whether s starts with http:// or https://, in any case: an RSS
// guid that is a permalink URL rather than an opaque identifier.
func smIsHTTP(s string) bool {
	return len(s) >= 7 && strings.EqualFold(s[:7], "http://") ||
		len(s) >= 8 && strings.EqualFold(s[:8], "https://")
}
