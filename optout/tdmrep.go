package optout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/politecrawl/crawl/robots"
)

// MaxTDMRepSize is the most of a tdmrep.json body ParseTDMRep reads, in bytes: as much as
// RFC 9309 asks of robots.txt.
const MaxTDMRepSize = 500 << 10

// maxTDMRules bounds the rules kept from one file.
const maxTDMRules = 10000

// ErrTDMRep wraps why a tdmrep.json body was refused: a protocol error, after which the
// report asks an agent to consider tdm-reservation unset.
var ErrTDMRep = errors.New("optout: tdmrep.json")

// Reservation is a tdm-reservation value: unset, 0 (TDM rights not reserved) or 1
// (reserved). The zero value is Unset.
type Reservation int8

const (
	Unset       Reservation = iota // no value, or one the protocol does not define
	NotReserved                    // tdm-reservation 0
	Reserved                       // tdm-reservation 1: the Article 4 opt-out
)

// String returns "unset", "0" or "1".
func (r Reservation) String() string {
	switch r {
	case NotReserved:
		return "0"
	case Reserved:
		return "1"
	}
	return "unset"
}

// TDM is what TDMRep says of a resource: its reservation, the policy URL, and the
// technique that gave them ("tdmrep.json", "header", "meta"). The zero value says
// nothing.
type TDM struct {
	Reservation Reservation
	Policy      string // tdm-policy: the URL of a TDM policy; only meaningful when Reserved
	Source      string
}

// Override returns t with what later says on top of it, as the report's processing
// priority asks (file, then header, then meta): a value later sets replaces t's; an
// unset one leaves it.
func (t TDM) Override(later TDM) TDM {
	if later.Reservation != Unset {
		t.Reservation, t.Source = later.Reservation, later.Source
		t.Policy = ""
	}
	if later.Policy != "" {
		t.Policy = later.Policy
	}
	return t
}

// TDMRep is a parsed /.well-known/tdmrep.json: its rules in file order.
type TDMRep struct {
	rules []tdmRule
}

type tdmRule struct {
	location string
	pattern  robots.Pattern
	tdm      TDM
}

// ParseTDMRep parses a tdmrep.json body: a JSON array of rules, each an object with a
// location (a path pattern: "*" any run of characters, a final "$" the end, as in
// robots.txt), a tdm-reservation (0 or 1; another value leaves the rule's reservation
// unset) and an optional tdm-policy. A rule without a location or a tdm-reservation is
// skipped. A body that is not a JSON array is a protocol error (ErrTDMRep): the caller
// then treats every resource as unset. Only the first MaxTDMRepSize bytes are read.
func ParseTDMRep(body []byte) (*TDMRep, error) {
	if len(body) > MaxTDMRepSize {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrTDMRep, MaxTDMRepSize)
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("%w: not a JSON array of objects: %v", ErrTDMRep, err)
	}
	t := &TDMRep{}
	for _, obj := range raw {
		if len(t.rules) == maxTDMRules {
			break
		}
		var loc string
		if err := json.Unmarshal(obj["location"], &loc); err != nil || loc == "" {
			continue
		}
		resv, ok := obj["tdm-reservation"]
		if !ok {
			continue
		}
		r := tdmRule{location: loc, pattern: robots.NewPattern(loc), tdm: TDM{Source: "tdmrep.json"}}
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(resv))
		dec.UseNumber()
		if dec.Decode(&n) == nil {
			switch n.String() {
			case "0":
				r.tdm.Reservation = NotReserved
			case "1":
				r.tdm.Reservation = Reserved
			}
		}
		var policy string
		if json.Unmarshal(obj["tdm-policy"], &policy) == nil {
			r.tdm.Policy = policy
		}
		t.rules = append(t.rules, r)
	}
	return t, nil
}

// Len returns the number of rules kept.
func (t *TDMRep) Len() int { return len(t.rules) }

// Match returns what the file says of rawURL (an absolute URL or a path with an
// optional query): the first rule, in file order, whose location matches the URL's path
// and query, the report's "most specific match". ok is false when none matches: then
// tdm-reservation is unset. A nil TDMRep matches nothing.
func (t *TDMRep) Match(rawURL string) (tdm TDM, location string, ok bool) {
	if t == nil {
		return TDM{}, "", false
	}
	for i := range t.rules {
		if t.rules[i].pattern.Match(rawURL) {
			return t.rules[i].tdm, t.rules[i].location, true
		}
	}
	return TDM{}, "", false
}

// TDMHeader reads the tdm-reservation and tdm-policy fields of a response header (a
// map such as net/http's Header, keys canonical). A value other than 0 or 1 is unset.
func TDMHeader(h map[string][]string) TDM {
	t := TDM{Source: "header", Reservation: reservation(first(h, "Tdm-Reservation"))}
	t.Policy = strings.TrimSpace(first(h, "Tdm-Policy"))
	return t
}

// reservation reads a tdm-reservation value.
func reservation(v string) Reservation {
	switch strings.TrimSpace(v) {
	case "0":
		return NotReserved
	case "1":
		return Reserved
	}
	return Unset
}

func first(h map[string][]string, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
