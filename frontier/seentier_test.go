package frontier

import (
	"errors"
	"math"
	"testing"
)

// TestSeenTierLarge: the tier of a run of any count a decoded directory accepts is
// found, and no smaller than that of a quarter of it. The tiers' sizes grew by
// multiplying until they passed the count, and for a count of 2^62 or more (a
// damaged directory) the size overflowed to 0 and the first commit after Open
// looped for ever.
func TestSeenTierLarge(t *testing.T) {
	for _, n := range []int64{1 << 40, 1<<62 - 1, 1 << 62, math.MaxInt64} {
		got := tier(n)
		if got < tier(n/int64(seenFanIn)) || got > 64 {
			t.Errorf("tier(%d) = %d, tier of a quarter %d", n, got, tier(n/int64(seenFanIn)))
		}
	}
}

// TestSeenStateHugeRun: a directory whose run counts more blocks than an int64 of
// keys can hold is damaged. The check that a run's keys fit in its blocks multiplied
// the two, and this count of blocks, times 200 keys, wraps to more than its keys.
func TestSeenStateHugeRun(t *testing.T) {
	if blockKeys != 200 {
		t.Fatalf("blockKeys %d: the wrapping count below is for 200", blockKeys)
	}
	st := seenState{nextID: 2, runs: []seenRun{{id: 1, n: 5188146770733280584, blocks: 118174454222214161}}}
	if _, err := decodeSeenState(st.encode()); !errors.Is(err, errCorrupt) {
		t.Fatalf("decodeSeenState of a run of %d blocks: got %v, want errCorrupt", st.runs[0].blocks, err)
	}
}
