package rdata

import "testing"

func TestSVCB(t *testing.T) {
	tests := []struct {
		name, params, want, wantErr string
	}{
		{name: "pairs", params: "port=443 alpn=h2", want: "1 . alpn=h2 port=443"},
		{name: "outer spaces", params: "  alpn=h2  ", want: "1 . alpn=h2"},
		{name: "newline", params: "alpn=h2\nport=443", wantErr: `HTTPS params "alpn=h2\nport=443" hold the control character '\n' (U+000A); params are key=value pairs separated by spaces, such as alpn=h2,h3 port=443`},
		{name: "trailing newline", params: "alpn=h2\n", wantErr: `control character '\n' (U+000A)`},
		{name: "carriage return", params: "alpn=h2\r", wantErr: `control character '\r' (U+000D)`},
		{name: "tab", params: "alpn=h2\tport=443", wantErr: `control character '\t' (U+0009)`},
		{name: "NUL", params: "alpn=h2\x00", wantErr: `control character '\x00' (U+0000)`},
		{name: "DEL", params: "alpn=h2\x7f", wantErr: `control character '\x7f' (U+007F)`},
		{name: "C1", params: "alpn=h2\u0085", wantErr: `control character '\u0085' (U+0085)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SVCB("HTTPS", 1, ".", tt.params)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}
