package seed

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdomanski/iso9660"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/golden"
	"github.com/site-tools/site/compiler/model"
)

// TestNameIsReservedFromTenants: vet refuses a tenant's disk or base
// named as a seed (model.SeedVolumeName), so no tenant can make a
// volume by another VM's seed name first. That holds only while the
// pattern matches the names Build gives.
func TestNameIsReservedFromTenants(t *testing.T) {
	for _, in := range []Input{example, {Hostname: "a"}, {Hostname: "web", UserData: "#cloud-config\nruncmd: [x]\n"}} {
		if s := Build(in); !model.SeedVolumeName.MatchString(s.Name) {
			t.Errorf("seed name %q does not match model.SeedVolumeName %s: tenants could name it", s.Name, model.SeedVolumeName)
		}
	}
}

var example = Input{
	Hostname:      "keys",
	UserData:      "#cloud-config\npackages: [openbao]\n",
	MetaData:      "public-keys: []\n",
	NetworkConfig: "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n",
}

func TestBuildIsDeterministic(t *testing.T) {
	// Build must not use a temporary directory: point TMPDIR at an empty
	// one and check it stays empty.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	a, b := Build(example), Build(example)
	if !bytes.Equal(a.ISO, b.ISO) {
		t.Fatal("two builds of the same input differ")
	}
	if a.Name != b.Name || a.InstanceID != b.InstanceID {
		t.Fatalf("got names %q and %q, want equal", a.Name, b.Name)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("Build left %d entries in TMPDIR", len(left))
	}
	// The golden hash pins the exact bytes across releases: a change here
	// renames every seed, so it needs a formatVersion bump.
	sum := sha256.Sum256(a.ISO)
	got := a.Name + " " + hex.EncodeToString(sum[:]) + "\n"
	golden.Check(t, filepath.Join("testdata", "example.sha256.golden"), []byte(got))
}

func TestBuildNamesFollowInputs(t *testing.T) {
	base := Build(example)
	tests := []struct {
		name string
		edit func(*Input)
		same bool
	}{
		{"identical", func(*Input) {}, true},
		{"CRLF line ends", func(in *Input) { in.UserData = strings.ReplaceAll(in.UserData, "\n", "\r\n") }, true},
		{"missing final newline", func(in *Input) { in.UserData = strings.TrimSuffix(in.UserData, "\n") }, true},
		{"user-data", func(in *Input) { in.UserData += "runcmd: [true]\n" }, false},
		{"hostname", func(in *Input) { in.Hostname = "keys2" }, false},
		{"meta-data", func(in *Input) { in.MetaData = "" }, false},
		{"network-config", func(in *Input) { in.NetworkConfig = "" }, false},
		// Moving text between fields must not collide: lengths are hashed.
		{"boundary", func(in *Input) { in.Hostname, in.UserData = "keys#", strings.TrimPrefix(in.UserData, "#") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := example
			tt.edit(&in)
			got := Build(in)
			if (got.Name == base.Name) != tt.same {
				t.Errorf("got name %q against %q, want same=%v", got.Name, base.Name, tt.same)
			}
			if (got.InstanceID == base.InstanceID) != tt.same {
				t.Errorf("got instance-id %q against %q, want same=%v", got.InstanceID, base.InstanceID, tt.same)
			}
		})
	}
}

func TestImageReadsBack(t *testing.T) {
	s := Build(example)
	img, err := iso9660.OpenImage(bytes.NewReader(s.ISO))
	if err != nil {
		t.Fatalf("open image: %v", err)
	}
	label, err := img.Label()
	if err != nil {
		t.Fatal(err)
	}
	if label != "cidata" {
		t.Errorf("got label %q, want %q", label, "cidata")
	}
	root, err := img.RootDir()
	if err != nil {
		t.Fatal(err)
	}
	kids, err := root.GetChildren()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, k := range kids {
		b, err := io.ReadAll(k.Reader())
		if err != nil {
			t.Fatal(err)
		}
		got[strings.ToLower(k.Name())] = string(b)
	}
	want := map[string]string{
		"meta-data":      "instance-id: " + s.InstanceID + "\nlocal-hostname: keys\npublic-keys: []\n",
		"user-data":      example.UserData,
		"network-config": example.NetworkConfig,
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d files, want %d", len(got), len(want))
	}
}

// TestBlkidSeesCidata asks util-linux, as cloud-init's ds-identify does,
// for the file system type and label.
func TestBlkidSeesCidata(t *testing.T) {
	blkid, err := exec.LookPath("blkid")
	if err != nil {
		libvirttest.Need(t, "blkid not found: install util-linux to run this test")
	}
	p := filepath.Join(t.TempDir(), "seed.iso")
	if err := os.WriteFile(p, Build(example).ISO, 0o644); err != nil {
		t.Fatal(err)
	}
	for tag, want := range map[string]string{"LABEL": "cidata", "TYPE": "iso9660"} {
		out, err := exec.Command(blkid, "-p", "-o", "value", "-s", tag, p).Output()
		if err != nil {
			t.Fatalf("blkid -s %s: %v", tag, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s: got %q, want %q", tag, got, want)
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	for b.Loop() {
		Build(example)
	}
}
