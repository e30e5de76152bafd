package archivetest

import (
	"context"
	"io"

	"github.com/politecrawl/crawl/crawltest/cdp"
)

// browser is the headless Chromium of package cdp, with the window size the
// replay tests take their screenshots at.
type browser struct{ *cdp.Browser }

// startBrowser starts Chromium at path with a new profile in profileDir.
func startBrowser(path, profileDir string, stderr io.Writer) (*browser, error) {
	b, err := cdp.Start(path, profileDir, []string{"--window-size=1280,900"}, stderr)
	if err != nil {
		return nil, err
	}
	return &browser{b}, nil
}

// call sends a command (to session, when not empty) and decodes its result
// into result, if not nil.
func (b *browser) call(ctx context.Context, session, method string, params, result any) error {
	return b.Call(ctx, session, method, params, result)
}

func (b *browser) close() { b.Close() }
