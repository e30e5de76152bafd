package frontier

import (
	"errors"
	"fmt"
	"testing"
)

func TestOpErrorNamesPackageOnce(t *testing.T) {
	disk := errors.New("write frontier.db: no space left on device")
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&opError{op: "commit", err: disk}, "frontier: commit: write frontier.db: no space left on device"},
		{&opError{op: "commit", err: fmt.Errorf("%w: staged record 01", ErrCorrupt)}, "commit: frontier: corrupt database: staged record 01"},
		{&opError{op: "close", err: ErrClosed}, "close: frontier: closed"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error():\n\tgot  %q\n\twant %q", got, tt.want)
		}
		if !errors.Is(tt.err, errors.Unwrap(tt.err)) {
			t.Errorf("%v does not unwrap", tt.err)
		}
	}
	if !errors.Is(&opError{op: "commit", err: fmt.Errorf("%w: x", ErrCorrupt)}, ErrCorrupt) {
		t.Error("opError hides ErrCorrupt")
	}
}
