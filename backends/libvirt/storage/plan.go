//go:build cgo && libvirt_dlopen

package storage

// VolumeKey is the plan's key of volume pool/name on host.
func VolumeKey(host, pool, name string) string { return "volume/" + host + "/" + pool + "/" + name }

// UnreadValues are the before and after of an unread volume's change.
func UnreadValues(pool string, vol *Volume) (before, after map[string]any) {
	if vol.NoPool == PoolMissing {
		return map[string]any{"volume": "unknown: pool " + pool + " does not exist yet"}, map[string]any{"volume": "read after the pool is made"}
	}
	return map[string]any{"volume": "unknown: pool " + pool + " is not active"}, map[string]any{"volume": "read after the pool starts"}
}

// UnreadReason says why a volume's plan waits for its pool.
func UnreadReason(pool, what string, vol *Volume) string {
	const then = "and made only if missing (an existing one is kept; a resize or a new base still needs its gate)"
	if vol.NoPool == PoolMissing {
		return what + ": pool " + pool + " does not exist yet, and " + vol.Unknown + ", so whether the volume is there, and what it holds, is unknown (a diff makes no pool); " +
			"it is read after the pool is made, in apply, " + then
	}
	return what + ": pool " + pool + " is not active, so whether this volume exists is unknown (a diff does not start the pool); " +
		"it is read after the pool starts, in apply, " + then
}
