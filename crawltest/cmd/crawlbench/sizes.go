package main

import "time"

// sizes are the dimensions of every scenario.
type sizes struct {
	// polite
	politeHosts      int
	politePages      int // per host
	politeLinks      int // per page
	politeDelay      time.Duration
	politeCrawlDelay time.Duration // of every politeDelayEvery-th host
	politeDelayEvery int

	// cpu and resume share a farm.
	cpuHosts     int
	cpuPages     int           // per host
	cpuLinks     int           // per page
	cpuPageSize  int           // bytes
	cpuLatency   time.Duration // added by the farm to every response
	resumeKillAt float64       // fraction of the expected requests served before the kill

	// scale
	scaleURLs   []int // sizes measured in turn, each growing the frontier of the one before
	scaleHosts  int
	scaleBatch  int // URLs per frontier.Add while building
	scaleCycles time.Duration

	// hostile
	hostileCopies int // sites of each hostile kind
	hostileSize   int // bytes of the hostile pages other than bombs
	hostileBomb   int // bytes a bomb decodes to
	hostileNormal int // ordinary sites of 20 pages beside them
	bombHosts     int // bomb hosts crawled at once

	// seeds
	seedsURLs  int // seed URLs in the file
	seedsHosts int // hosts they spread over, interleaved: every batch touches them all

	timeout      time.Duration // per scenario, scale and seeds excepted
	scaleTimeout time.Duration
}

// fullSizes are the sizes of the goals.
var fullSizes = sizes{
	politeHosts:      500,
	politePages:      40,
	politeLinks:      10,
	politeDelay:      time.Second,
	politeCrawlDelay: 1500 * time.Millisecond,
	politeDelayEvery: 100,

	cpuHosts:     1000,
	cpuPages:     20,
	cpuLinks:     50,
	cpuPageSize:  30 << 10,
	resumeKillAt: 1.0 / 3,

	scaleURLs:   []int{1_000_000, 10_000_000},
	scaleHosts:  100_000,
	scaleBatch:  500_000,
	scaleCycles: 10 * time.Second,

	hostileCopies: 2,
	hostileSize:   10 << 20,
	hostileBomb:   64 << 20,
	hostileNormal: 50,
	bombHosts:     16,

	seedsURLs:  10_000_000,
	seedsHosts: 100_000,

	timeout:      5 * time.Minute,
	scaleTimeout: 30 * time.Minute,
}

// shortSizes make every scenario take a second or two (more under the race detector).
var shortSizes = sizes{
	politeHosts:      20,
	politePages:      10,
	politeLinks:      4,
	politeDelay:      50 * time.Millisecond,
	politeCrawlDelay: 100 * time.Millisecond,
	politeDelayEvery: 10,

	cpuHosts:     20,
	cpuPages:     10,
	cpuLinks:     10,
	cpuPageSize:  30 << 10,
	cpuLatency:   20 * time.Millisecond, // so that the resume crawl lasts long enough to be killed in the middle
	resumeKillAt: 1.0 / 3,

	scaleURLs:   []int{100_000},
	scaleHosts:  1_000,
	scaleBatch:  25_000,
	scaleCycles: time.Second,

	hostileCopies: 1,
	hostileSize:   1 << 20,
	hostileBomb:   4 << 20,
	hostileNormal: 5,
	bombHosts:     4,

	seedsURLs:  20_000,
	seedsHosts: 1_000,

	timeout:      2 * time.Minute,
	scaleTimeout: 2 * time.Minute,
}
