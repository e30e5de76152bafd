package optout

import (
	"strings"
)

// The uses a crawl reserves content against, as robots.content_signal_use names them
// (Content-Signal's vocabulary).
const (
	UseSearch  = "search"
	UseAITrain = "ai-train"
	UseAIInput = "ai-input"
)

// Signals is what a resource said about its use, gathered by the caller from its
// origin's tdmrep.json, its robots.txt, its response header and its HTML.
type Signals struct {
	TDMFile   TDM      // tdmrep.json's rule for the URL (TDMRep.Match)
	TDMHeader TDM      // TDMHeader
	TDMMeta   TDM      // HTMLSignals.TDM
	NoAI      NoAI     // RobotsTag or'ed with HTMLSignals.NoAI
	Image     bool     // the resource is an image: noimageai applies
	Usage     []string // Content-Usage values: the header field's, then robots.txt's rules
}

// Verdict is what the signals reserve. Reserved maps each reserved use to the signal
// that decided it, in the order of precedence TDMRep, noai, Content-Usage, such as
// "tdm-reservation=1 (header)".
type Verdict struct {
	TDM      TDM   // the resource's TDMRep values after the report's precedence
	NoAI     NoAI  // noai, noimageai
	Usage    Usage // the Content-Usage statements combined; nil: none
	Reserved map[string]string
}

// Evaluate decides what s reserves:
//
//   - TDMRep tdm-reservation 1 reserves ai-train and ai-input: text and data mining,
//     which the DSM Directive's Article 4 opt-out covers, is what both do; it leaves
//     search alone, which TDMRep does not address;
//   - noai reserves ai-train and ai-input, noimageai the same for an image;
//   - Content-Usage train-ai=n reserves ai-train, search=n search (the vocabulary has
//     no category for AI input).
//
// Content-Usage values that do not parse are ignored, as the draft says (preferences
// unknown).
func Evaluate(s Signals) Verdict {
	v := Verdict{TDM: s.TDMFile.Override(s.TDMHeader).Override(s.TDMMeta), NoAI: s.NoAI}
	for _, raw := range s.Usage {
		if u, err := ParseUsage(raw); err == nil {
			v.Usage = v.Usage.Combine(u)
		}
	}
	reserve := func(use, by string) {
		if v.Reserved == nil {
			v.Reserved = make(map[string]string)
		}
		if _, done := v.Reserved[use]; !done {
			v.Reserved[use] = by
		}
	}
	if v.TDM.Reservation == Reserved {
		by := "tdm-reservation=1 (" + v.TDM.Source + ")"
		reserve(UseAITrain, by)
		reserve(UseAIInput, by)
	}
	if v.NoAI.NoAI || v.NoAI.NoImageAI && s.Image {
		by := "noai (" + v.NoAI.Source + ")"
		if !v.NoAI.NoAI {
			by = "noimageai (" + v.NoAI.Source + ")"
		}
		reserve(UseAITrain, by)
		reserve(UseAIInput, by)
	}
	if v.Usage.Get(TrainAI) == Disallow {
		reserve(UseAITrain, "content-usage train-ai=n")
	}
	if v.Usage.Get(Search) == Disallow {
		reserve(UseSearch, "content-usage search=n")
	}
	return v
}

// Reserves reports whether the verdict reserves use, and the signal that decided.
func (v Verdict) Reserves(use string) (by string, ok bool) {
	by, ok = v.Reserved[use]
	return by, ok
}

// String describes the verdict in one line, for a WARC metadata record and the
// Parquet index: each signal present, then the reserved uses, such as
// "tdm-reservation=1 (tdmrep.json); content-usage=train-ai=n; reserved: ai-input, ai-train".
// It is "" when no signal was present.
func (v Verdict) String() string {
	var parts []string
	if v.TDM.Reservation != Unset {
		p := "tdm-reservation=" + v.TDM.Reservation.String() + " (" + v.TDM.Source + ")"
		if v.TDM.Policy != "" && v.TDM.Reservation == Reserved {
			p += " tdm-policy=" + v.TDM.Policy
		}
		parts = append(parts, p)
	}
	if v.NoAI.NoAI {
		parts = append(parts, "noai ("+v.NoAI.Source+")")
	}
	if v.NoAI.NoImageAI {
		parts = append(parts, "noimageai ("+v.NoAI.Source+")")
	}
	if len(v.Usage) > 0 {
		parts = append(parts, "content-usage="+v.Usage.String())
	}
	if len(v.Reserved) > 0 {
		uses := make([]string, 0, 3)
		for _, u := range []string{UseAIInput, UseAITrain, UseSearch} {
			if _, ok := v.Reserved[u]; ok {
				uses = append(uses, u)
			}
		}
		parts = append(parts, "reserved: "+strings.Join(uses, ", "))
	}
	return strings.Join(parts, "; ")
}
