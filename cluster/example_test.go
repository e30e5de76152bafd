package cluster_test

import (
	"fmt"

	"github.com/politecrawl/crawl/cluster"
)

func ExampleParseShards() {
	own, err := cluster.ParseShards("0-3, 8,10-11", 16)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(own, cluster.FormatShards(own))

	_, err = cluster.ParseShards("12-20", 16)
	fmt.Println(err)
	// Output:
	// [0 1 2 3 8 10 11] 0-3,8,10-11
	// cluster: shard list "12-20": shard 20 out of range 0..15
}

func ExampleShardOf() {
	// All hosts of one registered domain share a shard, whatever the port or case.
	a, _ := cluster.ShardOf("https://www.example.co.uk/a", 64)
	b, _ := cluster.ShardOf("http://Shop.Example.co.uk:8080/b", 64)
	fmt.Println(a == b)
	// Output:
	// true
}
