package replaycheck

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
)

// difference is what compare finds of two screenshots.
type difference struct {
	diff                 float64 // fraction of pixels that differ beyond the tolerance
	nonWhiteA, nonWhiteB float64 // fraction of pixels of each that are not white
}

// compare decodes two PNG screenshots of one size and counts the pixels whose
// colour differs by more than tolerance (0-255) in any of red, green and blue.
func compare(a, b []byte, tolerance int) (difference, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return difference{}, fmt.Errorf("live screenshot: %w", err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return difference{}, fmt.Errorf("replay screenshot: %w", err)
	}
	return compareImages(ia, ib, tolerance)
}

func compareImages(a, b image.Image, tolerance int) (difference, error) {
	ra, rb := a.Bounds(), b.Bounds()
	if ra.Dx() != rb.Dx() || ra.Dy() != rb.Dy() {
		return difference{}, fmt.Errorf("screenshots of %dx%d and %dx%d pixels", ra.Dx(), ra.Dy(), rb.Dx(), rb.Dy())
	}
	n := ra.Dx() * ra.Dy()
	if n == 0 {
		return difference{}, fmt.Errorf("empty screenshots")
	}
	tol := uint32(tolerance) * 0x101 // 16-bit channels
	var differ, whiteA, whiteB int
	for y := 0; y < ra.Dy(); y++ {
		for x := 0; x < ra.Dx(); x++ {
			r1, g1, b1, _ := a.At(ra.Min.X+x, ra.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(rb.Min.X+x, rb.Min.Y+y).RGBA()
			if far(r1, r2, tol) || far(g1, g2, tol) || far(b1, b2, tol) {
				differ++
			}
			if white(r1, g1, b1) {
				whiteA++
			}
			if white(r2, g2, b2) {
				whiteB++
			}
		}
	}
	f := float64(n)
	return difference{diff: float64(differ) / f, nonWhiteA: 1 - float64(whiteA)/f, nonWhiteB: 1 - float64(whiteB)/f}, nil
}

func far(x, y, tol uint32) bool {
	if x > y {
		return x-y > tol
	}
	return y-x > tol
}

// white reports whether a colour is white or nearly (every channel at least 250 of 255).
func white(r, g, b uint32) bool {
	const min = 250 * 0x101
	return r >= min && g >= min && b >= min
}
