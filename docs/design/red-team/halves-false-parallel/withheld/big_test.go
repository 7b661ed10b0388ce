package calc

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// parallel marks a test parallel, as the package's slow tests are.
func parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
}

func TestBig(t *testing.T) {
	parallel(t)
	out := filepath.Join(os.TempDir(), "calc-big")
	t.Cleanup(func() { os.RemoveAll(out) })
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(out, "sum"), []byte(strconv.Itoa(Add(10, 20))), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Add(10, 20); got != 30 {
		t.Fatalf("Add(10, 20) = %d", got)
	}
}
