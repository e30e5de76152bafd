package lang_test

import (
	"fmt"

	"github.com/politecrawl/crawl/extract/lang"
)

func ExampleDetect() {
	r := lang.Detect("Eines ist wohl sicher: um Debian-Pakete richtig zu bauen und zu warten, brauchen Sie viel Zeit.")
	fmt.Println(r.Code, r.Script, r.ISO6393())
	// Output: de Latn deu
}

func ExampleDetectAll() {
	for _, r := range lang.DetectAll("この文書の最新版は常にネットワーク経由で入手できます。 The latest version is online.") {
		fmt.Println(r.Code, r.Script, r.ISO6393())
	}
	// Output:
	// ja Jpan jpn
	// en Latn eng
}
