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
// The file holds nine buckets:
//
//   - meta: format marker, sequence counters, crawl-wide counters and the seen set's
//     directory;
//   - hosts: one record per authority (scheme://host[:port]) with its id, ready time
//     and counts (queued, done, failed, skipped, consecutive errors, queued for later
//     and the earliest of those due times), so that Open reads one record per host and
//     never the queue itself;
//   - queue3: one key per queued URL, host id + due time + priority (descending) +
//     depth (ascending) + sequence number, so a host's queue is one contiguous key
//     range: first the URLs due at once (due time 0: every new link) in priority
//     order, then those given back for later (Outcome.Refetch) by due time;
//   - seen0, seenruns and seen: the seen set, every URL ever accepted, as 4 bytes of
//     a hash of its host followed by a 128-bit truncated SHA-256 fingerprint of the
//     URL: a small B+tree (level 0), sorted runs of such keys, and the format-4 seen
//     set, read and never written (see The seen set);
//   - leases: the queue keys leased and not yet finished; Open returns them to their
//     queues (at-least-once);
//   - robots: cached robots.txt data by authority, opaque to this package;
//   - staged: the Done log, one record per commit under a growing sequence number:
//     the outcomes of Done not yet written to the hosts and queue3 buckets, and the
//     links found by Done and not yet queued (see The Done log and The batched path
//     below). A record is stored in parts of at most 992 bytes (four to a 4 KiB
//     page), keyed by its sequence number (8 bytes) and the part's index (4 bytes,
//     the top bit set on the last part); files written before hold each record whole
//     under its sequence number, and are read as they are.
//
// In memory the Frontier keeps a small fixed record per host (about 230 bytes with its
// name and its place in the map of hosts and in a min-heap of hosts keyed by the time
// each may be leased next: 23 MB for 100,000 hosts); it keeps nothing per URL but the
// leases outstanding, the queue changes logged and not yet folded in (at most about
// Options.LogBatch of them, 64 to 90 bytes each) and the index of a fold in progress, 32
// bytes per link for at most Options.FoldLinks links (262,144 by default: 8 MiB; see
// The batched path). bbolt
// maps the file with 1 GiB of address space from the start and grows it 4 MiB at a
// time: a remap, at every doubling otherwise, copies every node the transaction has
// changed and made intake three times slower. A page read through the mapping counts in the process's
// resident set (RssFile) for as long as it stays mapped, and the kernel unmaps it
// only when memory runs short: a fold reads most of the file, several GiB at 10M
// URLs. bbolt never writes through the mapping (it writes with pwrite), so its
// pages are clean copies of the page cache, and the Frontier drops them from the
// process (madvise MADV_DONTNEED, inside a read transaction, which keeps bbolt from
// remapping meanwhile) whenever the process's file-backed resident size has grown by
// Options.ResidentMap, 64 MiB by default, since the last drop. A read maps the pages around the
// one it reads too (64 KiB, or a whole large folio of the page cache), so a fold's
// commit that reads a thousand random leaves maps 100 MiB: a goroutine checks every
// 10 ms, beside the commits (a read transaction may run beside a write one), the
// committer after each commit, and Open and Check at their end (a read-only Frontier
// has only those). The page cache keeps the pages, and the next read of
// one maps it again (a minor fault). Linux only.
//
// Format 3, 4 and 5 files (before the Done log, before the seen set in runs, before a
// fold's records were deleted over several commits) are read as they are, and a
// writable Open marks them format 6, which older builds refuse: they would fold again
// the records that only the meta key "folded" says are folded in. Format
// 2 files (queue keys without a due time, in a bucket named queue) are upgraded by the
// first writable Open, 50,000 entries per transaction; a crash part way leaves a file
// the next Open goes on upgrading. A read-only Open reads them as they are.
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
// # The Done log
//
// Done rewrites no page of the hosts or queue3 trees: in the transaction that finishes
// the lease it appends one record to the end of the staged bucket (keys only grow and
// pages are filled whole, so only the rightmost leaf and its branch are rewritten; the
// record is cut into parts of a quarter page, since bbolt never splits a leaf of four
// keys or fewer and would rewrite, with each commit, the whole records of the three
// before), one record per group commit, holding the records of the hosts whose outcomes
// it carries, as they are after the commit and stamped with the record's key, the queue
// changes (the key of a URL finished, failed or skipped, to delete; a retried URL's key
// with its new attempt count; a refetched URL's new key, due later) and the links it
// staged. When Done returns, all of that is durable.
//
// Until a fold writes them, the changes are also held in memory: the host records in
// the hosts' state, the queue changes per host, which Next reads over the queue3
// bucket, so that a URL finished in the log is never handed out again and a retried
// one comes back with its attempt count. Once Options.LogBatch queue changes are
// pending (50,000 by default), or one host has 512 of them (Next reads over a host's
// pending changes to find its head), or LinkBatch links are staged, a fold takes the
// records of the log from the first, up to a bound on their links, and writes them
// over as many commits as keep each to a bounded number of rewritten nodes: first the
// staged links (The batched path), then the queue changes sorted by key, then the
// hosts' records sorted by name; its records leave the log with its last commit.
// The commits that queue the staged links change the records of the hosts they
// touch (their counts of queued URLs) and log them too, as Done does, rather than
// write them: one commit's links touch hosts all over the hosts tree, which each of
// them rewrote whole; the fold's last steps write them once. They also apply the
// queue changes pending for those hosts, whose queue pages they rewrite anyway; the
// pass in key order then finds only the changes of hosts that got no link (and
// applies again, harmlessly, those of the commit that ends the links).
//
// Every change in the log is absolute (a value to put, a key to delete, a whole host
// record), so writing a record twice changes nothing: a fold cut by a crash is redone
// from its records. The meta key "fold" records how far the fold went (its last
// record, the links queued, the last queue change written) so that a fold cut at each
// of its commits still ends. Its records then leave the log over the next commits,
// about 1,024 rewritten nodes each, while the meta key "folded" names the last of
// them: the next fold, Open and Check read only the keys of those (see stage.go). A
// host record in the hosts bucket carries the key of the last log record that held
// that host; Open reads the log, takes a logged host record only if its key is
// greater, and keeps the queue changes in memory again, and the next fold writes
// them.
//
// # The batched path
//
// A page's links land all over the seen, queue and hosts trees, and bbolt rewrites a
// whole 4 KiB page (and its branch pages) for each key it touches, so a link queued
// on its own costs a page or more. New URLs therefore go, where they can, through one
// batched path, the way IRLbot's DRUM and Mercator's batched URL-seen test keep a
// disk-based seen set fast: many URLs are sorted by seen key (a hash of the host,
// then the URL's fingerprint) and merged in that order, over as many transactions as
// keep each one to 8,192 rewritten nodes for an Add, 512 for a fold (bbolt holds
// them all in memory until the commit), and to 8 URLs per node of that budget: the
// URLs of hosts a batch creates all go to the queue's last leaf, which bbolt splits
// only at the commit, so the node count does not see them. Sorted, the URLs of one
// host come together (its seen keys are neighbours and its new queue keys go to its
// queue's tail), and consecutive chunks touch
// disjoint key ranges, so each page is rewritten about once per batch however the
// batch is split, and memory stays bounded however large it is. A batch's new seen
// keys, in that order, are appended as one sorted run (see The seen set).
//
//   - An Add of more than 4,096 entries (a seed file, a sitemap, URLs from another
//     process) takes that path at once and returns when the last chunk is committed.
//     What can be done outside the committer goroutine, which every caller waits
//     for, is done in the caller's: each URL's host (without url.Parse for the URLs
//     most crawls meet) and fingerprint, split over GOMAXPROCS goroutines for a
//     large Add, the sort, the lookups in the seen set, in read transactions of
//     16,384 URLs (a URL seen then is a duplicate, and the commits look the others
//     up again only in what was added since: level 0, the runs made since, the run
//     then open), and the encoding of each commit's entries before it. Add sorts a key
//     of 28 bytes per entry (seen key, index, refusal, lookup) and prepares an entry
//     (its host and encoded value, about 350 bytes in all for frontierbench's URLs)
//     only for the commit that takes it, and it sorts at most 4,194,304 entries
//     together: a larger Add is taken in windows of that many, in the order given, so
//     that its memory is bounded (112 MiB of keys) however many entries it is given,
//     for about one more rewrite of each host's tail page per window (one Add of 10M:
//     3.8 GiB of peak RSS, most of it the caller's entries). An Add does
//     not go through the log: its answer (how many were new) needs its own lookups
//     and limits, which it can decide at once, but a fold of its URLs later (as
//     Stage's are folded) costs, as the frontier is today, more than the Add's own
//     commits: at 10M URLs over 100,000 hosts, Stage with folds of 4M writes 0.37 of
//     an Add's bytes per URL but spends three times its system time on the drops of
//     the mapped pages (Options.ResidentMap) that its folds' reads all over the file
//     set off, and runs no faster (BENCHMARKS.md). What bounds a large
//     Add is the committer: at 10M URLs over 100,000 hosts, about 7 to 8 µs of its
//     CPU per URL, 4 of them bbolt's commit of the pages the Add rewrites (2 KiB per
//     URL for Adds of 300,000).
//   - With Options.LinkBatch set, Done writes a page's links into its log record
//     rather than queue them, and once LinkBatch links are staged a fold takes the
//     log's records (whole records, up to LinkBatch or Options.FoldLinks links,
//     whichever is more) and merges their links, a chunk per commit, before their
//     other changes (see The Done log for how a fold cut by a crash goes on where it
//     stopped). A fold does not hold its links: it reads each link's seen key and
//     where it lies in the log into an index of 32 bytes per link, sorts that by
//     seen key and then by the order the links were staged in, and each commit
//     reads from the log and decodes only the links of its chunk (from the second
//     commit on, a goroutine beside the committer reads them and looks them up in
//     the seen set ahead, in read transactions, and the commit looks again only at
//     what the seen set got since: foldread.go). The larger the
//     fold, the fewer bytes per link it writes: it rewrites about one queue page
//     per host it touches, however many links the host gets (at 10M URLs over
//     100,000 hosts, a host's queue spans several pages and a fold of 100,000
//     links rewrites about a page per link). So a fold may take in more links
//     than it sorts in memory: FoldLinks at a time, an external merge sort. By
//     default a fold takes in up to 1,048,576 links (or LinkBatch, if more) and
//     sorts 262,144 at a time (8 MiB): a fold of a seeds file's million links
//     writes as few bytes per link as one sorted whole, for a quarter of the
//     memory. Each sorted chunk of the index goes to a temporary
//     file beside the database, unlinked as soon as it is made (a crash leaves
//     nothing behind, or, where an open file cannot be unlinked, nothing the next
//     Open does not remove: a fold cut by one indexes its records again and passes over
//     the links it had queued, which come first in the same order), and the fold
//     merges the chunks as it reads them, one 64 KiB buffer each. Staged links are durable,
//     but they are not leased, counted as added or duplicates, or held to limits
//     until folded in; Stats.Staged counts them. Next folds rather than wait for a
//     host or end the crawl, and Flush folds on demand. Outcome.Requisites (what the
//     page needs to be shown) are never staged: Done queues them in its own
//     transaction, as an Add of a few entries, so that they are due right after
//     the page; a site's pages name the same few stylesheets and scripts, so most
//     of them are duplicates, found by a lookup that writes nothing.
//   - Stage takes many entries the way Done takes a page's links: it appends them to
//     the log as staged records, in commits of at most 16,384 entries (cheap,
//     sequential writes, and memory bounded however many it is given), and a fold
//     merges them with the rest. It is for bulk intake whose caller needs no answer
//     per URL (the engine's hand-offs from other processes when it stages links):
//     an Add of N entries rewrites about every host's queue tail page once per Add,
//     however small its share, while staged entries are folded up to a fold's
//     span at a time (FoldLinks, or 1,048,576 by default). Unlike Add, Stage decides only refusals by URL and depth at once;
//     duplicates and limits are decided at the fold. With LinkBatch 0 the fold
//     starts once a fold's span is staged, or when Next or Flush asks.
//
// Each URL gets its queue sequence number before the sort (when staged, or in the
// order given to Add), so a host's URLs keep their order; duplicates and limits
// within a batch are decided in seen-key order, the first of two equal URLs winning.
//
// # The seen set
//
// A seen key is a hash, so new URLs land all over the key space: in a B+tree of every
// seen key (format 4), a fold of F links rewrote about min(F, pages) of its 4 KiB
// pages, about 600 bytes per link at 10M URLs, half of what a fold wrote. The seen
// set is now a log-structured merge of sorted runs, as IRLbot's DRUM keeps it on
// disk, with bbolt as the only store:
//
//   - Level 0 (bucket seen0) is a B+tree of at most 16,384 keys, about 200 pages, for
//     the URLs added one by one (Done's links when not staged, a small Add). Once
//     full, a commit writes it out, in key order, as a run and empties it.
//   - A run (bucket seenruns) is an immutable sorted set of keys in blocks of up to
//     200 keys (4,000 bytes, so that two blocks fill two pages), each under the run's
//     id and its first key, written in key order only (FillPercent 1: full pages).
//     A sorted stream of at least 1,024 new URLs (a fold's links, a large Add) writes
//     its new keys straight into a run of its own, a block per 200 URLs, instead of
//     rewriting a page per link.
//   - The format-4 bucket seen, if the file has one, is the oldest level: looked up,
//     never written again.
//
// A lookup probes level 0, then each run (a seek to the block that would hold the
// key), then the format-4 bucket. The fold looks keys up in ascending order, so each
// run keeps the block it read last and answers the next keys that fall in its range
// without a seek: a fold reads at most one block per run and block.
//
// Runs are merged tiered: a run of n keys is of tier t when 1,024·4^t <= n <
// 1,024·4^(t+1) (tier 0 below 4,096), and once four runs are of one tier, they are
// merged into one, of the next tier, 256 blocks (1 MiB) per commit, reading each run
// in order with one block in memory. Tiered rather than leveled, by the arithmetic:
// at 10M URLs level 0 fills about 610 times (its runs are of tier 2); tiered with a
// fan-in of 4, a key is rewritten once per tier it climbs, about log4(610) = 5 times
// (100 bytes per URL over the crawl), and lookups probe at most 3 runs per tier,
// about 15; leveled with a fan-in of 10 keeps 3 runs but rewrites each key
// about 5 times per level (each merge into a level rewrites that whole level), some
// 15 times, 300 bytes per URL. What bounds the crawl is bytes written (see
// BENCHMARKS.md), and a probe reads a block that the fold's ascending order mostly
// finds already read, so tiered wins.
//
// The meta key "seenset" is the directory: the complete runs with their keys and
// blocks, the keys in level 0, the run a sorted stream is appending to, a merge under
// way (its input runs, its output run and the last key written) and the merged-away
// runs whose blocks are still to delete (at most 512 per commit). It changes in the
// transaction that writes the blocks it describes, so a crash leaves them agreeing: a
// merge's output is a run of the directory only once complete (until then its
// inputs answer lookups), and a merge or a stream cut by a kill -9 goes on from the
// last key its last commit wrote. Check reads every block (sorted, no overlap within
// a run, sizes, counts as the directory says, no block of a run it does not name).
//
// # Why the queue stays one B+tree keyed by host
//
// What a fold writes per link is now mostly queue pages: a host's URLs are one key
// range, so a fold rewrites the last page of every host it gives a link, 4 KiB however
// few links that host gets: the fewer links per host in a fold, the more bytes per link
// (at 10M URLs over 100,000 hosts, folds of 1,000,000 links wrote 0.75 of the bytes per
// cycle of folds of 100,000: BENCHMARKS.md, "folds larger than memory"). A layout keyed
// by fold instead (each fold's links written once, in order, as a segment of their own,
// as the seen set's runs are) writes each link once, about 150 bytes, but then a host's
// queue is spread over every segment that holds some of its URLs: Next must merge them,
// a finished URL must be marked without rewriting its segment (a cursor per host and
// segment, and a set for the leases finished out of order and the retries), and the
// segments per host must be bounded by merging them, which rewrites the queued URLs
// again at each merge (with the seen set's fan-in of 4, about 3 more times at 10M
// URLs): about 600 bytes per link in all. A fold that gives each host 10 links or more
// writes about as much into a host-keyed queue (a page or two per host, 4 KiB each), so
// segments would win only over small folds, for a read path several times as complex
// and without the guarantee that is simplest to check today, that a host's queue is its
// key range. Larger folds reach the saving with the layout unchanged, and a fold no
// longer needs the memory to sort them (The batched path); so the queue stays a B+tree.
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
