//go:build !(linux && (amd64 || arm64))

package procstat

import "errors"

// DropCache cannot drop a file from the page cache here.
func DropCache(string) error { return errors.ErrUnsupported }
