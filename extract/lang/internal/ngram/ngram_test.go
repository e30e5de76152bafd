package ngram

import (
	"bytes"
	"reflect"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		r    rune
		want Script
	}{
		{'a', Latn}, {'Z', Latn}, {'é', Latn}, {'ß', Latn}, {'ệ', Latn}, {'Ａ', Latn},
		{'×', None}, {'1', None}, {' ', None}, {'-', None}, {'€', None},
		{'ж', Cyrl}, {'ع', Arab}, {'٣', None}, {'क', Deva}, {'ि', Deva}, {'।', None},
		{'中', Hani}, {'の', Kana}, {'カ', Kana}, {'・', None}, {'한', Hang}, {'λ', Grek},
		{'ש', Hebr}, {'ก', Thai}, {'ა', Geor}, {'Ա', Armn}, {'த', Taml}, {'𠀀', Hani},
	}
	for _, tt := range tests {
		if got := Of(tt.r); got != tt.want {
			t.Errorf("Of(%q):\n\tgot %v\n\twant %v", tt.r, got, tt.want)
		}
	}
}

func TestGrams(t *testing.T) {
	var got []uint64
	letters, used := Grams("Ab, ы c!", Latn, 100, func(k uint64) { got = append(got, k) })
	want := []uint64{
		Key(' ', 'a'), Key('a', 'b'), Key(' ', 'a', 'b'), Key('b', ' '), Key('a', 'b', ' '),
		Key(' ', 'c'), Key('c', ' '), Key(' ', 'c', ' '),
	}
	if !reflect.DeepEqual(got, want) || letters != 3 || used != len("Ab, ы c!") {
		t.Errorf("Grams(\"Ab, ы c!\"):\n\tgot %x, %d letters, %d bytes\n\twant %x, 3 letters, %d bytes", got, letters, used, want, len("Ab, ы c!"))
	}
	letters, used = Grams("abc def", Latn, 2, func(uint64) {})
	if letters != 3 || used != 4 {
		t.Errorf("Grams(\"abc def\", max 2): got %d letters, %d bytes; want 3, 4 (the first word whole)", letters, used)
	}
	for _, k := range want {
		if o := Order(k); o != 2 && o != 3 {
			t.Errorf("Order(%x) = %d", k, o)
		}
	}
}

func TestModelRoundTrip(t *testing.T) {
	m := &Model{
		Langs: []Lang{{"de", Latn, "Latn"}, {"zh", Hani, "Hant"}},
		Floor: [3]uint8{0, 140, 120},
		Grams: map[uint64][]Entry{Key(' ', 'd'): {{0, 30}}, Key('中', '文'): {{1, 50}}, Key('e', 'n', ' '): {{0, 20}, {1, 200}}},
	}
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("Decode(Encode(m)):\n\tgot %+v\n\twant %+v", got, m)
	}
	for n := 0; n < buf.Len(); n++ {
		if _, err := Decode(bytes.NewReader(buf.Bytes()[:n])); err == nil {
			t.Errorf("Decode of the first %d of %d bytes: no error", n, buf.Len())
		}
	}
}

// FuzzDecode: any bytes are decoded or refused without panic, and what decodes
// encodes to a model that decodes the same.
func FuzzDecode(f *testing.F) {
	m := &Model{Langs: []Lang{{"de", Latn, "Latn"}}, Grams: map[uint64][]Entry{Key('a', 'b'): {{0, 9}}}}
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(modelMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(bytes.NewReader(b))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := m.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		m2, err := Decode(&buf)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if len(m2.Grams) != len(m.Grams) || len(m2.Langs) != len(m.Langs) {
			t.Fatalf("re-decode: %d grams, %d languages; want %d, %d", len(m2.Grams), len(m2.Langs), len(m.Grams), len(m.Langs))
		}
	})
}
