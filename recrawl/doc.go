// Package recrawl decides when a finished page is due again, and remembers what it
// needs to decide: schedule.db.
//
// A [Policy] turns the recrawl section's settings ([Options]) into a page's interval:
// the same for every page in fixed mode; in adaptive mode shrunk by 20% when a refetch
// finds the page changed and grown by 40% when it did not (Nutch's
// AdaptiveFetchSchedule rates), kept within a lower and an upper bound, and started
// from what the page's sitemap entry says (changefreq, lastmod). A Policy is a value
// and has no state: it is safe for concurrent use.
//
// A [Store] is schedule.db, a bbolt file with one record per page (its last fetch and
// the one before: [Record]) and one per sitemap hint ([Hint]), nothing per page in
// memory. The engine writes a page's record before it marks the page done in the
// frontier, so a crash in between leaves a record whose current fetch is that of a
// lease fetched again after the restart; the engine then schedules that fetch from
// the one before it (Record.Prev), as if the lost one had not happened. A Store is
// safe for concurrent use; concurrent [Store.Put] calls share one transaction.
//
// # Caveats
//
// A record that cannot be read (damaged, or written by a later version) reads as
// none: that page starts its schedule afresh. A file that cannot be opened is an
// error; deleting it starts every page's schedule afresh and loses nothing else.
package recrawl
