package optout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The usage categories of the AIPREF vocabulary (draft-ietf-aipref-vocab §4).
const (
	TrainAI = "train-ai" // AI model training
	Search  = "search"   // search applications that link to the asset
)

// Pref is a statement's preference for one category of use.
type Pref int8

const (
	Unknown  Pref = iota // no preference, or one the vocabulary does not define
	Allow                // y
	Disallow             // n
)

// Usage is a statement of AI usage preferences: each category's explicit preference,
// by label ("train-ai" → Disallow). Labels the vocabulary does not define are kept, for
// the record; a category without an entry is Unknown. Nil means no statement.
type Usage map[string]Pref

// ParseUsage parses a statement of preference in the vocabulary's format (§6): a
// Structured Field Dictionary whose Token values y and n allow and disallow; other
// values, and parameters, leave a category unknown. A value that is no Dictionary is
// an error: all its preferences are unknown (§6.5).
func ParseUsage(v string) (Usage, error) {
	members, err := parseDictionary(v)
	if err != nil {
		return nil, fmt.Errorf("optout: content usage %q: %w", clip(v), err)
	}
	u := Usage{}
	for _, m := range members {
		if m.item.kind != 't' {
			continue
		}
		switch m.item.token {
		case "y":
			u[m.key] = Allow
		case "n":
			u[m.key] = Disallow
		}
	}
	return u, nil
}

// Get returns the preference for a category.
func (u Usage) Get(category string) Pref { return u[category] }

// Combine returns the preferences of u and o together, as §5.1 of the vocabulary
// combines statements: disallowed by either is disallowed, else allowed by either is
// allowed.
func (u Usage) Combine(o Usage) Usage {
	if u == nil && o == nil {
		return nil
	}
	out := maps.Clone(u)
	if out == nil {
		out = Usage{}
	}
	for k, p := range o {
		if p == Disallow || out[k] == Unknown {
			out[k] = p
		}
	}
	return out
}

// String formats u in the vocabulary's format, labels sorted: "search=y, train-ai=n".
func (u Usage) String() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(u)) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		if u[k] == Allow {
			b.WriteString("=y")
		} else {
			b.WriteString("=n")
		}
	}
	return b.String()
}

// clip shortens a value quoted in an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
