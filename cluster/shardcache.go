package cluster

import (
	"hash/maphash"
	"sync/atomic"
)

// shardCache remembers the shards of recently seen hosts for one shard count, so that a
// page's links to the same sites do not each look up the public suffix list. It holds a
// fixed number of entries (a host replaces whatever shared its slot) and is safe for
// simultaneous use by multiple goroutines.
type shardCache struct {
	total int
	seed  maphash.Seed
	slots [4096]atomic.Pointer[cachedShard]
}

type cachedShard struct {
	host  string
	shard int
}

func newShardCache(total int) *shardCache {
	return &shardCache{total: total, seed: maphash.MakeSeed()}
}

// shardOf is ShardOf(rawURL, c.total).
func (c *shardCache) shardOf(rawURL string) (int, error) {
	host, ok := quickHost(rawURL)
	if !ok {
		return ShardOf(rawURL, c.total)
	}
	slot := &c.slots[maphash.String(c.seed, host)%uint64(len(c.slots))]
	if e := slot.Load(); e != nil && e.host == host {
		return e.shard, nil
	}
	s, err := ShardOf(rawURL, c.total)
	if err == nil {
		slot.Store(&cachedShard{host: host, shard: s})
	}
	return s, err
}
