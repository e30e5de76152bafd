//go:build !(linux && (amd64 || arm64))

package main

// dropCache cannot drop a file from the page cache here: Open is measured warm only.
func dropCache(string) bool { return false }
