package backends

// Class sorts a backend error by what the caller should do about it.
// Every backend classifies its errors into these four; only
// ClassTransient is retried, and only by Retry.
type Class string

// Error classes.
const (
	// ClassConflict: the live state refuses the change, or changed since
	// it was observed (a CNAME beside other data, a record or domain that
	// already exists, a zone that vanished). Re-observing shows why;
	// repeating the same call would fail the same way.
	ClassConflict Class = "conflict"
	// ClassInvalid: the request itself is wrong, or asks for what the
	// system does not support. Also every failure a backend cannot name
	// better: an unknown failure is not retried blindly.
	ClassInvalid Class = "invalid"
	// ClassAuth: the credential was refused or lacks permission.
	ClassAuth Class = "auth"
	// ClassTransient: the system could not be reached, was overloaded or
	// did not answer in time. Repeating a call that is safe to repeat
	// may succeed.
	ClassTransient Class = "transient"
)
