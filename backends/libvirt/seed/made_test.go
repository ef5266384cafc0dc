package seed

import "testing"

// TestMadeProvesOnlyWhatBuildMade: a seed Build made is proved, with
// its hostname, with and without extra meta-data and network config;
// the same image cut short, changed by one byte, or carrying trailing
// bytes is not, nor is anything that is not such an image.
func TestMadeProvesOnlyWhatBuildMade(t *testing.T) {
	for _, in := range []Input{
		{Hostname: "web", UserData: "#cloud-config\n"},
		{Hostname: "db", UserData: "#cloud-config\nusers: []\n", MetaData: "public-keys: []\n", NetworkConfig: "version: 2\n"},
	} {
		s := Build(in)
		got, host, ok := Made(s.ISO)
		if !ok || host != in.Hostname || got.Name != s.Name {
			t.Errorf("Made(Build(%+v)) = %v %q %t, want %s %q true", in, got, host, ok, s.Name, in.Hostname)
		}
		changed := append([]byte(nil), s.ISO...)
		changed[len(changed)-sector] ^= 1 // the last file's first byte
		for what, iso := range map[string][]byte{
			"cut short": s.ISO[:len(s.ISO)-1], "changed": changed, "longer": append(append([]byte(nil), s.ISO...), 0),
			"empty": nil, "zeros": make([]byte, len(s.ISO)),
		} {
			if _, _, ok := Made(iso); ok {
				t.Errorf("%s %s: proved made by site", in.Hostname, what)
			}
		}
	}
}
