package extract

import "iter"

// srcsetURLs yields the URL of each image candidate of a srcset attribute (or of
// imagesrcset), as the HTML standard parses them ("parse a srcset attribute"):
// candidates are separated by commas, a URL runs to the next white space (a comma
// that ends it is the separator), and its descriptors ("2x", "640w") run to the
// next comma outside parentheses. Descriptors are not checked: a browser drops a
// candidate with bad ones, but picks among the others, so all are fetched.
func srcsetURLs(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		i := 0
		for {
			for i < len(s) && (srcsetSpace(s[i]) || s[i] == ',') {
				i++
			}
			if i >= len(s) {
				return
			}
			start := i
			for i < len(s) && !srcsetSpace(s[i]) {
				i++
			}
			u := s[start:i]
			if n := len(u); n > 0 && u[n-1] == ',' {
				for n > 0 && u[n-1] == ',' {
					n--
				}
				u = u[:n]
			} else {
				// Descriptors: up to a comma outside parentheses.
				paren := false
				for ; i < len(s); i++ {
					c := s[i]
					if c == '(' {
						paren = true
					} else if c == ')' {
						paren = false
					} else if c == ',' && !paren {
						i++
						break
					}
				}
			}
			if u != "" && !yield(u) {
				return
			}
		}
	}
}

// srcsetSpace reports whether c is ASCII white space as HTML defines it.
func srcsetSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}
