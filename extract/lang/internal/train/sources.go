package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlText returns the text of an HTML document outside script and style, a line per
// block.
func htmlText(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b))
	var sb strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return sb.String()
		case html.StartTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style, atom.Pre, atom.Code, atom.Title:
				skip++
			}
			sb.WriteByte('\n')
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style, atom.Pre, atom.Code, atom.Title:
				if skip > 0 {
					skip--
				}
			}
			sb.WriteByte('\n')
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		}
	}
}

// moStrings returns the translations of a gettext .mo file, a line each, with printf
// verbs, accelerator marks and markup removed.
func moStrings(b []byte) []string {
	if len(b) < 28 {
		return nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch bo.Uint32(b) {
	case 0x950412de:
	case 0xde120495:
		bo = binary.BigEndian
	default:
		return nil
	}
	n := int(bo.Uint32(b[8:]))
	trans := int(bo.Uint32(b[16:]))
	var out []string
	for i := 0; i < n; i++ {
		at := trans + 8*i
		if at+8 > len(b) {
			break
		}
		l, off := int(bo.Uint32(b[at:])), int(bo.Uint32(b[at+4:]))
		if off < 0 || l < 0 || off+l > len(b) || i == 0 && l > 0 && bytes.Contains(b[off:off+l], []byte("Content-Type:")) {
			continue
		}
		for _, s := range strings.Split(string(b[off:off+l]), "\x00") {
			s = moNoise.ReplaceAllString(s, " ")
			out = append(out, strings.ReplaceAll(s, "_", ""))
		}
	}
	return out
}

var moNoise = regexp.MustCompile(`%[-+ #0-9.*$lhqjzt]*[a-zA-Z]|<[^>]*>|&[a-z]+;|\$\{?[A-Za-z_]+\}?|\{[^}]*\}|https?://\S+|&`)

// manText returns the text of a troff manual page: the words of its text lines and of
// the arguments of its font and heading macros.
func manText(b []byte) string {
	var sb strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			switch strings.TrimLeft(f[0], ".'") {
			case "SH", "SS", "B", "I", "BI", "BR", "IB", "IR", "RB", "RI", "SM", "SB", "Nd", "Em", "Sh":
				line = strings.Join(f[1:], " ")
			default:
				continue
			}
		}
		line = troffEscape.ReplaceAllString(line, " ")
		sb.WriteString(strings.ReplaceAll(line, `"`, ""))
		sb.WriteByte('\n')
	}
	return sb.String()
}

var troffEscape = regexp.MustCompile(`\\f(\[[^\]]*\]|\(..|.)|\\\*?\((..)|\\\[[^\]]*\]|\\s[-+]?[0-9]+|\\[-e&|^~0 ]|\\.`)

// readMaybeGzip reads a file, gunzipping names ending in .gz.
func readMaybeGzip(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		r = z
	}
	return io.ReadAll(io.LimitReader(r, 4<<20))
}

// files returns the regular files under dir (sorted) whose names match pattern.
func files(dir, pattern string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if ok, _ := filepath.Match(pattern, d.Name()); ok {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}
