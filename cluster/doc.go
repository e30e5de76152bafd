// Package cluster lets several crawler processes share one crawl through NATS
// JetStream: it maps URLs to shards, hands links to the process that owns their shard,
// and keeps the processes' state in a JetStream key-value bucket.
//
// A crawl has a fixed number of shards (Config.Shards, 64 by default, at most
// MaxShards), recorded when the crawl is created. A URL's shard is a hash of its
// registered domain (ShardOf), so all hosts of one site, their robots.txt and their
// pacing live in one process. Each process owns some shards (Config.Own, see
// ParseShards) and keeps its own data directory. The package knows shards and NATS; it
// does not know the frontier: the engine converts between Link and its own entries.
//
// # Guarantees
//
//   - At-least-once hand-off. Publish returns only once JetStream has stored every
//     batch, so a page's links are either in the local frontier or in the stream before
//     the page's lease is finished. Batches wait in the stream while their owner is down.
//   - Acknowledgement after commit. Consume acknowledges a batch only after Intake
//     returned nil, that is after the owner's frontier committed its links. A batch whose
//     intake failed, or whose owner died before acknowledging it, is delivered again
//     (after Config.AckWait for a crash).
//   - Deduplication by the owner's seen set. A batch may therefore arrive twice; the
//     frontier drops URLs it has seen. Publish also sends a URL once per call, and gives
//     each message an ID (a digest of its content) that JetStream stores only once within
//     its two-minute duplicate window, so a retried publish does not duplicate.
//   - Damaged messages (not a batch of this format, or failing its CRC-32C) are
//     terminated, counted (Stats.Damaged) and logged; they never block a shard.
//   - Fencing of shard ownership. A process may fetch its shards' hosts only while it
//     holds its lease (AwaitLease): Config.Lease (half of StaleAfter by default) from
//     the sending of its last report that the server stored. Another process may take
//     a shard over only once the owner's report is older than StaleAfter, and only by
//     rewriting that report over the revision it read; the owner writes its reports
//     over its own last revision, so its next one fails and it learns there which
//     shards it lost (logged as an error), stops taking in their links and answers
//     ErrShardLost for their URLs, which the engine then hands to the new owner. A
//     process cut off from NATS thus stops fetching within the lease, before anyone may
//     take its shards, and two processes never fetch one host at the same time.
//   - The end of the crawl (Finished) is agreed through the state bucket: every shard is
//     owned by an idle process (a running one whose report is fresh, or one that stopped
//     idle), every shard's queue is drained, every owner reported after taking in what
//     its consumers acknowledged (compared in consumer sequences), and nothing changed
//     between two checks. Each process reports (Report) every few seconds; a process
//     that dies stops reporting and holds the end back until it is started again.
//
// # Cost
//
// JetStream's cost is per message, so Publish sends one message per shard per call, and
// merges the calls that wait together (many workers each publishing a page's links):
// the fewer, larger messages, the cheaper each link (see BENCHMARKS.md).
//
// # NATS names
//
// For Config.Stream S (default "POLITECRAWL"):
//
//   - Stream S, work-queue retention, file storage, subjects "S.shard.*". Shard n's
//     batches are published to "S.shard.<n>" and consumed by the durable pull consumer
//     "shard-<n>" (explicit acknowledgement, at most 64 unacknowledged batches).
//   - Key-value bucket "S_state" (history 1): key "shards" holds the shard count in
//     decimal; key "node.<name>" holds each process's State as JSON, written over its
//     previous revision (a compare-and-set) by its process, or by one taking it over.
//
// Everything used exists in NATS Server 2.9 (one filter subject per consumer, key-value
// buckets), so the Debian package works as the server.
//
// # Caveats
//
// Join refuses shards that another running process reports owning, and takes over those
// of a process whose report is stale or that stopped. A process's name is its identity:
// a process started with the name of a running one replaces it (the earlier run finds
// that at its next report, and the new one starts fetching only once the earlier run's
// lease has lapsed), so give each process its own (the default, host name and shards,
// is). Shards are fixed for the life of a crawl; moving a shard to another process means
// stopping its owner (which then reports stopped) and starting the new one with the
// shard, whose frontier starts empty for that shard: URLs the old owner had queued stay
// in its data directory (a taken-over owner that still runs hands them on). Two
// processes that join at the same moment for the same unowned shard may both get it.
// Reports carry their writer's clock: the machines' clocks must agree to well within
// StaleAfter - Lease (NTP does).
//
// # Message format
//
// A batch is "pcl", a version byte (1), the number of links, the links (URL, found-on URL
// shared within the batch, depth, priority, hops, kind, as varints), and a CRC-32C of
// all that. A batch holds at most 4096 links and about 64 KiB. Consume holds at most
// 16 delivered batches per owned shard (and 1024 in all) in memory.
package cluster
