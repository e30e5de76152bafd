// Package storage writes what a crawl leaves behind: WARC 1.1 archives
// (ISO 28500:2017) for archivists and a pages.jsonl index for search-index and
// corpus pipelines.
//
// A [WARCWriter] turns each fetch into a request record and a response record
// joined by WARC-Concurrent-To, or into a revisit record when the payload was
// archived before in this crawl (the payload-digest index lives in a bbolt file
// beside the WARC files, so it survives a restart). Every record is its own gzip
// member, so a record can be read by seeking to its [Location]. A [PagesWriter]
// appends one JSON object per fetched document to pages.jsonl, and a
// [SkippedWriter] one per URL not fetched to skipped.jsonl, with why.
//
// The writers are safe for concurrent use and durable: a write returns only
// after its bytes were fsynced, and concurrent writers share one fsync (group
// commit), so many workers do not pay one fsync each. After a crash the last
// record of the newest WARC file, or the last line of pages.jsonl, may be torn;
// opening the writer again detects it and cuts it off, so every record and every
// line on disk is whole. A record written but not yet acknowledged when the
// process died may be kept or cut; a record acknowledged is never lost.
//
// A crawler writes a page in one wait with a [Group]: [WARCWriter.Append] writes
// the records without waiting, and [Group.Write] queues the page's pages.jsonl line
// (and skipped.jsonl lines) and returns once all are durable; or [Group.Queue]
// queues them without waiting and [Group.Sync], called once for many pages (the
// crawl's frontier calls it before it commits their Dones), makes them durable.
// A round of the group syncs the WARC file first and only then writes and syncs the
// lines, so no line is ever on disk, synced or not, before the records it points
// at; the pages of a round share its two fsyncs.
//
// [WARCWriter.Repairs] and [PagesWriter.Repair] say what was cut, for the log; a
// last pages.jsonl line that lacks only its newline is kept. A new WARC file
// appears only once its warcinfo record is whole (it is written under a
// temporary name and renamed), so a full disk leaves no empty file. The end of
// every older WARC file is checked too, and damage there is reported
// ([WARCWriter.Damaged]), never repaired. [PagesWriter.FindLost] finds the
// pages.jsonl lines whose record is gone, for the caller to fetch them again
// before [PagesWriter.Drop] removes them; [Verify] checks a whole directory,
// record by record.
//
// # Bytes stored
//
// The response record holds the HTTP message as received: the status line and
// header fields exactly as the server sent them, then the entity body as
// received (content-encoding kept). The one change is for chunked messages: the
// caller hands over the de-chunked body, so the "chunked" coding is removed from
// Transfer-Encoding (the field is dropped when nothing else is left) and the
// record says so in the extension field WARC-Politecrawl-Dechunked: yes.
// WARC-Payload-Digest is the SHA-1 of that de-chunked, still-encoded body,
// WARC-Block-Digest the SHA-1 of the whole block, both "sha1:" and upper-case
// base32.
//
// # Revisits
//
// A body archived before (same payload digest, in this run or an earlier one
// with the same digest index) is written as a revisit record with profile
// identical-payload-digest. A 304 Not Modified is written as a revisit with
// profile server-not-modified whose WARC-Refers-To, -Target-URI and -Date name
// the URI's last 2xx capture; it has no WARC-Payload-Digest. The digest index
// keeps, per URI, that last capture and its ETag and Last-Modified
// ([WARCWriter.LastCapture]), which a refetch sends as a conditional GET. The
// index takes digests and captures in batches once their records are durable;
// those a crash kept out of it are read back from the WARC files when the
// directory is opened again, so no payload is stored twice across a kill.
//
// [WARCWriter.ImportDedup] adds to the digest index the digests and captures of
// an earlier crawl (its digests.db, or its CDXJ files), so that its payloads
// too are written as revisits, pointing at its records: WARC-Refers-To is left
// out when the record is known from a CDXJ line only, which has no record ID.
//
// # Index and payload types
//
// Beside each WARC file the writer keeps its CDXJ index, the form pywb and
// ReplayWeb.page read: one line per response and revisit record, "SURT-key
// timestamp {json}" with url, mime, status, digest, length, offset and
// filename, and mime-detected where the sniffed type differs from mime
// (keys from [SURT], as pywb computes them). A line is written only once its
// record is durable, into NAME.warc.gz.cdxj.open; when the WARC file is closed
// the lines are sorted into NAME.warc.gz.cdxj. An open index a crash left
// behind is rebuilt from the WARC file when the directory is opened again, or
// by [RebuildIndexes]; [IndexWARC] reads the lines of any WARC file. The index
// of a WACZ ([PackWACZ]) is these lines merged, but for server-not-modified
// revisits, whose 304 status it leaves out so that ReplayWeb.page resolves them
// to the capture they refer to (see replayLine).
//
// # WET files
//
// With WARCOptions.WET the writer keeps, beside each WARC file, its WET file in
// Common Crawl's layout (NAME.warc.wet.gz, [WETName]): a warcinfo record, then
// one conversion record per [Exchange.Conversion] (an HTML page's main text,
// Content-Type text/plain, WARC-Refers-To its response or revisit record,
// WARC-Identified-Content-Language when known), each its own gzip member, in the
// order the WARC file holds the pages. A WET file starts before its WARC file and
// is synced with it in each group commit, so an acknowledged page's text is
// durable; OpenWARC removes a WET file whose WARC file never started and cuts the
// newest WET file after its last whole record whose response the WARC file still
// holds. A page written but not acknowledged when the process died may keep its
// response without its text; it is fetched again.
//
// Response records carry WARC-Identified-Payload-Type only where it refines
// the type the server declared: the media type sniffed from the payload
// (content coding undone) when the response declares no type or a generic one
// (application/octet-stream), and application/json for JSON served as
// text/plain. A specific declared type is never contradicted, since replay
// tools serve the record with its identified type (ReplayWeb.page does): an
// XHTML page served as text/html sniffs as text/xml, a stylesheet as
// text/plain, and either would stop rendering. A generic sniff (text/plain,
// application/octet-stream) is never written.
//
// # Caveats
//
// Only one process may use a WARC directory at a time: the digest index is
// locked by bbolt, and OpenWARC fails after a second of waiting for it.
// Returned slices and strings are not retained or modified by the writers; the
// caller may reuse an Exchange once WriteExchange returns.
package storage
