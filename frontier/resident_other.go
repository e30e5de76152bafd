//go:build !linux

package frontier

import bolt "go.etcd.io/bbolt"

// dropTx does nothing here: the mapped pages are left to the system.
func dropTx(tx *bolt.Tx) error {
	if tx.Writable() {
		return errDropWritable
	}
	return nil
}

// residentFile cannot be read here: a nil *residentFile reads as -1, and the
// Frontier never drops.
type residentFile struct{}

func openResidentFile() *residentFile { return nil }

func (*residentFile) bytes() int64 { return -1 }

func (*residentFile) close() {}
