package calc

import "testing"

func TestBig(t *testing.T) {
	t.Parallel()
	if got := Add(10, 20); got != 30 {
		t.Fatalf("Add(10, 20) = %d", got)
	}
}
