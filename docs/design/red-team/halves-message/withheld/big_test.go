package calc

import "testing"

func TestBig(t *testing.T) {
	if got := Add(10, 20); got != 30 {
		t.Errorf("Add(10, 20) = %d; want 30", got)
	}
}
