package importzone

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/miekg/dns"

	"github.com/site-tools/site/compiler/dnsname"
)

// parseBIND reads a BIND master file (RFC 1035 §5: $ORIGIN, $TTL,
// relative names, parentheses, several strings to a TXT) with
// miekg/dns's zone parser, origin first set to want. $INCLUDE is
// refused: an import reads the one file it is given. A record without
// a TTL takes $TTL, else the last TTL written (RFC 1035; BIND would
// take the SOA's minimum), and one with neither is a parse error.
//
// The file is one zone: want, else the owner of its SOA.
func parseBIND(file string, src []byte, want string) ([]zone, error) {
	lines := &lineReader{r: bytes.NewReader(src)}
	zp := dns.NewZoneParser(lines, want, file)
	text := strings.Split(string(src), "\n")
	z := zone{name: want}
	end := 0 // the last line the previous record used
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		pos := fmt.Sprintf("%s:%d", file, firstLine(text, end, lines.at()))
		end = lines.at()
		h := rr.Header()
		typ := dns.TypeToString[h.Rrtype]
		if typ == "" {
			typ = fmt.Sprintf("TYPE%d", h.Rrtype)
		}
		name, err := dnsname.Canonical(h.Name, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pos, err)
		}
		if h.Class != dns.ClassINET {
			return nil, fmt.Errorf("%s: %s %s is of class %s; site writes class IN only: remove it from the file", pos, name, typ, dns.ClassToString[h.Class])
		}
		if typ == "SOA" && z.name == "" {
			z.name = name
		}
		value := strings.TrimPrefix(rr.String(), h.String())
		z.records = append(z.records, record{pos: pos, name: name, typ: typ, ttl: h.Ttl, value: value})
	}
	if err := zp.Err(); err != nil {
		// miekg/dns says "FILE: dns: WHAT at line: L:C"; site names
		// positions FILE:L:C first.
		if m := parseErrorRE.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%s:%s:%s: %s; fix the file, then import again", file, m[2], m[3], m[1])
		}
		return nil, fmt.Errorf("%w; fix the file, then import again", err)
	}
	if z.name == "" {
		return nil, fmt.Errorf("%s has no SOA to say which zone it is; give the zone with --zone", file)
	}
	return []zone{z}, nil
}

var parseErrorRE = regexp.MustCompile(`dns: (.*) at line: (\d+):(\d+)$`)

// firstLine is the line a record that ended on line last began on: the
// first line after the previous record's (after) that holds more than
// white space, a comment or a $ directive.
func firstLine(text []string, after, last int) int {
	for n := after + 1; n <= last && n <= len(text); n++ {
		s := strings.TrimSpace(text[n-1])
		if s != "" && !strings.HasPrefix(s, ";") && !strings.HasPrefix(s, "$") {
			return n
		}
	}
	return last
}

// lineReader counts the lines the zone parser has read: it reads byte
// by byte through io.ByteReader, and has read a record's last newline
// when it returns the record, so the count is the record's last line.
type lineReader struct {
	r    *bytes.Reader
	line int  // newlines read, so the line being read is line+1
	last byte // the last byte read
}

// at is the line of the last byte read: a record's last line, also
// when the file does not end in a newline.
func (l *lineReader) at() int {
	if l.last == '\n' || l.last == 0 {
		return l.line
	}
	return l.line + 1
}

func (l *lineReader) ReadByte() (byte, error) {
	c, err := l.r.ReadByte()
	if err == nil {
		l.last = c
		if c == '\n' {
			l.line++
		}
	}
	return c, err
}

func (l *lineReader) Read(p []byte) (int, error) {
	for i := range p {
		c, err := l.ReadByte()
		if err != nil {
			return i, err
		}
		p[i] = c
	}
	return len(p), nil
}
