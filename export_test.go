package crawl

import "time"

// SetRobotsStopGrace sets how long a graceful stop waits for the answer to a robots.txt
// request already written, and returns a function that restores it. Tests that stop a
// crawl while the server holds its answer use it so that the outcome does not depend
// on how busy the machine is.
func SetRobotsStopGrace(d time.Duration) (restore func()) {
	old := robotsStopGrace
	robotsStopGrace = d
	return func() { robotsStopGrace = old }
}
