// Package optout reads the machine-readable reservations, beyond robots.txt, by which
// a site opts its content out of text and data mining or AI uses, and decides what
// they reserve:
//
//   - TDMRep, the W3C community group's TDM Reservation Protocol (final report of
//     2024-05-10, the EU DSM Directive's Article 4(3) opt-out): the site's
//     /.well-known/tdmrep.json ([ParseTDMRep]), the tdm-reservation and tdm-policy
//     header fields ([TDMHeader]) and HTML meta elements ([ParseHTML]), with the
//     report's precedence: the file, overridden by the header, overridden by the meta
//     elements, an absent value never resetting an earlier one ([TDM.Override]);
//   - noai and noimageai in X-Robots-Tag ([RobotsTag]) and meta robots;
//   - the IETF AIPREF working group's Content-Usage statements of preference
//     (draft-ietf-aipref-vocab and draft-ietf-aipref-attach as of the working group's
//     repository at commit 7ca0afce, 2026-08-19, whose vocabulary has the categories
//     train-ai and search): the header field and robots.txt's Content-Usage rule
//     ([ParseUsage]; package robots finds the rules that apply to a URL), combined
//     most restrictive first ([Usage.Combine]).
//
// [Evaluate] turns what a page said into a [Verdict]: for each of the uses a crawl
// names (search, ai-train, ai-input, as robots.content_signal_use does) whether it is
// reserved and which signal decided.
//
// The parsers take bytes and never fetch: the caller fetches tdmrep.json once per
// origin, archives and caches it. They take hostile input: no panic, bounded memory,
// and a value they cannot read is unset, never an error that stops a crawl. The
// package is safe for concurrent use; a parsed [TDMRep] is read-only.
package optout
