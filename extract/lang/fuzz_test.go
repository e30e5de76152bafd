package lang

import (
	"testing"
	"unicode/utf8"
)

// FuzzDetect: any bytes give a Result without panic, with a known script for a known
// language and a confidence in [0, 1].
func FuzzDetect(f *testing.F) {
	for _, tt := range detectTests {
		f.Add(tt.text)
	}
	f.Add("")
	f.Add("\xe3\x81")
	f.Add("a\u0301\u0301\u0301 ᄀ가 ｡ｱ Ａｂｃ")
	f.Fuzz(func(t *testing.T, text string) {
		all := DetectAll(text)
		sum := 0.0
		for _, r := range all {
			if r.Code == "" || r.Script == "" {
				t.Fatalf("DetectAll(%q): %+v has no code or script", text, r)
			}
			if r.Confidence < 0 || r.Confidence > 1 {
				t.Fatalf("DetectAll(%q): confidence %v", text, r.Confidence)
			}
			sum += r.Confidence
		}
		if sum > 1.01 {
			t.Fatalf("DetectAll(%q): confidences add up to %v", text, sum)
		}
		if d := Detect(text); len(all) > 0 && d != all[0] || len(all) == 0 && d != (Result{}) {
			t.Fatalf("Detect(%q) = %+v, DetectAll's first %+v", text, d, all)
		}
		if utf8.ValidString(text) && len(text) <= numWindows*windowBytes && len(all) == 0 {
			for _, r := range text {
				if r >= 'a' && r <= 'z' {
					t.Fatalf("DetectAll(%q) = nil for a text with a letter", text)
				}
			}
		}
	})
}
