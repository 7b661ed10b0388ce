package calc

import "testing"

func TestSmall(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d", got)
	}
}

func TestNegative(t *testing.T) {
	if got := Add(-4, 1); got != -3 {
		t.Fatalf("Add(-4, 1) = %d", got)
	}
}
