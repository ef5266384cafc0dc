package rdata

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
)

// Target returns the canonical form of an absolute host name used as the
// target of an MX or SRV record. "." is the null target ("no service
// here", RFC 7505 and RFC 2782) and is returned as is. A relative name is
// refused rather than qualified, because inside record data it is too easy
// to mean one zone and write another.
func Target(s string) (string, error) {
	if s == "." {
		return ".", nil
	}
	return absolute(s)
}

// Host is Target for CNAME and NS records, where the root "." is not a
// meaningful target and is refused.
func Host(s string) (string, error) {
	if s == "." {
		return "", fmt.Errorf("target %q is the DNS root, not a host; write the host's absolute name with a trailing dot", s)
	}
	return absolute(s)
}

func absolute(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("target is empty; write an absolute host name with a trailing dot")
	}
	if !strings.HasSuffix(s, ".") {
		return "", &RelativeError{Name: s}
	}
	n, err := dnsname.Canonical(s, "")
	if err != nil {
		return "", fmt.Errorf("target: %w", err)
	}
	if dnsname.IsWildcard(n) {
		return "", fmt.Errorf("target %q is a wildcard; write the name of a real host", s)
	}
	return n, nil
}

// RelativeError is a target written without its trailing dot. Its
// message suggests the name made absolute as written; InZone suggests
// the name in the zone the record is in, which is what a label without
// dots ("www") almost always means.
type RelativeError struct{ Name string }

func (e *RelativeError) Error() string {
	return fmt.Sprintf("target %q is relative; write it absolute with a trailing dot: %s.", e.Name, e.Name)
}

// InZone returns err's message with e's advice made for a record in
// zone (absolute, with its trailing dot): "www" becomes "www.<zone>",
// and "a.b" either "a.b." or "a.b.<zone>"; a name that ends in the
// zone's own name ("www.<zone>" without its dot) only gets its dot, as
// the zone added again would double it. err is e itself or an error
// that wraps it and quotes its message.
func (e *RelativeError) InZone(err error, zone string) string {
	advice := fmt.Sprintf("target %q is relative; write it absolute with a trailing dot: %s.%s", e.Name, e.Name, zone)
	if abs := strings.ToLower(e.Name) + "."; abs == zone || strings.HasSuffix(abs, "."+zone) {
		advice = e.Error()
	} else if strings.Contains(e.Name, ".") {
		advice = fmt.Sprintf("target %q is relative; write it absolute with a trailing dot: %s. or, in this zone, %s.%s", e.Name, e.Name, e.Name, zone)
	}
	return strings.Replace(err.Error(), e.Error(), advice, 1)
}

// MX returns "<priority> <host>", e.g. "10 mx.example.org.".
func MX(priority int, host string) (string, error) {
	if err := uint16Field("MX priority", priority); err != nil {
		return "", err
	}
	h, err := Target(host)
	if err != nil {
		return "", fmt.Errorf("MX host: %w", err)
	}
	return strconv.Itoa(priority) + " " + h, nil
}

// ParseMX splits an MX value in presentation form into its fields.
func ParseMX(s string) (priority int, host string, err error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, "", fmt.Errorf("MX value %q: want \"<priority> <host>\"", s)
	}
	if priority, err = parseUint16("MX priority", f[0]); err != nil {
		return 0, "", fmt.Errorf("MX value %q: %w", s, err)
	}
	if host, err = Target(f[1]); err != nil {
		return 0, "", fmt.Errorf("MX value %q: %w", s, err)
	}
	return priority, host, nil
}

// SRV returns "<priority> <weight> <port> <target>", e.g.
// "10 5 443 t.example.org.".
func SRV(priority, weight, port int, target string) (string, error) {
	for _, f := range []struct {
		name string
		v    int
	}{{"SRV priority", priority}, {"SRV weight", weight}, {"SRV port", port}} {
		if err := uint16Field(f.name, f.v); err != nil {
			return "", err
		}
	}
	t, err := Target(target)
	if err != nil {
		return "", fmt.Errorf("SRV target: %w", err)
	}
	return fmt.Sprintf("%d %d %d %s", priority, weight, port, t), nil
}

// ParseSRV splits an SRV value in presentation form into its fields.
func ParseSRV(s string) (priority, weight, port int, target string, err error) {
	f := strings.Fields(s)
	if len(f) != 4 {
		return 0, 0, 0, "", fmt.Errorf("SRV value %q: want \"<priority> <weight> <port> <target>\"", s)
	}
	var n [3]int
	for i, name := range []string{"SRV priority", "SRV weight", "SRV port"} {
		if n[i], err = parseUint16(name, f[i]); err != nil {
			return 0, 0, 0, "", fmt.Errorf("SRV value %q: %w", s, err)
		}
	}
	if target, err = Target(f[3]); err != nil {
		return 0, 0, 0, "", fmt.Errorf("SRV value %q: %w", s, err)
	}
	return n[0], n[1], n[2], target, nil
}

func uint16Field(name string, v int) error {
	if v < 0 || v > 65535 {
		return fmt.Errorf("%s %d is out of range; use 0 to 65535", name, v)
	}
	return nil
}

// parseUint16 reads a decimal 0..65535 without sign or leading zeros, so
// every number has exactly one spelling.
func parseUint16(name, s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || s[0] == '+' || s[0] == '-' || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("%s %q is not a decimal number", name, s)
	}
	return v, uint16Field(name, v)
}
