package frontier

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuild32Bit builds the package for a 32-bit target, where int is 32 bits: a
// constant such as math.MaxUint32 compared with an int does not compile there.
func TestBuild32Bit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with the go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	for _, arch := range []string{"386", "arm"} {
		cmd := exec.Command(gobin, "build", "-o", filepath.Join(t.TempDir(), "frontier.a"), ".")
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOARCH=%s go build: %v\n%s", arch, err, out)
		}
	}
}
