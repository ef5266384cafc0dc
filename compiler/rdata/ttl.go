package rdata

import "fmt"

// MaxTTL is the largest TTL RFC 2181 §8 allows (2^31 - 1 seconds).
const MaxTTL = 1<<31 - 1

// TTL checks a time to live in seconds. Zero is refused: a record nobody
// may cache is almost always a mistake in a spec.
func TTL(n int64) error {
	if n < 1 || n > MaxTTL {
		return fmt.Errorf("TTL %d is out of range; use 1 to %d seconds", n, MaxTTL)
	}
	return nil
}
