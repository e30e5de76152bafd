// Package frontier is the crawler's durable memory of what to fetch next: per-host
// queues of URLs, a seen set, per-host ready times and leases, persisted in one bbolt
// file.
//
// A Frontier hands out, through [Frontier.Next], the head URL of the host whose ready
// time is earliest, as a [Lease]. The caller fetches it and reports the [Outcome] with
// [Frontier.Done], which also carries the host's next ready time and the links found on
// the page; finishing the lease and queueing its links happen in one transaction.
//
// # Storage
//
// The file holds seven buckets:
//
//   - meta: format marker, sequence counters and crawl-wide counters;
//   - hosts: one record per authority (scheme://host[:port]) with its id, ready time
//     and counts (queued, done, failed, skipped, consecutive errors, queued for later
//     and the earliest of those due times), so that Open reads one record per host and
//     never the queue itself;
//   - queue3: one key per queued URL, host id + due time + priority (descending) +
//     depth (ascending) + sequence number, so a host's queue is one contiguous key
//     range: first the URLs due at once (due time 0: every new link) in priority
//     order, then those given back for later (Outcome.Refetch) by due time;
//   - seen: every URL ever accepted, as 4 bytes of a hash of its host followed by
//     a 128-bit truncated SHA-256 fingerprint of the URL;
//   - leases: the queue keys leased and not yet finished; Open returns them to their
//     queues (at-least-once);
//   - robots: cached robots.txt data by authority, opaque to this package;
//   - staged: the links found by Done and not yet queued, one record per commit under
//     a growing sequence number (see The batched path below).
//
// In memory the Frontier keeps a small fixed record per host and a min-heap of hosts
// keyed by the time each may be leased next; it keeps nothing per URL but the links
// of a fold in progress (see The batched path). bbolt maps the file with 1 GiB of
// address space from the start and grows it 4 MiB at a time: a remap, at every
// doubling otherwise, copies every node the transaction has changed and made intake
// three times slower. Mapped pages count in the resident set only once read.
//
// Format 2 files (queue keys without a due time, in a bucket named queue) are
// upgraded by the first writable Open, 50,000 entries per transaction; a crash part
// way leaves a file the next Open goes on upgrading. A read-only Open reads them as
// they are.
//
// # Time
//
// Every queued URL carries the time it is due: at once for a new link, later for a URL
// given back by a Done with Outcome.Refetch (a recrawl). A host may be leased once its
// ready time (from politeness, through Done and SetHostReady) has come and it has a
// URL due; Next then hands out the first of its URLs due at once, unless its first
// URL due later has come and ranks before it by priority and depth. Such URLs come out
// in the order they fall due, so one refetch waits for no other refetch but the ones
// due before it.
//
// # Durability
//
// Writes from concurrent callers are coalesced by one committer goroutine into group
// commits: each call waits for the transaction that carries it, so when Add or Done
// returns its effect is on disk (unless Options.NoSync), and 64 workers share one fsync.
// If a commit fails the Frontier stops: every later call returns that error, and the
// next Open starts again from the last committed state.
//
// # The batched path
//
// A page's links land all over the seen, queue and hosts trees, and bbolt rewrites a
// whole 4 KiB page (and its branch pages) for each key it touches, so a link queued
// on its own costs a page or more. New URLs therefore go, where they can, through one
// batched path, the way IRLbot's DRUM and Mercator's batched URL-seen test keep a
// disk-based seen set fast: many URLs are sorted by seen key (a hash of the host,
// then the URL's fingerprint) and merged in that order, over as many transactions as
// keep each one to 8,192 rewritten nodes (bbolt holds them all in memory until the
// commit). Sorted, the URLs of one host come together (its seen keys are neighbours
// and its new queue keys go to its queue's tail), and consecutive chunks touch
// disjoint key ranges, so each page is rewritten about once per batch however the
// batch is split, and memory stays bounded however large it is.
//
//   - An Add of more than 4,096 entries (a seed file, a sitemap, URLs from another
//     process) takes that path at once and returns when the last chunk is committed.
//   - With Options.LinkBatch set, Done writes a page's links as one record at the end
//     of the staged bucket (keys only grow, so the write touches the rightmost leaf)
//     in the transaction that finishes the lease, and once LinkBatch links are staged
//     a fold takes the staged records (up to twice LinkBatch links, at least 100,000)
//     and merges them, a chunk per commit. The meta key "fold" records the fold's last
//     record and how many of its sorted links are queued, so a fold cut by a crash
//     goes on where it stopped; its records leave the staged bucket with its last
//     chunk. Staged links are durable, but they are not leased, counted as added or
//     duplicates, or held to limits until folded in; Stats.Staged counts them. Next
//     folds rather than wait for a host or end the crawl, and Flush folds on demand.
//
// Each URL gets its queue sequence number before the sort (when staged, or in the
// order given to Add), so a host's URLs keep their order; duplicates and limits
// within a batch are decided in seen-key order, the first of two equal URLs winning.
//
// # Repairs
//
// [Frontier.Requeue] gives back to their queues URLs that finished but whose results
// were lost (a WARC record cut by damage), taking them off the done counts.
//
// # Caveats
//
// The Frontier stores URLs as given: canonicalising them is the caller's job, and two
// spellings of one URL are two URLs here. A retried URL keeps its place at the head of
// its host's queue and delays the whole host until its retry time. Only one process may
// open the file for writing; [Options.ReadOnly] opens it for inspection, and fails
// quickly while a crawl holds it.
package frontier
