package ngram

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Lang is one language of a model: an ISO 639-1 code, the script its n-grams are read in
// and the script reported for it (Hans or Hant for Chinese, else the same).
type Lang struct {
	Code   string
	Script Script
	Report string
}

// Entry is one language's cost of an n-gram: -ln p in tenths of a nat, at most 255.
type Entry struct {
	Lang uint8
	Cost uint8
}

// Model is a naive Bayes model of character n-grams: the cost of an n-gram in a
// language is -ln of its frequency among the n-grams of that order in the language's
// training text; an n-gram a language does not list costs Floor[order-1].
type Model struct {
	Langs []Lang
	Floor [3]uint8
	Grams map[uint64][]Entry
}

const modelMagic = "politecrawl lang 1\n"

// maxGrams bounds the n-grams Decode accepts, 50 times what the embedded model holds.
const maxGrams = 1 << 22

// Encode writes m in the binary form Decode reads; keys are written in ascending order,
// so the same model gives the same bytes.
func (m *Model) Encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(modelMagic)
	var buf [binary.MaxVarintLen64]byte
	uv := func(v uint64) { bw.Write(buf[:binary.PutUvarint(buf[:], v)]) }
	str := func(s string) { uv(uint64(len(s))); bw.WriteString(s) }
	uv(uint64(len(m.Langs)))
	for _, l := range m.Langs {
		str(l.Code)
		bw.WriteByte(byte(l.Script))
		str(l.Report)
	}
	bw.Write(m.Floor[:])
	keys := make([]uint64, 0, len(m.Grams))
	for k := range m.Grams {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	uv(uint64(len(keys)))
	var prev uint64
	for _, k := range keys {
		uv(k - prev)
		prev = k
		es := m.Grams[k]
		uv(uint64(len(es)))
		for _, e := range es {
			bw.WriteByte(e.Lang)
			bw.WriteByte(e.Cost)
		}
	}
	return bw.Flush()
}

// Decode reads a model that Encode wrote.
func Decode(r io.Reader) (*Model, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, len(modelMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != modelMagic {
		return nil, errors.New("not a language model")
	}
	var err error
	uv := func() uint64 {
		if err != nil {
			return 0
		}
		var v uint64
		v, err = binary.ReadUvarint(br)
		return v
	}
	b := func() byte {
		if err != nil {
			return 0
		}
		var c byte
		c, err = br.ReadByte()
		return c
	}
	str := func() string {
		n := uv()
		if err != nil || n > 64 {
			if err == nil {
				err = errors.New("string too long")
			}
			return ""
		}
		p := make([]byte, n)
		_, err = io.ReadFull(br, p)
		return string(p)
	}
	m := &Model{}
	nl := uv()
	if nl > 255 {
		return nil, fmt.Errorf("%d languages", nl)
	}
	for i := uint64(0); i < nl && err == nil; i++ {
		l := Lang{Code: str(), Script: Script(b()), Report: str()}
		m.Langs = append(m.Langs, l)
	}
	for i := range m.Floor {
		m.Floor[i] = b()
	}
	ng := uv()
	if err != nil {
		return nil, err
	}
	if ng > maxGrams {
		return nil, fmt.Errorf("%d n-grams, more than %d", ng, maxGrams)
	}
	// Sizes grow with what is read rather than with the count claimed.
	m.Grams = make(map[uint64][]Entry, min(ng, 1<<16))
	var all []Entry
	var k uint64
	for i := uint64(0); i < ng && err == nil; i++ {
		k += uv()
		n := uv()
		if n > nl {
			return nil, fmt.Errorf("n-gram %x: %d entries", k, n)
		}
		start := len(all)
		for j := uint64(0); j < n && err == nil; j++ {
			e := Entry{Lang: b(), Cost: b()}
			if uint64(e.Lang) >= nl {
				return nil, fmt.Errorf("n-gram %x: language %d", k, e.Lang)
			}
			all = append(all, e)
		}
		m.Grams[k] = all[start:len(all):len(all)]
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}
