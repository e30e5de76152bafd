package lang

import (
	"os"
	"testing"
)

// BenchmarkDetect judges the main text of a chapter of Debian Reference in German
// (debian-reference-de, GPL-2+), 21 KB.
func BenchmarkDetect(b *testing.B) {
	text, err := os.ReadFile("testdata/bench_de.txt")
	if err != nil {
		b.Fatal(err)
	}
	s := string(text)
	Detect(s)
	b.SetBytes(int64(len(s)))
	b.ResetTimer()
	for b.Loop() {
		Detect(s)
	}
}
