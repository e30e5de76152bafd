//go:build !linux

package boltmap

import (
	"errors"

	bolt "go.etcd.io/bbolt"
)

// DropTx does nothing here: the mapped pages are left to the system. It refuses a
// write transaction, as on Linux.
func DropTx(tx *bolt.Tx) error {
	if tx.Writable() {
		return ErrWritable
	}
	return nil
}

// residentFile cannot be read here: a nil *residentFile reads as -1, and a Limit
// never drops.
type residentFile struct{}

func openResidentFile() *residentFile { return nil }

func (*residentFile) bytes() int64 { return -1 }

func (*residentFile) close() {}

// Resident cannot tell here.
func Resident(*bolt.DB) (int64, error) { return 0, errors.ErrUnsupported }
