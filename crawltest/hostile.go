package crawltest

import (
	"fmt"
	"strings"
)

// HostileKinds are the kinds of hostile site [HostileSites] makes.
var HostileKinds = []string{"bomb", "nolength", "text", "nesting", "soup"}

// HostileSites returns sites whose home page is built to cost a crawler memory, copies
// of each kind in HostileKinds, named "KIND-N.test" (N from 0). Each home page links to
// "/next.html", a small ordinary page, before anything hostile, so a crawler that reads
// a bounded prefix still finds it:
//
//   - bomb: a gzip bomb (Page.Bomb) that decodes to size bytes, about 100 to 1;
//   - nolength: a page padded to size bytes sent without Content-Length;
//   - text: size bytes of one text run, with Content-Length;
//   - nesting: size/5 nested <div> elements;
//   - soup: size/4 <br> elements, each of which becomes a node of a parsed tree.
//
// The large bodies of one kind are shared between its copies.
func HostileSites(copies, size int) []Site {
	const link = `<a href="/next.html">next</a>`
	text := "<!DOCTYPE html><html><head><title>text</title></head><body>" + link + "<p>" + strings.Repeat("x", size)
	nesting := "<!DOCTYPE html><html><head><title>nesting</title></head><body>" + link + strings.Repeat("<div>", size/5)
	soup := "<!DOCTYPE html><html><head><title>soup</title></head><body>" + link + strings.Repeat("<br>", size/4)
	var sites []Site
	for _, kind := range HostileKinds {
		for i := range copies {
			home := &Page{Links: []string{"/next.html"}}
			switch kind {
			case "bomb":
				home.Bomb = size
			case "nolength":
				home.Size, home.NoLength = size, true
			case "text":
				home.Body = text
			case "nesting":
				home.Body = nesting
			case "soup":
				home.Body = soup
			}
			sites = append(sites, Site{
				Host:  fmt.Sprintf("%s-%d.test", kind, i),
				Pages: map[string]*Page{"/": home, "/next.html": {}},
			})
		}
	}
	return sites
}
