//go:build cgo && libvirt_dlopen

package ownership

import "testing"

func TestParseOwner(t *testing.T) {
	other := `<app:x xmlns:app="urn:example:app">keep me</app:x>`
	o := &Owner{Tenant: "t1", Volumes: []Volume{{Pool: "p", Name: "b", Role: "disk"}, {Pool: "p", Name: "a", Role: "seed"}}}
	o.Normalize()
	tests := []struct {
		name       string
		inner      string
		want       string
		wantOthers string
	}{
		{"none", "", "none", ""},
		{"foreign only", other, "none", other},
		{"ours and foreign", other + o.MetadataXML(""), "tenant=t1 seed=p/a disk=p/b", other},
		{"as libvirt writes it back", `<site:owner xmlns:site="` + NS + `" tenant="t1"><site:volume pool="p" name="a" role="seed"/></site:owner>`, "tenant=t1 seed=p/a", ""},
		{"volume of another element is not ours", other + `<y:v xmlns:y="urn:y"><volume pool="p" name="z"/></y:v>` + `<site:owner xmlns:site="` + NS + `" tenant="t1"/>`,
			"tenant=t1", other + `<y:v xmlns:y="urn:y"><volume pool="p" name="z"/></y:v>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, others, err := Parse(tt.inner)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("got %q, want %q", got.String(), tt.want)
			}
			if others != tt.wantOthers {
				t.Errorf("got others %q, want %q", others, tt.wantOthers)
			}
		})
	}
}
