package optout_test

import (
	"fmt"

	"github.com/politecrawl/crawl/optout"
)

func Example() {
	file, _ := optout.ParseTDMRep([]byte(`[{"location": "/articles/", "tdm-reservation": 1}]`))
	fromFile, _, _ := file.Match("https://news.example/articles/1.html")
	v := optout.Evaluate(optout.Signals{
		TDMFile:   fromFile,
		TDMHeader: optout.TDMHeader(map[string][]string{}),
		NoAI:      optout.RobotsTag(map[string][]string{"X-Robots-Tag": {"noimageai"}}, "ExampleBot"),
		Usage:     []string{"search=y, train-ai=n"},
	})
	fmt.Println(v)
	by, reserved := v.Reserves(optout.UseAITrain)
	fmt.Println(reserved, by)
	_, reserved = v.Reserves(optout.UseSearch)
	fmt.Println(reserved)
	// Output:
	// tdm-reservation=1 (tdmrep.json); noimageai (x-robots-tag); content-usage=search=y, train-ai=n; reserved: ai-input, ai-train
	// true tdm-reservation=1 (tdmrep.json)
	// false
}
