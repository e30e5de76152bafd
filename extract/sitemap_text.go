package extract

import (
	"bufio"
	"bytes"
	"errors"
)

// parseText reads a plain-text sitemap: one absolute URL a line, UTF-8, blank lines
// ignored. Lines longer than the read buffer (32 KiB) are skipped as "too-long"
// without being held in memory.
func (p *smParser) parseText(in *bufio.Reader) error {
	p.res.Format = "text"
	for {
		line, err := in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = in.ReadSlice('\n')
			}
			p.count(SkipTooLong)
			if err != nil {
				return err
			}
			continue
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if p.kept >= p.opts.MaxURLs {
				p.res.Skipped[SkipLimit]++
			} else if loc, ok := p.loc(string(line), false, false); ok {
				p.res.URLs = append(p.res.URLs, SitemapURL{Loc: loc, Priority: -1})
				p.kept++
			}
		}
		if err != nil {
			return err
		}
	}
}

// count counts one skipped entry for reason, or for "limit" once MaxURLs entries
// are kept.
func (p *smParser) count(reason string) {
	if p.kept >= p.opts.MaxURLs {
		reason = SkipLimit
	}
	p.res.Skipped[reason]++
}
