package rdata

import (
	"fmt"
	"strings"

	"github.com/miekg/dns"
)

// LOC returns an RFC 1876 location in the one form PowerDNS takes and
// returns (it refuses any other spelling with "Not in expected
// format"): degrees, minutes and seconds to the millisecond with their
// hemisphere, then altitude, size and the two precisions in metres to
// the centimetre, e.g. "52 22 23.000 N 4 53 32.000 E -2.00m 1.00m
// 10000.00m 10.00m". Any spelling RFC 1876 allows is read ("52 22 N 4
// 53 E 10m", the defaults filled in), through miekg/dns's parser.
func LOC(s string) (string, error) {
	rr, err := dns.NewRR(". 3600 IN LOC " + s)
	if err != nil || rr == nil {
		return "", fmt.Errorf("LOC %q is not an RFC 1876 location (%v); write it as \"52 22 23.000 N 4 53 32.000 E -2.00m 1.00m 10000.00m 10.00m\" (latitude, longitude, altitude, then optionally size and precisions)", s, locErr(err))
	}
	l := rr.(*dns.LOC)
	lat, latH := locCoord(l.Latitude, 'N', 'S')
	lon, lonH := locCoord(l.Longitude, 'E', 'W')
	alt := (float64(l.Altitude) - dns.LOC_ALTITUDEBASE*100) / 100
	return fmt.Sprintf("%s %c %s %c %.2fm %.2fm %.2fm %.2fm", lat, latH, lon, lonH, alt,
		locPrecision(l.Size), locPrecision(l.HorizPre), locPrecision(l.VertPre)), nil
}

// locCoord writes a latitude or longitude (thousandths of an arc second
// from 2^31, RFC 1876 §2) as degrees, minutes and seconds, and its
// hemisphere.
func locCoord(v uint32, pos, neg byte) (string, byte) {
	x := int64(v) - dns.LOC_EQUATOR
	h := pos
	if x < 0 {
		h, x = neg, -x
	}
	ms := x % 60000
	x /= 60000
	return fmt.Sprintf("%d %d %.3f", x/60, x%60, float64(ms)/1000), h
}

// locPrecision is a size or precision (a mantissa and a power of ten of
// centimetres, RFC 1876 §2) in metres.
func locPrecision(b uint8) float64 {
	v := float64(b >> 4)
	for range b & 0x0f {
		v *= 10
	}
	return v / 100
}

// locErr is miekg/dns's reason without its position in our one-line
// input, or "no data" when it gave none.
func locErr(err error) string {
	if err == nil {
		return "no data"
	}
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "dns: ") {
		msg = msg[i+2:]
	}
	if i := strings.Index(msg, " at line"); i >= 0 {
		msg = msg[:i]
	}
	return msg
}
